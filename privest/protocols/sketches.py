"""Sketch oracles for domains too large to enumerate (pure-LDP's, Cormode, Maddock and Maple, PVLDB 2021): Apple's
Count Mean Sketch (CMS) and Hadamard CMS (HCMS), and the base ``Sketch`` of these, of fast local hashing (FLH,
``privest.protocols.fast_hashing``), of the Hadamard mechanism (HM, ``privest.protocols.hadamard_mechanism``), of
Private Count Sketch (PCS, ``privest.protocols.count_sketch``) and of RAPPOR with Bloom filters
(``privest.protocols.rappor_bloom``).

The items are the integers 0..k-1, k up to 2^64 (URLs, words or app names become items by
``privest.protocols.item_ids``, a seeded xxh64 of their UTF-8 bytes). Nothing here is ever of size k: a sketch answers
for the items it is asked about. Each oracle is a ``Sketch``:

- ``sample(items, rng)``: one report a user, vectorised over users;
- ``estimate(reports, items)``: the unbiased frequency of each queried item (a share of the n users);
- ``estimate_variance(reports, items)`` and ``interval(reports, items, level)``: its variance and normal intervals;
- ``privest.audit`` takes a sketch as it takes a protocol (inputs 0 and 1 by default, an event of likelihood ratio
  e^eps, ``_audit_event``).

Every estimate is a mean over users of a per-user contribution Y_i(d) whose expectation is the indicator that user
i holds d (under the sketch's random hash model, below), so the estimate of theta_d is unbiased and, for users whose
items are drawn i.i.d., its variance is Var[Y(d)] / n, estimated without bias by the contributions' sample variance
over n (``estimate_variance``; Y takes two values for CMS, HCMS and FLH, t + 1 for HM, so it comes from counts).

The hash functions are pure-LDP's: hash j of CMS and HCMS is xxh64(str(x), seed=j) mod width (``generate_hash``),
hash j of FLH is xxh32(str(x), seed=j) mod g (``FastLHServer``), for j in 0..hashes-1. CMS, HCMS and FLH are unbiased
over the draw of the hash functions (an item's hashes independent and uniform, as their papers assume); with the
family fixed, the estimate of d is biased by the items that collide with d: E[theta-hat_d] = (m/(m-1)) (sum_x theta_x
P_j[h_j(x) = h_j(d)] - 1/m) for CMS and HCMS (width m), (g/(g-1))-scaled alike for FLH, which the tests compute
exactly. HM hashes nothing and is unbiased for every k.

==========  ===================================================  ===========================================
sketch      report                                               contribution Y_i(d)
==========  ===================================================  ===========================================
CMS         hash index j, width bits: one-hot h_j(x), SUE(eps)   a (c b[h_j(d)] - (c - 1)/2 - 1/m)
HCMS        hash index j, row l, sign s = b H[l, h_j(x)]         a (c s H[l, h_j(d)] - 1/m)
FLH         hash index j, GRR over g of h_j(x)                   (1[y = h_j(d)] - 1/g) / (p - 1/g)
HM          t rows r_s of H_K and t signs, GRR over 2^t          sum_s s_s H[r_s, d] / (t (2p' - 1))
==========  ===================================================  ===========================================

a = m/(m-1); c = (e^(eps/2) + 1)/(e^(eps/2) - 1) for CMS, (e^eps + 1)/(e^eps - 1) for HCMS; H the Sylvester
Hadamard matrix, H[l, h] = (-1)^popcount(l & h); b in CMS a bit kept with probability e^(eps/2)/(1 + e^(eps/2)),
in HCMS a sign -1 with probability 1/(1 + e^eps); p = e^eps/(e^eps + g - 1), g = round(e^eps) + 1 (OLH's);
p' = (e^eps + 2^(t-1) - 1)/(e^eps + 2^t - 1), K the smallest power of 2 at or above k.
"""

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from privest._checks import (
    check_between,
    check_indices,
    check_instance,
    check_int,
    check_items,
    check_packed_bits,
    check_rng,
    check_signs,
)
from privest.groups import Group
from privest.intervals import Interval, normal_interval
from privest.protocols.base import EPS_MAX, EPS_MIN
from privest.protocols.digests import xxh64_decimal
from privest.protocols.packed import PackedBits, unary_packed

__all__ = [
    "CMS",
    "HCMS",
    "CmsReports",
    "HcmsReports",
    "Sketch",
]

_BLOCK = 1 << 22  # entries of a (users x items) block in the estimators


@dataclass(frozen=True)
class CmsReports:
    """Reports of CMS: user i's hash index ``hashes[i]`` and ``bits[i]``, the width bits of the perturbed one-hot
    vector (pure-LDP's v in {-1, 1}^width is 2 bits - 1)."""

    hashes: np.ndarray
    bits: PackedBits

    def __post_init__(self) -> None:
        hashes = check_indices(self.hashes, "hashes", 2**16)
        check_instance(self.bits, "bits", PackedBits, "PackedBits")
        if len(self.bits) != hashes.size:
            raise ValueError(f"bits must hold one report a hash index ({hashes.size}), got {len(self.bits)}")

    def __len__(self) -> int:
        return int(self.hashes.size)


@dataclass(frozen=True)
class HcmsReports:
    """Reports of HCMS: user i's hash index ``hashes[i]``, Hadamard row ``rows[i]`` and sign ``signs[i]`` in {-1, 1}
    (pure-LDP's (b w_l, j, l))."""

    hashes: np.ndarray
    rows: np.ndarray
    signs: np.ndarray

    def __post_init__(self) -> None:
        hashes = check_indices(self.hashes, "hashes", 2**16)
        check_indices(self.rows, "rows", 2**20, shape=hashes.shape)
        check_signs(self.signs, "signs", hashes.shape)

    def __len__(self) -> int:
        return int(self.hashes.size)


@dataclass(frozen=True)
class Sketch:
    """A sketch oracle on the items 0..k-1 at privacy level eps (module docstring).

    Attributes
    ----------
    k : int
        The number of items, 2..2^64.
    eps : float
        The privacy level, in [1e-12, 700] (as ``privest.protocols``; FLH at most ln(2^32 - 1)).
    """

    k: int
    eps: float
    name: ClassVar[str] = ""
    eps_max: ClassVar[float] = EPS_MAX


    def _indexed_bits(self, indices: Any, index_key: str, count: int, bits: Any, width_key: str,
                      width: int) -> np.ndarray:
        """Reports whose users each send an index (a hash's, a cohort's) and a packed bit vector: ``indices`` in
        0..count-1 and ``bits`` a PackedBits of one row of ``width`` bits a user; the indices checked, or ValueError
        naming ``reports.<index_key>`` or ``reports.bits`` (``width_key`` the option the width is)."""
        indices = check_indices(indices, f"{self.name}: reports.{index_key}", count)
        check_instance(bits, f"{self.name}: reports.bits", PackedBits, "PackedBits")
        check_packed_bits(bits.bits, f"{self.name}: reports.bits", width)
        if bits.k != width or len(bits) != indices.size:
            raise ValueError(f"{self.name}: reports.bits must be {indices.size} reports of {width_key} = {width} "
                             f"bits, got {bits.shape}")
        return indices

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", check_int(self.k, "k", minimum=2, maximum=2**64))
        object.__setattr__(self, "eps", check_between(self.eps, "eps", EPS_MIN, self.eps_max))

    def sample(self, items: Any, rng: np.random.Generator) -> Any:
        """One report per user, vectorised over users.

        Parameters
        ----------
        items : array_like of int, shape (n,)
            Each user's item, in 0..k-1 (uint64 for items at or above 2^63).
        rng : numpy.random.Generator
            The source of randomness.

        Returns
        -------
        reports
            The sketch's reports (``CmsReports``, ``HcmsReports``, ``HashReports`` for FLH, ``HmReports``,
            ``PcsReports``, ``BloomReports``).
        """
        return self._sample(check_items(items, "items", self.k, ndim=1), check_rng(rng))

    def count(self, reports: Any) -> int:
        """The number of reports."""
        return len(self._reports(reports))

    def estimate(self, reports: Any, items: Any) -> np.ndarray:
        """The unbiased estimate of each queried item's frequency (its share of the users), mean of the users'
        contributions Y_i(d) (module docstring's table).

        Parameters
        ----------
        reports
            The reports of this sketch's users (not empty).
        items : array_like of int, shape (q,)
            The items asked about, in 0..k-1.

        Returns
        -------
        numpy.ndarray, shape (q,)
            theta-hat_d for each queried item d (it may be negative or above 1).
        """
        n, total, _ = self._sums(reports, items)
        return total / n

    def estimate_variance(self, reports: Any, items: Any) -> np.ndarray:
        """The variance of ``estimate``, estimated from the reports: the sample variance of the contributions Y_i(d)
        over n (unbiased for users whose items are drawn i.i.d.; needs n >= 2).

        Parameters
        ----------
        reports, items
            As in ``estimate``.

        Returns
        -------
        numpy.ndarray, shape (q,)
        """
        n, total, squares = self._sums(reports, items)
        if n < 2:
            raise ValueError(f"{self.name}: reports must hold at least 2 reports for a variance, got {n}")
        return np.maximum(squares - total**2 / n, 0.0) / (n - 1) / n

    def interval(self, reports: Any, items: Any, level: float = 0.95) -> Interval:
        """Normal-approximation intervals for the queried items' frequencies: ``estimate`` +- z sqrt(
        ``estimate_variance``), clipped to [0, 1] (``privest.intervals.normal_interval``).

        Parameters
        ----------
        reports, items
            As in ``estimate``.
        level : float
            The confidence level, in (0, 1).

        Returns
        -------
        Interval
            One entry per queried item.
        """
        n, total, squares = self._sums(reports, items)
        if n < 2:
            raise ValueError(f"{self.name}: reports must hold at least 2 reports for an interval, got {n}")
        variance = np.maximum(squares - total**2 / n, 0.0) / (n - 1) / n
        return normal_interval(total / n, variance, level, method=f"{self.name} unbiased", reports=n)

    def candidate_group(self, reports: Any, candidates: Any) -> Group:
        """The reports as ``privest.gibu`` takes them on a candidate list: the exact channel restricted to the c
        candidates plus an "other" cell (every item not listed), so that ``privest.gibu([group]).theta`` is the MLE
        of (theta_candidates, theta_other), c + 1 shares summing to 1 (issue 51, item 2).

        P(report | candidate d) is the sketch's own likelihood (module docstring); P(report | other) is that of an
        item whose hashes are uniform and independent (the sketches' random-hash model): CMS, the average over the
        width cells; HCMS, 1/2 but for row 0 (all +1), where the sign keeps its law; FLH, 1/g; PCS, 1/2 for the
        item's entry; RAPPOR-Bloom, the mean over h uniform bits; HM (which hashes nothing), an item uniform over the
        K columns, from the GF(2) rank of each report's rows. Distinct likelihood columns are grouped; memory
        O(n (c + 1)).

        Parameters
        ----------
        reports
            The reports of this sketch's users (not empty).
        candidates : array_like of int, shape (c,)
            Distinct items in 0..k-1.

        Returns
        -------
        Group
            G of shape (c + 1, distinct reports), the last row the "other" cell; exact log-likelihood by log_scale.
        """
        reports = self._reports(reports)
        candidates = check_items(candidates, "candidates", self.k, ndim=1)
        if candidates.size == 0 or np.unique(candidates).size != candidates.size:
            raise ValueError(f"candidates must be distinct items, at least one, got {candidates.size} items with "
                             f"{candidates.size - np.unique(candidates).size} repeated")
        if len(reports) == 0:
            raise ValueError(f"{self.name}: reports must not be empty")
        likelihood, log_scale = self._candidate_likelihood(reports, candidates)
        columns, counts = np.unique(np.column_stack([likelihood, log_scale]), axis=0,
                                             return_counts=True)
        return Group(np.ascontiguousarray(columns[:, :-1].T), counts.astype(np.float64), columns[:, -1].copy())

    def _candidate_likelihood(self, reports: Any, candidates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(L, log_scale): P(report_i | cell) = exp(log_scale_i) L[i, cell], cells the candidates then "other"."""
        raise ValueError(f"{self.name} has no candidate-list likelihood (see Sketch.candidate_group)")

    def _sums(self, reports: Any, items: Any) -> tuple[int, np.ndarray, np.ndarray]:
        """(n, sum_i Y_i(d), sum_i Y_i(d)^2) for each queried item d."""
        reports = self._reports(reports)
        items = check_items(items, "items", self.k, ndim=1)
        if len(reports) == 0:
            raise ValueError(f"{self.name}: reports must not be empty")
        return (len(reports), *self._moments(reports, items))

    def _two_valued(self, n: int, hits: np.ndarray, y0: float, y1: float) -> tuple[np.ndarray, np.ndarray]:
        """The sums of Y and Y^2 when Y is y1 for ``hits`` users of n and y0 for the others."""
        return n * y0 + hits * (y1 - y0), (n - hits) * y0**2 + hits * y1**2

    # what each sketch defines
    def _sample(self, items: np.ndarray, rng: np.random.Generator) -> Any:
        raise NotImplementedError

    def _reports(self, reports: Any) -> Any:
        raise NotImplementedError

    def _moments(self, reports: Any, items: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    def _audit_event(self, reports: Any, x1: int, x2: int) -> np.ndarray:
        raise NotImplementedError

    def _audit_description(self, x1: int, x2: int) -> str:
        raise NotImplementedError


@dataclass(frozen=True)
class _HashedSketch(Sketch):
    """A sketch with ``hashes`` hash functions into ``width`` cells, pure-LDP's xxh64(str(x), seed=j) mod width."""

    hashes: int = 256
    width: int = 1024

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "hashes", check_int(self.hashes, "hashes", minimum=1, maximum=2**16))
        object.__setattr__(self, "width", check_int(self.width, "width", minimum=2, maximum=2**20))

    def cells(self, items: Any) -> np.ndarray:
        """h_j(x) for every hash j (rows) and queried item x (columns), shape (hashes, q) int64."""
        items = check_items(items, "items", self.k, ndim=1)
        seeds = np.arange(self.hashes, dtype=np.uint64)[:, None]
        return (xxh64_decimal(items[None, :], seeds) % np.uint64(self.width)).astype(np.int64)

    def _user_cells(self, items: np.ndarray, hashes: np.ndarray) -> np.ndarray:
        return (xxh64_decimal(items, hashes.astype(np.uint64)) % np.uint64(self.width)).astype(np.int64)


@dataclass(frozen=True)
class CMS(_HashedSketch):
    """Apple's Count Mean Sketch (Apple Differential Privacy Team 2017; pure-LDP's CMSClient/CMSServer): each user
    draws one of ``hashes`` hash functions and reports the width bits of the one-hot vector of h_j(x), each bit kept
    with probability e^(eps/2)/(1 + e^(eps/2)), else flipped (SUE on width cells). Defaults: 256 hashes, width 1024."""

    name: ClassVar[str] = "CMS"

    @property
    def keep(self) -> float:
        """The probability that a bit is reported as it is, e^(eps/2)/(1 + e^(eps/2))."""
        return 1 / (1 + math.exp(-self.eps / 2))

    def _sample(self, items: np.ndarray, rng: np.random.Generator) -> CmsReports:
        hashes = rng.integers(0, self.hashes, items.size)
        bits = unary_packed(self._user_cells(items, hashes), self.width, 1 - self.keep, self.keep, rng)
        return CmsReports(hashes, PackedBits(bits, self.width))

    def _reports(self, reports: CmsReports) -> CmsReports:
        check_instance(reports, f"{self.name}: reports", CmsReports, "CmsReports (hashes, bits)")
        self._indexed_bits(reports.hashes, "hashes", self.hashes, reports.bits, "width", self.width)
        return reports

    def sketch(self, reports: CmsReports) -> np.ndarray:
        """How many users of each hash index reported each cell's bit set, shape (hashes, width) int64, from
        per-byte histograms of the packed bits (never unpacked)."""
        reports = self._reports(reports)
        return _bit_counts(reports.hashes, reports.bits, self.hashes)

    def _moments(self, reports: CmsReports, items: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        sketch = self.sketch(reports)
        hits = sketch[np.arange(self.hashes)[:, None], self.cells(items)].sum(axis=0).astype(np.float64)
        c = 1 / math.tanh(self.eps / 4)  # (e^(eps/2) + 1)/(e^(eps/2) - 1)
        a, m = self.width / (self.width - 1), self.width
        y0 = a * (-(c - 1) / 2 - 1 / m)
        return self._two_valued(len(reports), hits, y0, y0 + a * c)

    def _candidate_likelihood(self, reports: CmsReports, candidates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        bits, n = reports.bits.bits, len(reports)
        cells = self.cells(candidates)[reports.hashes]  # (n, c)
        hit = (bits[np.arange(n)[:, None], cells // 8] >> (7 - cells % 8).astype(np.uint8)) & 1
        up, down = math.exp(self.eps / 2), math.exp(-self.eps / 2)
        ones = reports.bits.set_counts()
        other = (ones * up + (self.width - ones) * down) / self.width
        log_scale = ones * math.log1p(-self.keep) + (self.width - ones) * math.log(self.keep) - math.log(self.hashes)
        return np.column_stack([np.where(hit == 1, up, down), other]), log_scale

    def _audit_event(self, reports: CmsReports, x1: int, x2: int) -> np.ndarray:
        """Bit h_j(x1) set and bit h_j(x2) clear (j the report's hash): ratio keep^2/(1 - keep)^2 = e^eps."""
        reports = self._reports(reports)
        bits = reports.bits.bits
        rows = np.arange(len(reports))
        got = []
        for x in (x1, x2):
            cell = self._user_cells(np.full(len(reports), x, dtype=np.uint64), reports.hashes)
            got.append((bits[rows, cell // 8] >> (7 - cell % 8).astype(np.uint8)) & 1)
        return (got[0] == 1) & (got[1] == 0)

    def _audit_description(self, x1: int, x2: int) -> str:
        return f"bit h_j({x1}) set and bit h_j({x2}) clear"


def _bit_counts(hashes: np.ndarray, bits: PackedBits, count: int) -> np.ndarray:
    """How many users of each hash index (0..count-1) have each bit set, shape (count, bits.k) int64, from per-byte
    histograms of the packed bits (never unpacked): CMS's and PCS's sketch."""
    order = np.argsort(hashes, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(hashes, minlength=count))])
    packed = bits.bits[order]
    return np.stack([PackedBits(packed[bounds[j]:bounds[j + 1]], bits.k).column_counts() for j in range(count)])


def _hadamard_sign(rows: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """H[row, column] = (-1)^popcount(row & column) of the Sylvester Hadamard matrix, as int8."""
    parity = np.bitwise_count(rows.astype(np.uint64) & columns.astype(np.uint64)) & 1
    return (1 - 2 * parity.astype(np.int8)).astype(np.int8)


def _fwht(rows: np.ndarray) -> np.ndarray:
    """The Walsh-Hadamard transform of each row (length a power of 2): rows @ H, H Sylvester's."""
    out = rows.astype(np.float64)
    count, size = out.shape
    h = 1
    while h < size:
        blocks = out.reshape(count, size // (2 * h), 2, h)
        out = np.stack([blocks[:, :, 0] + blocks[:, :, 1], blocks[:, :, 0] - blocks[:, :, 1]], axis=2)
        out = out.reshape(count, size)
        h *= 2
    return out


@dataclass(frozen=True)
class HCMS(_HashedSketch):
    """Hadamard Count Mean Sketch (Apple 2017; pure-LDP's CMS with is_hadamard): each user draws a hash j and a
    Hadamard row l uniformly and reports one sign, H[l, h_j(x)] flipped with probability 1/(1 + e^eps). width must
    be a power of 2. Defaults: 256 hashes, width 1024."""

    name: ClassVar[str] = "HCMS"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.width & (self.width - 1):
            raise ValueError(f"width must be a power of 2 for HCMS (its Hadamard matrix), got {self.width}")

    def _sample(self, items: np.ndarray, rng: np.random.Generator) -> HcmsReports:
        hashes = rng.integers(0, self.hashes, items.size)
        rows = rng.integers(0, self.width, items.size)
        flip = rng.random(items.size) < 1 / (1 + math.exp(self.eps))
        signs = _hadamard_sign(rows, self._user_cells(items, hashes)) * np.where(flip, -1, 1).astype(np.int8)
        return HcmsReports(hashes, rows, signs)

    def _reports(self, reports: HcmsReports) -> HcmsReports:
        check_instance(reports, f"{self.name}: reports", HcmsReports, "HcmsReports (hashes, rows, signs)")
        hashes = check_indices(reports.hashes, f"{self.name}: reports.hashes", self.hashes)
        check_indices(reports.rows, f"{self.name}: reports.rows", self.width, shape=hashes.shape)
        check_signs(reports.signs, f"{self.name}: reports.signs", hashes.shape)
        return reports

    def sketch(self, reports: HcmsReports) -> np.ndarray:
        """The sum of the signs of each (hash, row), Hadamard-transformed: shape (hashes, width), entry (j, h) the
        sum over users of hash j of s_i H[l_i, h] (pure-LDP's transformed sketch matrix over k c)."""
        reports = self._reports(reports)
        sums = np.bincount(reports.hashes.astype(np.int64) * self.width + reports.rows,
                           weights=reports.signs.astype(np.float64), minlength=self.hashes * self.width)
        return _fwht(sums.reshape(self.hashes, self.width))

    def _moments(self, reports: HcmsReports, items: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        n = len(reports)
        agree = self.sketch(reports)[np.arange(self.hashes)[:, None], self.cells(items)].sum(axis=0)
        c = 1 / math.tanh(self.eps / 2)  # (e^eps + 1)/(e^eps - 1)
        a, m = self.width / (self.width - 1), self.width
        return self._two_valued(n, np.rint((agree + n) / 2), a * (-c - 1 / m), a * (c - 1 / m))

    def _candidate_likelihood(self, reports: HcmsReports, candidates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        keep = 1 / (1 + math.exp(-self.eps))
        cells = self.cells(candidates)[reports.hashes]  # (n, c)
        agree = reports.signs[:, None] * _hadamard_sign(reports.rows[:, None], cells) == 1
        other = np.where(reports.rows == 0, np.where(reports.signs == 1, keep, 1 - keep), 0.5)
        log_scale = np.full(len(reports), -math.log(self.hashes * self.width))
        return np.column_stack([np.where(agree, keep, 1 - keep), other]), log_scale

    def _audit_event(self, reports: HcmsReports, x1: int, x2: int) -> np.ndarray:
        """s H[l, h_j(x1)] = 1 and H[l, h_j(x1)] != H[l, h_j(x2)]: ratio e^eps (1/(1 + e^eps) against e^eps/...)."""
        reports = self._reports(reports)
        n = len(reports)
        first, second = (_hadamard_sign(reports.rows, self._user_cells(np.full(n, x, dtype=np.uint64),
                                                                        reports.hashes)) for x in (x1, x2))
        return (reports.signs * first == 1) & (first != second)

    def _audit_description(self, x1: int, x2: int) -> str:
        return f"the sign agrees with H[l, h_j({x1})], which differs from H[l, h_j({x2})]"
