"""The base of the set-valued protocols: ``Protocol`` (the likelihood, GIBU's group, the unbiased estimator and its
variance, derived once from each protocol's sets and two likelihood values), the two report shapes (one value,
k bits), k-RR's two values (shared by GRR and local hashing), the eps range and the sampling helpers.
"""

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from privest._checks import (
    check_between,
    check_bits,
    check_choice,
    check_distribution,
    check_int,
    check_mapping,
    check_packed_bits,
    check_text,
)
from privest.consistency import NEEDS_VARIANCE, POSTS, AnyPost, apply
from privest.groups import BitGroup, SetGroup
from privest.intervals import Interval, normal_interval
from privest.protocols.packed import PackedBits
from privest.rappor import _distinct_packed, _packed_sizes, distinct_rows

__all__ = [
    "EPS_MAX",
    "EPS_MIN",
    "Protocol",
]

PACKED_SETS = 1 / 8
"""``Protocol.group`` packs the sets of a protocol whose reports' sets hold more than this share of the k secrets on
average: k / 8 bytes a report against 4 bytes a member (a GIBU iteration costs about 2 ns a byte packed, 2-3 ns a
member as CSR)."""

EPS_MIN = 1e-12
"""The smallest eps of every protocol: below it e^eps - 1 keeps fewer than 4 significant digits in float64."""


EPS_MAX = 700.0
"""The largest eps of every protocol but OLH: e^eps and e^-eps stay finite normal floats (e^709.8 is the largest)."""


# Rows of the membership matrix built at once: at k = 1024, 4096 rows hold 4 M entries (16 MB of 32-bit hashes).
_CHUNK_ENTRIES = 1 << 22


def _grr(secrets: np.ndarray, size: int, keep: float, rng: np.random.Generator) -> np.ndarray:
    """Generalised randomised response over ``size`` values: keep the value with probability ``keep``, else report
    one of the other size - 1 values uniformly."""
    kept = rng.random(secrets.size) < keep
    other = (secrets + 1 + rng.integers(0, size - 1, secrets.size)) % size
    return np.where(kept, secrets, other)


@dataclass(frozen=True)
class Protocol:
    """A set-valued LDP frequency oracle on k secrets at privacy level eps (see ``privest.protocols``).

    Subclasses define the report type, ``sample``, ``membership`` (which secrets each report's set holds),
    ``log_scale``, ``high``, ``low``, ``p_star`` and ``q_star``; everything else is derived here once.

    Attributes
    ----------
    k : int
        The number of secrets (values 0..k-1), at least 2 (and at most ``k_max``, see the module docstring).
    eps : float
        The privacy level, in [EPS_MIN, eps_max] (module docstring): every report's likelihood ratio between two
        secrets is at most e^eps.

    Raises
    ------
    TypeError
        If k is not an integer or eps not a real number.
    ValueError
        If k or eps lies outside its range; the message names the argument and the range.
    """

    k: int
    eps: float
    name: ClassVar[str] = ""
    k_max: ClassVar[int | None] = None
    eps_max: ClassVar[float] = EPS_MAX
    _eps_why: ClassVar[str] = (f"(below {EPS_MIN:g}, e^eps - 1 keeps fewer than 4 digits in float64; above "
                               f"{EPS_MAX:g}, e^eps nears the largest float64)")

    def __post_init__(self) -> None:
        # a numpy integer k would break int-only arithmetic (HR's K): k is stored as a Python int, eps as a float
        object.__setattr__(self, "k", check_int(self.k, "k", minimum=2, maximum=self.k_max))
        object.__setattr__(self, "eps", check_between(self.eps, "eps", EPS_MIN, self.eps_max, self._eps_why))

    # what each protocol defines
    high: ClassVar[float]
    low: ClassVar[float]
    p_star: ClassVar[float]
    q_star: ClassVar[float]

    @property
    def _gap(self) -> float:
        """p* - q*, the estimator's divisor; subclasses give it in closed form (no cancellation at a tiny eps)."""
        return self.p_star - self.q_star

    def sample(self, secrets: np.ndarray, rng: np.random.Generator, packed: bool = False) -> Any:
        """One report per user, vectorised over users.

        Parameters
        ----------
        secrets : array_like of int, shape (n,)
            Each user's secret, in 0..k-1.
        rng : numpy.random.Generator
            The source of randomness.
        packed : bool
            For the bit protocols (SUE, OUE, SS): return ``PackedBits`` (1/8 of the memory), never forming the (n, k)
            bool matrix; the same draws as ``packed=False``, whose bool matrix is their ``unpack()``. The other
            protocols report one or two integers a user and return them as they are.

        Returns
        -------
        reports
            The protocol's report type (module docstring), one per user, in the users' order.
        """
        raise NotImplementedError

    def membership(self, reports: Any) -> np.ndarray:
        """Which secrets each report's set S holds, bool of shape (n, k)."""
        raise NotImplementedError

    def log_scale(self, reports: Any) -> np.ndarray:
        """The per-report factor's log, shape (n,): P(report | x) = exp(log_scale) (high if x in S else low)."""
        raise NotImplementedError

    def distinct(self, reports: Any) -> tuple[Any, np.ndarray]:
        """The distinct reports and how many users sent each."""
        raise NotImplementedError

    def count(self, reports: Any) -> int:
        """The number of reports."""
        return len(self._validated(reports))

    def _validated(self, reports: Any) -> Any:
        """reports, checked to be this protocol's reports (a TypeError or ValueError naming them otherwise)."""
        return self._reports(reports)

    def _reports(self, reports: Any) -> Any:
        raise NotImplementedError

    def _audit_event(self, reports: Any, x1: int, x2: int) -> np.ndarray:
        """``privest.audit``'s default event on these reports: x1 in the report's set and x2 not (likelihood ratio
        high/low, e^eps for the protocols of Wang et al.)."""
        member = self.membership(reports)
        return member[:, x1] & ~member[:, x2]

    def _audit_description(self, x1: int, x2: int) -> str:
        return f"x1 = {x1} in the report's set, x2 = {x2} not"

    # derived once for all protocols
    def likelihood(self, reports: Any) -> np.ndarray:
        """The exact likelihood of each report under each secret.

        Parameters
        ----------
        reports
            n reports of this protocol.

        Returns
        -------
        numpy.ndarray, shape (n, k)
            L[i, x] = P(report_i | x); summed over every possible report, each column gives 1.
        """
        return np.exp(self.log_scale(reports))[:, None] * np.where(self.membership(reports), self.high, self.low)

    def group(self, reports: Any) -> SetGroup | BitGroup:
        """The reports as ``privest.gibu`` takes them: the distinct reports' sets, built a block of rows at a time
        (never a dense (n, k) matrix), how many users sent each, and the likelihood's two values. Sets that hold more
        than ``PACKED_SETS`` of the k secrets on average (BLH, HR, OLH at a small eps) come bit-packed, a
        ``BitGroup`` (k / 8 bytes a report, where the members would take 4 bytes each), others as CSR, a ``SetGroup``:
        the same likelihood, so the same GIBU update.

        Parameters
        ----------
        reports
            The reports of this protocol's users.

        Returns
        -------
        SetGroup or BitGroup
            P(report_i | x) = exp(log_scale_i) (high if x in S_i else low) for the distinct reports i.
        """
        if self.count(reports) == 0:
            raise ValueError(f"{self.name}: reports must not be empty")
        unique, counts = self.distinct(reports)
        log_scale = self.log_scale(unique).astype(np.float64)
        if self.packs_sets:
            bits = np.concatenate([np.packbits(member, axis=1)
                                   for member in self._membership_blocks(unique, len(counts))])
            return BitGroup(self.k, bits, counts.astype(np.float64), float(self.high), float(self.low), log_scale)
        sizes, indices = [], []
        for member in self._membership_blocks(unique, len(counts)):
            sizes.append(member.sum(axis=1))
            indices.append((np.flatnonzero(member) % self.k).astype(np.int32))
        indptr = np.concatenate([[0], np.cumsum(np.concatenate(sizes))]).astype(np.int64)
        return SetGroup(self.k, indptr, np.concatenate(indices), counts.astype(np.float64), float(self.high),
                        float(self.low), log_scale)

    @property
    def packs_sets(self) -> bool:
        """Whether ``group`` packs the sets: their expected size p* + (k - 1) q* above ``PACKED_SETS`` k and above one
        secret (GRR's single value stays CSR at any k)."""
        return self.p_star + (self.k - 1) * self.q_star > max(1.0, PACKED_SETS * self.k)

    def _membership_blocks(self, reports: Any, n: int) -> Any:
        """``membership`` of ``_CHUNK_ENTRIES`` entries of the (n, k) matrix at a time, block after block."""
        rows = max(1, _CHUNK_ENTRIES // self.k)
        for start in range(0, n, rows):
            yield self.membership(reports[start:start + rows])

    def support(self, reports: Any) -> np.ndarray:
        """How many reports' sets hold each value, shape (k,) int64: the count C(v) of Wang et al. (2017)."""
        unique, counts = self.distinct(reports)
        rows = max(1, _CHUNK_ENTRIES // self.k)
        support = np.zeros(self.k)
        for start, member in zip(range(0, len(counts), rows), self._membership_blocks(unique, len(counts)),
                                 strict=True):
            support += counts[start:start + rows].astype(np.float64) @ member
        return np.rint(support).astype(np.int64)

    def estimate(self, reports: Any, post: AnyPost = None) -> np.ndarray:
        """The unbiased frequency estimate of Wang et al. (2017, eq. 1): (C(v)/n - q*) / (p* - q*), post-processed.

        Parameters
        ----------
        reports
            The reports of this protocol's users.
        post : str or None
            None for the raw estimate (it may be negative; its sum is 1 only in expectation), or one of the
            consistency post-processings of ``privest.consistency`` (NDSS 2020, section IV): "base-pos", "post-pos",
            "base-cut", "norm", "norm-mul", "norm-cut", "norm-sub", "power", "power-ns"; "projection" (INV-P) is
            "norm-sub" and "normalization" (INV-N) "norm-mul", as in ``privest.inv``. Base-Cut, Power and PowerNS
            use Var* = q*(1 - q*) / (n (p* - q*)^2), the variance of the estimate of a value no user holds.

        Returns
        -------
        numpy.ndarray, shape (k,)
            The estimate of theta.
        """
        check_choice(post, "post", POSTS)
        n = self.count(reports)
        if n == 0:
            raise ValueError(f"{self.name}: reports must not be empty")
        raw = (self.support(reports) / n - self.q_star) / self._gap
        variance = self.q_star * (1 - self.q_star) / (n * self._gap**2) if post in NEEDS_VARIANCE else None
        return apply(raw, post, variance=variance, n=n)

    def estimate_variance(self, reports: Any) -> np.ndarray:
        """The variance of the raw estimate, estimated from the reports: for users whose secrets are drawn i.i.d. from
        theta, each report's set holds v with probability q_v = q* + theta_v (p* - q*), so

            Var[theta-hat_v] = q_v (1 - q_v) / (n (p* - q*)^2),

        estimated with q_v = C(v)/n. (Wang et al.'s eq. 2, ``variance``, is for fixed secrets; it is smaller by
        theta_v (1 - theta_v) / n, the variance of the users' own empirical distribution.)

        Returns
        -------
        numpy.ndarray, shape (k,)
        """
        n = self.count(reports)
        if n == 0:
            raise ValueError(f"{self.name}: reports must not be empty")
        q = self.support(reports) / n
        return q * (1 - q) / (n * self._gap**2)

    def interval(self, reports: Any, level: float = 0.95) -> Interval:
        """Normal-approximation confidence intervals for theta from the raw estimate and ``estimate_variance``:
        theta-hat_v +- z sqrt(Var), clipped to [0, 1] (``privest.intervals.normal_interval``).

        Parameters
        ----------
        reports
            The reports of this protocol's users.
        level : float
            The confidence level, in (0, 1).

        Returns
        -------
        Interval
            The raw estimate and each value's interval; from fewer than ``privest.intervals.MIN_NORMAL_REPORTS``
            reports every interval is [0, 1] and ``informative`` is False.
        """
        return normal_interval(self.estimate(reports), self.estimate_variance(reports), level,
                               reports=self.count(reports))

    def variance(self, theta: np.ndarray, n: int) -> np.ndarray:
        """The variance of the raw unbiased estimate (Wang et al. 2017, eq. 2), for n users with distribution theta:

            Var[theta-hat_v] = q*(1 - q*) / (n (p* - q*)^2) + theta_v (1 - p* - q*) / (n (p* - q*)).

        It is exact for fixed secrets with n theta_v users holding v (the count C(v) is then a sum of independent
        Bernoulli variables), under an ideal random hash for BLH and OLH.
        """
        theta = check_distribution(theta, "theta", self.k)
        n = check_int(n, "n", minimum=1)
        gap = self._gap
        return self.q_star * (1 - self.q_star) / (n * gap**2) + theta * (1 - self.p_star - self.q_star) / (n * gap)

    def to_arrays(self, reports: Any, prefix: str) -> dict[str, np.ndarray]:
        """The arrays that store these reports in an npz file under ``prefix`` (``from_arrays`` reads them)."""
        check_text(prefix, "prefix")
        return {f"{prefix}reports": np.asarray(self._validated(reports))}

    def from_arrays(self, arrays: Any, prefix: str) -> Any:
        """The reports stored by ``to_arrays`` under ``prefix``."""
        check_text(prefix, "prefix")
        return self._validated(np.asarray(check_mapping(arrays, "arrays", [f"{prefix}reports"])[f"{prefix}reports"]))


class _ValueReports(Protocol):
    """A protocol whose report is one integer (GRR, HR): distinct reports by ``numpy.unique``."""

    def distinct(self, reports: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return np.unique(self._reports(reports), return_counts=True)


class _BitReports(Protocol):
    """A protocol whose report is k bits (SUE, OUE, SS): S is the bits set. Reports are the (n, k) bool (or 0/1)
    matrix or ``PackedBits``; every method takes either."""

    def _reports(self, reports: np.ndarray | PackedBits) -> np.ndarray | PackedBits:
        if isinstance(reports, PackedBits):
            if reports.k != self.k:
                raise ValueError(f"{self.name}: reports must be packed reports of k = {self.k} bits, got "
                                 f"k = {reports.k}")
            return reports
        return check_bits(reports, f"{self.name}: reports", self.k, convert=False)

    def membership(self, reports: np.ndarray | PackedBits) -> np.ndarray:
        reports = self._reports(reports)
        return reports.unpack() if isinstance(reports, PackedBits) else reports.astype(bool)

    def _size_log_scale(self, sizes: np.ndarray) -> np.ndarray:
        """``log_scale`` of reports whose sets hold ``sizes`` secrets (int64, shape (n,))."""
        raise NotImplementedError

    def log_scale(self, reports: np.ndarray | PackedBits) -> np.ndarray:
        return self._size_log_scale(self._set_counts(reports))

    def _set_counts(self, reports: np.ndarray | PackedBits) -> np.ndarray:
        """How many bits each report has set, shape (n,) int64 (on the bytes of packed reports)."""
        reports = self._reports(reports)
        if isinstance(reports, PackedBits):
            return reports.set_counts()
        return np.count_nonzero(reports, axis=1).astype(np.int64, copy=False)

    def _packed(self, reports: np.ndarray | PackedBits) -> np.ndarray:
        """The reports bit-packed, (n, ceil(k / 8)) uint8 as ``numpy.packbits(membership, axis=1)`` packs them (the
        layout of ``privest.groups.BitGroup`` and of ``to_arrays``); packed reports' own bytes, not copied."""
        reports = self._reports(reports)
        if isinstance(reports, PackedBits):
            return reports.bits
        return np.packbits(reports.astype(bool, copy=False), axis=1)

    def distinct(self, reports: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return distinct_rows(self.membership(reports))

    def group(self, reports: np.ndarray | PackedBits) -> BitGroup:  # type: ignore[override]
        """The reports as ``privest.gibu`` takes them: the distinct reports bit-packed (grouped by a hash of their
        bytes, ``privest.rappor._distinct_packed``, with no pass over rows in Python), how many users sent each, and
        the likelihood's two values; each report's log scale from its set size (``_size_log_scale``).

        Parameters
        ----------
        reports
            The reports of this protocol's users.

        Returns
        -------
        BitGroup
            P(report_i | x) = exp(log_scale_i) (high if x in S_i else low) for the distinct reports i.
        """
        packed = self._packed(reports)
        if packed.shape[0] == 0:
            raise ValueError(f"{self.name}: reports must not be empty")
        unique, counts = _distinct_packed(packed)
        log_scale = self._size_log_scale(_packed_sizes(unique))
        return BitGroup(self.k, unique, counts.astype(np.float64), float(self.high), float(self.low),
                        np.asarray(log_scale, dtype=np.float64))

    def support(self, reports: np.ndarray | PackedBits) -> np.ndarray:
        # counted on the reports as given (bool or 0/1 integers), without the (n, k) bool copy of ``membership``;
        # packed reports by per-byte histograms, never unpacked
        reports = self._reports(reports)
        if isinstance(reports, PackedBits):
            return reports.column_counts()
        return np.count_nonzero(reports, axis=0).astype(np.int64, copy=False)

    def to_arrays(self, reports: np.ndarray | PackedBits, prefix: str) -> dict[str, np.ndarray]:
        check_text(prefix, "prefix")
        return {f"{prefix}bits": self._packed(reports)}

    def from_arrays(self, arrays: Any, prefix: str) -> PackedBits:
        """The reports stored by ``to_arrays`` under ``prefix``, as ``PackedBits`` (never unpacked here)."""
        check_text(prefix, "prefix")
        bits = check_mapping(arrays, "arrays", [f"{prefix}bits"])[f"{prefix}bits"]
        return PackedBits(check_packed_bits(np.asarray(bits), f"arrays['{prefix}bits']", self.k), self.k)


class _RandomisedResponse(Protocol):
    """k-RR over ``_rr_size`` values (free-will eq. 1): the true value kept with probability
    high = e^eps/(e^eps + size - 1), each of the other size - 1 values reported with probability
    low = 1/(e^eps + size - 1). GRR is k-RR over the k secrets, local hashing (BLH, OLH) k-RR over the g hashed values:
    the one formula of both. p* = high."""

    _rr_size: ClassVar[int]

    @property
    def high(self) -> float:  # type: ignore[override]
        return math.exp(self.eps) / (math.exp(self.eps) + self._rr_size - 1)

    @property
    def low(self) -> float:  # type: ignore[override]
        return 1 / (math.exp(self.eps) + self._rr_size - 1)

    p_star = high
