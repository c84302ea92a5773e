"""The standard LDP frequency oracles as set-valued protocols: GRR, SUE, OUE, BLH, OLH, SS and HR.

Every protocol here reports something whose probability given the secret x is a per-report factor times one of two
values: ``high`` if x lies in the report's set S, ``low`` otherwise,

    P(report | x) = exp(log_scale(report)) * (high if x in S(report) else low).

That one structure serves everything: the exact likelihood (``likelihood``), the unbiased estimator of Wang et al.
(USENIX Security 2017; ``estimate``, from how many reports' sets hold each value), and GIBU over any mix of protocols
(``group`` gives the distinct reports' sets, which ``privest.gibu`` iterates on in O(sum of |S|), never a k x |Z|
matrix). A protocol is "pure" in Wang et al.'s sense: P(v in S | x = v) = p_star, P(v in S | x != v) = q_star.

========  =====================================================  ===========================================
protocol  report                                                 S(report)
========  =====================================================  ===========================================
GRR       int in [0, k)                                          {report}
SUE, OUE  bool (k,): one-hot bits, each kept or flipped          the bits set
BLH, OLH  (seed, value in [0, g)): GRR over g hashed values      {v : h_seed(v) = value}
SS        bool (k,): a subset of size omega                      the subset
HR        int in [0, K): a column of the Hadamard matrix         {x : H[x + 1, report] = +1}
========  =====================================================  ===========================================

Parameter ranges, checked when a protocol is made (a ValueError naming the argument otherwise):

- ``k``: an integer >= 2; BLH and OLH at most 10^15 (the hash reads a value's decimal string of at most 15 digits),
  HR at most 2^62 - 1 (its Hadamard order K <= 2k must be an int64 report).
- ``eps``: a finite number in [EPS_MIN, EPS_MAX] = [1e-12, 700]. Below 1e-12, e^eps - 1 keeps fewer than 4
  significant digits in float64 and the estimator's 1/(p* - q*) ~ k/eps passes 10^12 k; above 700, e^eps nears the
  largest float64 (e^709.8) and e^-eps the smallest normal one, where a likelihood value would round to 0 or inf.
  OLH at most ``OLH_EPS_MAX`` = ln(2^32 - 1) = 22.18: its g = round(e^eps) + 1 must not exceed 2^32, the range
  of the 32-bit hash xxh32 (a larger g would leave hashed values no user can reach, and q* = 1/g would be wrong).
- ``hashes`` (BLH, OLH): None or an integer in 1..2^32 (the seeds are 32-bit).

Within these ranges sampling gives valid reports, and ``likelihood``, ``estimate`` and ``variance`` are finite (the
gap p* - q* is computed in closed form with expm1 or tanh, never as a difference of two near-equal numbers).

Examples
--------
>>> import numpy as np
>>> from privest import protocols, rng_for
>>> m = protocols.oue(8, 1.0)
>>> reports = m.sample(np.repeat(np.arange(8), 1000), rng_for(2026, "protocols doctest"))
>>> reports.shape, m.likelihood(reports[:2]).shape
((8000, 8), (2, 8))
>>> bool(np.abs(m.estimate(reports) - 1 / 8).max() < 0.05)
True
"""

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from privest._checks import (
    check_between,
    check_bits,
    check_choice,
    check_distribution,
    check_instance,
    check_int,
    check_integers,
    check_mapping,
    check_rng,
    check_text,
)
from privest.groups import SetGroup
from privest.rappor import distinct_rows
from privest.sampling import check_secrets
from privest.simplex import POSTS, Post, post_process

NAMES = ("grr", "sue", "oue", "blh", "olh", "ss", "hr")

EPS_MIN = 1e-12
"""The smallest eps of every protocol: below it e^eps - 1 keeps fewer than 4 significant digits in float64."""
EPS_MAX = 700.0
"""The largest eps of every protocol but OLH: e^eps and e^-eps stay finite normal floats (e^709.8 is the largest)."""
OLH_EPS_MAX = math.log(2**32 - 1)
"""The largest eps of OLH, about 22.18: g = round(e^eps) + 1 <= 2^32, the range of the 32-bit hash."""

# Rows of the membership matrix built at once: at k = 1024, 4096 rows hold 4 M entries (16 MB of 32-bit hashes).
_CHUNK_ENTRIES = 1 << 22


# --- xxh32 of the decimal string of a value, vectorised -------------------------------------------------------------

_P1, _P2, _P3, _P4, _P5 = (np.uint32(p) for p in (0x9E3779B1, 0x85EBCA77, 0xC2B2AE3D, 0x27D4EB2F, 0x165667B1))


def _rotl(h: np.ndarray, r: int) -> np.ndarray:
    return (h << np.uint32(r)) | (h >> np.uint32(32 - r))


def _xxh32_decimal_fixed(values: np.ndarray, seeds: np.ndarray, length: int) -> np.ndarray:
    """xxh32(str(v).encode(), seed) for values that all have ``length`` (< 16) decimal digits, broadcast with seeds.

    XXH32 on an input shorter than 16 bytes: h = seed + P5 + len; each 4-byte little-endian word w: h += w P3,
    h = rotl(h, 17) P4; each remaining byte b: h += b P5, h = rotl(h, 11) P1; then the avalanche. All mod 2^32.
    """
    digits = [((values // 10 ** (length - 1 - j)) % 10 + 48).astype(np.uint32) for j in range(length)]
    h = seeds.astype(np.uint32) + (_P5 + np.uint32(length))
    for start in range(0, length - length % 4, 4):
        word = digits[start] | digits[start + 1] << 8 | digits[start + 2] << 16 | digits[start + 3] << 24
        h = _rotl(h + word * _P3, 17) * _P4
    for byte in digits[length - length % 4:]:
        h = _rotl(h + byte * _P5, 11) * _P1
    h = (h ^ (h >> np.uint32(15))) * _P2
    h = (h ^ (h >> np.uint32(13))) * _P3
    return h ^ (h >> np.uint32(16))


def _decimal_length(values: np.ndarray) -> np.ndarray:
    length = np.ones(values.shape, dtype=np.int64)
    for power in range(1, 16):
        length += values >= 10**power
    return length


def xxh32_decimal(values: np.ndarray, seeds: np.ndarray) -> np.ndarray:
    """The 32-bit xxHash of each value's decimal string under each seed, vectorised.

    Equal to ``xxhash.xxh32(str(v).encode(), seed=s).intdigest()`` (the hash the peers multi-freq-ldpy and pure-LDP
    use for local hashing, after Wang et al.'s code), without a Python loop.

    Parameters
    ----------
    values : array_like of int
        Non-negative integers below 10^15.
    seeds : array_like of int
        Non-negative seeds, taken modulo 2^32 as xxhash does; broadcast against values.

    Returns
    -------
    numpy.ndarray of uint32
        The hashes, of the broadcast shape.
    """
    values = check_integers(values, "values", 0, 10**15)
    seeds = check_integers(seeds, "seeds", 0, None).astype(np.uint64).astype(np.uint32)
    values, seeds = np.broadcast_arrays(values, seeds)
    lengths = _decimal_length(values)
    hashes = np.empty(values.shape, dtype=np.uint32)
    for length in np.unique(lengths):
        where = lengths == length
        hashes[where] = _xxh32_decimal_fixed(values[where], seeds[where], int(length))
    return hashes


def _hash_table(seeds: np.ndarray, k: int) -> np.ndarray:
    """xxh32_decimal(v, seed) for every seed (rows) and v in 0..k-1 (columns), shape (len(seeds), k): the values of
    one decimal length are a contiguous block of columns, hashed by broadcasting without masks."""
    table = np.empty((seeds.size, k), dtype=np.uint32)
    seeds = seeds.astype(np.uint32)[:, None]
    for length in range(1, len(str(k - 1)) + 1):
        low, high = (0 if length == 1 else 10 ** (length - 1)), min(k, 10**length)
        table[:, low:high] = _xxh32_decimal_fixed(np.arange(low, high)[None, :], seeds, length)
    return table


# --- reports ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HashReports:
    """Reports of local hashing (BLH, OLH): user i hashed their secret with the function of ``seeds[i]`` and reported
    ``values[i]`` in [0, g) through GRR over the g hashed values.

    Attributes
    ----------
    seeds : numpy.ndarray of uint32, shape (n,)
        Each user's hash seed: h_seed(v) = xxh32(str(v), seed) mod g.
    values : numpy.ndarray of int64, shape (n,)
        Each user's reported hashed value.
    """

    seeds: np.ndarray
    values: np.ndarray

    def __post_init__(self) -> None:
        check_integers(self.seeds, "seeds", 0, 2**32, ndim=1)
        check_integers(self.values, "values", 0, None, ndim=1)
        if self.seeds.shape != self.values.shape or self.seeds.ndim != 1:
            raise ValueError(f"seeds and values must be 1-D of one length, got {self.seeds.shape}, "
                             f"{self.values.shape}")

    def __len__(self) -> int:
        return int(self.values.size)

    def __getitem__(self, index: Any) -> "HashReports":
        return HashReports(self.seeds[index], self.values[index])


def _grr(secrets: np.ndarray, size: int, keep: float, rng: np.random.Generator) -> np.ndarray:
    """Generalised randomised response over ``size`` values: keep the value with probability ``keep``, else report
    one of the other size - 1 values uniformly."""
    kept = rng.random(secrets.size) < keep
    other = (secrets + 1 + rng.integers(0, size - 1, secrets.size)) % size
    return np.where(kept, secrets, other)


def _bits_by_chunks(secrets: np.ndarray, k: int, draw: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """A (n, k) bool report matrix built ``_CHUNK_ENTRIES`` entries at a time by ``draw(secrets_of_chunk)``."""
    bits = np.empty((secrets.size, k), dtype=bool)
    rows = max(1, _CHUNK_ENTRIES // k)
    for start in range(0, secrets.size, rows):
        bits[start:start + rows] = draw(secrets[start:start + rows])
    return bits


# --- the protocols ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Protocol:
    """A set-valued LDP frequency oracle on k secrets at privacy level eps (see the module docstring).

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

    def sample(self, secrets: np.ndarray, rng: np.random.Generator) -> Any:
        """One report per user, vectorised over users.

        Parameters
        ----------
        secrets : array_like of int, shape (n,)
            Each user's secret, in 0..k-1.
        rng : numpy.random.Generator
            The source of randomness.

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

    def group(self, reports: Any) -> SetGroup:
        """The reports as ``privest.gibu`` takes them: the distinct reports' sets (CSR, built a block of rows at a
        time, never a dense (n, k) matrix), how many users sent each, and the likelihood's two values.

        Parameters
        ----------
        reports
            The reports of this protocol's users.

        Returns
        -------
        SetGroup
            P(report_i | x) = exp(log_scale_i) (high if x in S_i else low) for the distinct reports i.
        """
        if self.count(reports) == 0:
            raise ValueError(f"{self.name}: reports must not be empty")
        unique, counts = self.distinct(reports)
        sizes, indices = [], []
        for member in self._membership_blocks(unique, len(counts)):
            sizes.append(member.sum(axis=1))
            indices.append((np.flatnonzero(member) % self.k).astype(np.int32))
        indptr = np.concatenate([[0], np.cumsum(np.concatenate(sizes))]).astype(np.int64)
        return SetGroup(self.k, indptr, np.concatenate(indices), counts.astype(np.float64), float(self.high),
                        float(self.low), self.log_scale(unique).astype(np.float64))

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

    def estimate(self, reports: Any, post: Post = None) -> np.ndarray:
        """The unbiased frequency estimate of Wang et al. (2017, eq. 1): (C(v)/n - q*) / (p* - q*), post-processed.

        Parameters
        ----------
        reports
            The reports of this protocol's users.
        post : {None, "projection", "normalization"}
            None for the raw estimate (it may be negative; its sum is 1 only in expectation), "projection" for
            INV-P, "normalization" for INV-N (as ``privest.inv``).

        Returns
        -------
        numpy.ndarray, shape (k,)
            The estimate of theta.
        """
        check_choice(post, "post", POSTS)
        n = self.count(reports)
        if n == 0:
            raise ValueError(f"{self.name}: reports must not be empty")
        return post_process((self.support(reports) / n - self.q_star) / self._gap, post)

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
    """A protocol whose report is a bool vector of k bits (SUE, OUE, SS): S is the bits set."""

    def _reports(self, reports: np.ndarray) -> np.ndarray:
        return check_bits(reports, f"{self.name}: reports", self.k, convert=False)

    def membership(self, reports: np.ndarray) -> np.ndarray:
        return self._reports(reports).astype(bool)

    def distinct(self, reports: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return distinct_rows(self.membership(reports))

    def support(self, reports: np.ndarray) -> np.ndarray:
        return self.membership(reports).sum(axis=0, dtype=np.int64)

    def to_arrays(self, reports: np.ndarray, prefix: str) -> dict[str, np.ndarray]:
        check_text(prefix, "prefix")
        return {f"{prefix}bits": np.packbits(self.membership(reports), axis=1)}

    def from_arrays(self, arrays: Any, prefix: str) -> np.ndarray:
        check_text(prefix, "prefix")
        bits = check_mapping(arrays, "arrays", [f"{prefix}bits"])[f"{prefix}bits"]
        return np.unpackbits(bits, axis=1, count=self.k).astype(bool)


class _UnaryEncoding(_BitReports):
    """Unary encoding: bit x of the one-hot vector is reported 1 with probability ``one``, every other bit 1 with
    probability ``flip``, independently. P(b | x) = prod_v flip^b_v (1 - flip)^(1 - b_v) times one/flip if b_x = 1,
    (1 - one)/(1 - flip) if b_x = 0."""

    one: ClassVar[float]
    flip: ClassVar[float]

    def sample(self, secrets: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        secrets = check_secrets(secrets, self.k)
        rng = check_rng(rng)

        def draw(chunk: np.ndarray) -> np.ndarray:
            bits = rng.random((chunk.size, self.k)) < self.flip
            bits[np.arange(chunk.size), chunk] = rng.random(chunk.size) < self.one
            return bits

        return _bits_by_chunks(secrets, self.k, draw)

    def log_scale(self, reports: np.ndarray) -> np.ndarray:
        ones = self.membership(reports).sum(axis=1)
        return ones * math.log(self.flip) + (self.k - ones) * math.log1p(-self.flip)

    @property
    def high(self) -> float:  # type: ignore[override]
        return self.one / self.flip

    @property
    def low(self) -> float:  # type: ignore[override]
        return (1 - self.one) / (1 - self.flip)

    @property
    def p_star(self) -> float:  # type: ignore[override]
        return self.one

    @property
    def q_star(self) -> float:  # type: ignore[override]
        return self.flip

    @property
    def _gap(self) -> float:
        return self.one - self.flip


@dataclass(frozen=True)
class GRR(_ValueReports):
    """Generalised randomised response (k-RR, free-will eq. 1): keep x with probability e^eps/(e^eps + k - 1), else
    report one of the other k - 1 values uniformly."""

    name: ClassVar[str] = "GRR"

    @property
    def high(self) -> float:  # type: ignore[override]
        return math.exp(self.eps) / (math.exp(self.eps) + self.k - 1)

    @property
    def low(self) -> float:  # type: ignore[override]
        return 1 / (math.exp(self.eps) + self.k - 1)

    p_star = high
    q_star = low

    @property
    def _gap(self) -> float:
        return math.expm1(self.eps) / (math.exp(self.eps) + self.k - 1)

    def sample(self, secrets: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return _grr(check_secrets(secrets, self.k), self.k, self.high, check_rng(rng))

    def _reports(self, reports: np.ndarray) -> np.ndarray:
        return check_integers(reports, "GRR: reports", 0, self.k, ndim=1)

    def membership(self, reports: np.ndarray) -> np.ndarray:
        reports = self._reports(reports)
        return reports[:, None] == np.arange(self.k)[None, :]

    def log_scale(self, reports: np.ndarray) -> np.ndarray:
        return np.zeros(self._reports(reports).size)

    def support(self, reports: np.ndarray) -> np.ndarray:
        return np.bincount(self._reports(reports), minlength=self.k).astype(np.int64)


@dataclass(frozen=True)
class SUE(_UnaryEncoding):
    """Symmetric unary encoding, basic one-time RAPPOR (free-will eq. 12): every bit of the one-hot vector kept with
    probability e^(eps/2)/(e^(eps/2) + 1)."""

    name: ClassVar[str] = "SUE"

    @property
    def flip(self) -> float:  # type: ignore[override]
        return 1 / (math.exp(self.eps / 2) + 1)

    @property
    def one(self) -> float:  # type: ignore[override]
        return 1 - self.flip

    # one/flip and (1 - one)/(1 - flip) in closed form: 1 - one rounds to 0 once flip < 1e-16 (eps > 74)
    @property
    def high(self) -> float:  # type: ignore[override]
        return math.exp(self.eps / 2)

    @property
    def low(self) -> float:  # type: ignore[override]
        return math.exp(-self.eps / 2)

    @property
    def _gap(self) -> float:
        return math.tanh(self.eps / 4)


@dataclass(frozen=True)
class OUE(_UnaryEncoding):
    """Optimised unary encoding (Wang et al. 2017): the true bit is 1 with probability 1/2, every other bit 1 with
    probability 1/(e^eps + 1)."""

    name: ClassVar[str] = "OUE"
    one: ClassVar[float] = 0.5

    @property
    def flip(self) -> float:  # type: ignore[override]
        return 1 / (math.exp(self.eps) + 1)

    @property
    def _gap(self) -> float:
        return math.tanh(self.eps / 2) / 2


@dataclass(frozen=True)
class _LocalHashing(Protocol):
    """Local hashing (Wang et al. 2017): user i draws a seed, hashes x into g values with h_seed(v) = xxh32(str(v),
    seed) mod g, and reports (seed, GRR over g of h_seed(x)). P(seed, y | x) = P(seed) (p if h_seed(x) = y else q),
    p = e^eps/(e^eps + g - 1), q = 1/(e^eps + g - 1).

    k: at most 10^15 (the hash reads a value's decimal string, at most 15 digits).
    hashes: None draws seeds uniformly from [0, 2^32) (as the peers do: every user has their own hash function);
    an integer H draws them from [0, H), a finite hash family, so identical reports group and GIBU costs
    O(H g * k / g) = O(H k) per iteration whatever the number of users. The unbiased estimator assumes an ideal
    random hash (q* = 1/g): exactly unbiased over the draw of the seeds from 2^32, up to the family's collision
    rates for a small H. GIBU uses the exact sets and needs no such assumption.
    """

    hashes: int | None = None
    k_max: ClassVar[int | None] = 10**15

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.hashes is not None:
            object.__setattr__(self, "hashes", check_int(self.hashes, "hashes", minimum=1, maximum=2**32))

    g: ClassVar[int]

    def _hashed(self, hashes: np.ndarray) -> np.ndarray:
        """32-bit hashes mod g (g = 2^32, OLH's largest, leaves them as they are: np.uint32(2^32) overflows)."""
        return hashes if self.g == 2**32 else hashes % np.uint32(self.g)

    @property
    def _gap(self) -> float:
        return (self.g - 1) * math.expm1(self.eps) / (self.g * (math.exp(self.eps) + self.g - 1))

    @property
    def high(self) -> float:  # type: ignore[override]
        return math.exp(self.eps) / (math.exp(self.eps) + self.g - 1)

    @property
    def low(self) -> float:  # type: ignore[override]
        return 1 / (math.exp(self.eps) + self.g - 1)

    p_star = high

    @property
    def q_star(self) -> float:  # type: ignore[override]
        return 1 / self.g

    def sample(self, secrets: np.ndarray, rng: np.random.Generator) -> HashReports:
        secrets = check_secrets(secrets, self.k)
        rng = check_rng(rng)
        seeds = rng.integers(0, self.hashes or 2**32, secrets.size, dtype=np.uint64).astype(np.uint32)
        hashed = self._hashed(xxh32_decimal(secrets, seeds)).astype(np.int64)
        return HashReports(seeds, _grr(hashed, self.g, self.high, rng))

    def _reports(self, reports: HashReports) -> HashReports:
        check_instance(reports, f"{self.name}: reports", HashReports, "HashReports (seeds, values)")
        check_integers(reports.seeds, f"{self.name}: reports.seeds", 0, 2**32, ndim=1)
        check_integers(reports.values, f"{self.name}: reports.values", 0, self.g, shape=reports.seeds.shape)
        return reports

    def membership(self, reports: HashReports) -> np.ndarray:
        reports = self._reports(reports)
        return self._hashed(_hash_table(reports.seeds, self.k)) == reports.values[:, None]

    def log_scale(self, reports: HashReports) -> np.ndarray:
        return np.full(len(self._reports(reports)), -math.log(self.hashes or 2**32))

    def distinct(self, reports: HashReports) -> tuple[HashReports, np.ndarray]:
        reports = self._reports(reports)
        keys = reports.seeds.astype(np.uint64) * np.uint64(self.g) + reports.values.astype(np.uint64)
        unique, counts = np.unique(keys, return_counts=True)
        seeds = (unique // np.uint64(self.g)).astype(np.uint32)
        return HashReports(seeds, (unique % np.uint64(self.g)).astype(np.int64)), counts

    def to_arrays(self, reports: HashReports, prefix: str) -> dict[str, np.ndarray]:
        check_text(prefix, "prefix")
        reports = self._reports(reports)
        return {f"{prefix}seeds": reports.seeds, f"{prefix}values": reports.values}

    def from_arrays(self, arrays: Any, prefix: str) -> HashReports:
        check_text(prefix, "prefix")
        check_mapping(arrays, "arrays", [f"{prefix}seeds", f"{prefix}values"])
        return HashReports(np.asarray(arrays[f"{prefix}seeds"], dtype=np.uint32),
                           np.asarray(arrays[f"{prefix}values"], dtype=np.int64))


@dataclass(frozen=True)
class BLH(_LocalHashing):
    """Binary local hashing (Wang et al. 2017): local hashing into g = 2 values."""

    name: ClassVar[str] = "BLH"
    g: ClassVar[int] = 2


@dataclass(frozen=True)
class OLH(_LocalHashing):
    """Optimised local hashing (Wang et al. 2017): local hashing into g = round(e^eps) + 1 values (``numpy.rint``,
    as the peers).

    eps is at most ``OLH_EPS_MAX`` = ln(2^32 - 1), about 22.18, where g reaches 2^32, the range of the 32-bit hash
    xxh32: a larger g would hold hashed values no user can reach (q* = 1/g would be wrong, and the values overflow
    the hash's uint32). A larger eps is refused rather than g capped, so that OLH's g stays the paper's.
    """

    name: ClassVar[str] = "OLH"
    eps_max: ClassVar[float] = OLH_EPS_MAX
    _eps_why: ClassVar[str] = (f"(below {EPS_MIN:g}, e^eps - 1 keeps fewer than 4 digits in float64; above "
                               f"ln(2^32 - 1) = {OLH_EPS_MAX:.4f}, OLH's g = round(e^eps) + 1 exceeds 2^32, the range"
                               " of its 32-bit hash xxh32)")

    @property
    def g(self) -> int:  # type: ignore[override]
        return int(np.rint(math.exp(self.eps))) + 1


@dataclass(frozen=True)
class SS(_BitReports):
    """Subset selection (Ye and Barg 2018; Wang et al. 2016): report a subset of omega = max(1, rint(k/(e^eps + 1)))
    values that holds x with probability omega e^eps/(omega e^eps + k - omega), the rest uniform among the others.

    P(S | x) = p_in / C(k-1, omega-1) if x in S, (1 - p_in) / C(k-1, omega) otherwise; stored as
    exp(-log C(k-1, omega)) times high = p_in (k - omega)/omega or low = 1 - p_in. The subset size omega lies in
    1..floor(k/2) (e^eps + 1 > 2), so every subset leaves a value out.
    """

    name: ClassVar[str] = "SS"

    @property
    def omega(self) -> int:
        return int(max(1, np.rint(self.k / (math.exp(self.eps) + 1))))

    @property
    def p_in(self) -> float:
        w = self.omega
        return w * math.exp(self.eps) / (w * math.exp(self.eps) + self.k - w)

    @property
    def high(self) -> float:  # type: ignore[override]
        return self.p_in * (self.k - self.omega) / self.omega

    @property
    def low(self) -> float:  # type: ignore[override]
        # 1 - p_in in closed form: the difference rounds to 0 once p_in > 1 - 1e-16 (eps > 37)
        w = self.omega
        return (self.k - w) / (w * math.exp(self.eps) + self.k - w)

    p_star = p_in

    @property
    def _gap(self) -> float:
        w, k = self.omega, self.k
        return w * (k - w) * math.expm1(self.eps) / ((k - 1) * (w * math.exp(self.eps) + k - w))

    @property
    def q_star(self) -> float:  # type: ignore[override]
        w, k = self.omega, self.k
        return (self.p_in * (w - 1) + self.low * w) / (k - 1)

    def sample(self, secrets: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """The omega smallest of k uniform keys, with x's key forced to -1 (x in S) or 2 (x not in S): the rest of S
        is a uniform subset of the other values."""
        secrets = check_secrets(secrets, self.k)
        rng = check_rng(rng)
        omega, p_in = self.omega, self.p_in

        def draw(chunk: np.ndarray) -> np.ndarray:
            keys = rng.random((chunk.size, self.k))
            keys[np.arange(chunk.size), chunk] = np.where(rng.random(chunk.size) < p_in, -1.0, 2.0)
            bits = np.zeros((chunk.size, self.k), dtype=bool)
            np.put_along_axis(bits, np.argpartition(keys, omega - 1, axis=1)[:, :omega], True, axis=1)
            return bits

        return _bits_by_chunks(secrets, self.k, draw)

    def membership(self, reports: np.ndarray) -> np.ndarray:
        bits = super().membership(reports)
        if bits.size and np.any(bits.sum(axis=1) != self.omega):
            raise ValueError(f"SS: every report must hold exactly omega = {self.omega} values")
        return bits

    def log_scale(self, reports: np.ndarray) -> np.ndarray:
        k, w = self.k, self.omega
        log_choose = math.lgamma(k) - math.lgamma(w + 1) - math.lgamma(k - w)
        return np.full(len(self.membership(reports)), -log_choose)


@dataclass(frozen=True)
class HR(_ValueReports):
    """Hadamard response (Acharya, Sun and Zhang 2019): K the smallest power of 2 above k, H the Sylvester Hadamard
    matrix of order K, H[i, j] = (-1)^popcount(i & j); secret x uses row x + 1. The report y is uniform on
    C_x = {y : H[x + 1, y] = +1} with probability e^eps/(e^eps + 1), else uniform on the other half.
    P(y | x) = (2/K) (high if x in S(y) else low), S(y) = {x : H[x + 1, y] = +1}.

    k is at most 2^62 - 1, so that K <= 2^62 and every report is an int64.
    """

    name: ClassVar[str] = "HR"
    k_max: ClassVar[int | None] = 2**62 - 1

    @property
    def K(self) -> int:  # noqa: N802 (the paper's name)
        return 1 << self.k.bit_length()

    @property
    def high(self) -> float:  # type: ignore[override]
        return math.exp(self.eps) / (math.exp(self.eps) + 1)

    @property
    def low(self) -> float:  # type: ignore[override]
        return 1 / (math.exp(self.eps) + 1)

    p_star = high
    q_star: ClassVar[float] = 0.5

    @property
    def _gap(self) -> float:
        return math.tanh(self.eps / 2) / 2

    def sample(self, secrets: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """A uniform y, moved to the wanted half by flipping the lowest bit of the row index x + 1 (a bijection
        between the halves) when it lies in the other one."""
        rows = check_secrets(secrets, self.k) + 1
        rng = check_rng(rng)
        inside = rng.random(rows.size) < self.high
        y = rng.integers(0, self.K, rows.size)
        wrong = (np.bitwise_count(rows & y) % 2 == 0) != inside
        return np.where(wrong, y ^ (rows & -rows), y)

    def _reports(self, reports: np.ndarray) -> np.ndarray:
        return check_integers(reports, "HR: reports", 0, self.K, ndim=1)

    def membership(self, reports: np.ndarray) -> np.ndarray:
        rows = np.arange(1, self.k + 1)
        return np.bitwise_count(self._reports(reports)[:, None] & rows[None, :]) % 2 == 0

    def log_scale(self, reports: np.ndarray) -> np.ndarray:
        return np.full(self._reports(reports).size, math.log(2 / self.K))


def grr(k: int, eps: float) -> GRR:
    """Generalised randomised response (k-RR) on k values at eps (k >= 2, eps in [1e-12, 700]: module docstring)."""
    return GRR(k, eps)


def sue(k: int, eps: float) -> SUE:
    """Symmetric unary encoding (basic one-time RAPPOR) on k values at eps (ranges as in ``grr``)."""
    return SUE(k, eps)


def oue(k: int, eps: float) -> OUE:
    """Optimised unary encoding on k values at eps (ranges as in ``grr``)."""
    return OUE(k, eps)


def blh(k: int, eps: float, hashes: int | None = None) -> BLH:
    """Binary local hashing on k values at eps; ``hashes`` the size of the hash family (None: 2^32 seeds).

    k in 2..10^15, eps in [1e-12, 700], hashes None or in 1..2^32 (module docstring)."""
    return BLH(k, eps, hashes)


def olh(k: int, eps: float, hashes: int | None = None) -> OLH:
    """Optimised local hashing on k values at eps; ``hashes`` the size of the hash family (None: 2^32 seeds).

    k in 2..10^15, eps in [1e-12, ln(2^32 - 1) = 22.18] (g = round(e^eps) + 1 must fit the 32-bit hash: a larger
    eps is refused, see ``OLH``), hashes None or in 1..2^32."""
    return OLH(k, eps, hashes)


def ss(k: int, eps: float) -> SS:
    """Subset selection on k values at eps (ranges as in ``grr``; the subset size omega follows from k and eps)."""
    return SS(k, eps)


def hr(k: int, eps: float) -> HR:
    """Hadamard response on k values at eps (k in 2..2^62 - 1, eps in [1e-12, 700])."""
    return HR(k, eps)


_FACTORIES: dict[str, Callable[..., Protocol]] = {"grr": grr, "sue": sue, "oue": oue, "blh": blh, "olh": olh,
                                                  "ss": ss, "hr": hr}


def by_name(name: str, k: int, eps: float, **options: Any) -> Protocol:
    """The protocol called ``name`` (one of ``NAMES``, any case) on k values at eps; options such as ``hashes`` go to
    BLH and OLH.

    Raises
    ------
    ValueError
        If the name is unknown, an option is given to a protocol that has none, or k, eps or hashes lies outside
        the protocol's range (module docstring).
    """
    key = check_text(name, "name").lower()
    if key not in _FACTORIES:
        raise ValueError(f"name: unknown protocol {name!r}; known: {', '.join(NAMES)}")
    if options and key not in ("blh", "olh"):
        raise ValueError(f"protocol {name!r} takes no options, got {sorted(options)}")
    return _FACTORIES[key](k, eps, **options)
