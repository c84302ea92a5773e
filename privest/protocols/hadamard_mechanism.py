"""The Hadamard mechanism (pure-LDP's HadamardMechClient/Server; Cormode, Maddock and Maple, PVLDB 2021): a sketch
oracle (``privest.protocols.sketches.Sketch``) on items 0..k-1, k up to 2^64, that hashes nothing: each user reports t
random coefficients of its item's column of the Hadamard matrix of order K (the smallest power of 2 at or above k),
under GRR over the 2^t sign vectors; the estimate of theta_d is the mean of sum_s s_s H[r_s, d] / (t (2p' - 1)),
p' = (e^eps + 2^(t-1) - 1)/(e^eps + 2^t - 1), unbiased for every k since the rows are uniform on 0..K-1 and
sum_r H[r, x] H[r, d] = K 1[x = d]. Its candidate-list likelihood (``Sketch.candidate_group``) takes as "other" an
item uniform over the K columns (``_match_other``: the GF(2) rank of a report's rows).
"""

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from privest._checks import check_instance, check_int, check_items, check_signs
from privest.protocols.base import _grr
from privest.protocols.sketches import _BLOCK, Sketch, _fwht, _hadamard_sign

__all__ = [
    "FWHT_ORDER_MAX",
    "HM",
    "HmReports",
]

FWHT_ORDER_MAX = 1 << 22
"""The largest Hadamard order K at which ``HM.estimate`` transforms the whole domain (two K-vectors of float64, 64 MB
at 2^22; O(n t^2 + K log K), whatever the number of items asked); above it, O(n t) a queried item."""


@dataclass(frozen=True)
class HmReports:
    """Reports of HM: user i's t Hadamard rows ``rows[i]`` (uint64, in 0..K-1) and signs ``signs[i]`` in {-1, 1}
    (pure-LDP's list of t (j, coefficient) pairs)."""

    rows: np.ndarray
    signs: np.ndarray

    def __post_init__(self) -> None:
        rows = check_items(self.rows, "rows", ndim=2)
        object.__setattr__(self, "rows", rows)  # uint64, as HM takes them
        check_signs(self.signs, "signs", rows.shape)

    def __len__(self) -> int:
        return int(self.rows.shape[0])


@dataclass(frozen=True)
class HM(Sketch):
    """The Hadamard mechanism (pure-LDP's HadamardMechClient/Server; Cormode et al. 2021): each user draws t rows r_s
    of the Hadamard matrix of order K (the smallest power of 2 at or above k, up to 2^64) and reports the t signs
    H[r_s, x], the t-sign vector kept with probability e^eps/(e^eps + 2^t - 1), else replaced by one of the
    2^t - 1 others uniformly (GRR over 2^t). t defaults to ceil(log2(e^eps + 1)) (pure-LDP's use_optimal_t), at most
    16."""

    t: int | None = None
    name: ClassVar[str] = "HM"

    def __post_init__(self) -> None:
        super().__post_init__()
        t = max(1, math.ceil(math.log2(math.exp(min(self.eps, 40.0)) + 1))) if self.t is None else self.t
        object.__setattr__(self, "t", check_int(t, "t", minimum=1, maximum=16))

    @property
    def order(self) -> int:
        """K, the order of the Hadamard matrix: the smallest power of 2 at or above k."""
        return 1 << (self.k - 1).bit_length()

    @property
    def gap(self) -> float:
        """2 p' - 1 = (e^eps - 1)/(e^eps + 2^t - 1): E[sign] = (2 p' - 1) H[r, x]."""
        return math.expm1(self.eps) / (math.exp(self.eps) + 2**self.t - 1)

    def _sample(self, items: np.ndarray, rng: np.random.Generator) -> HmReports:
        n, t = items.size, self.t
        rows = rng.integers(0, self.order, (n, t), dtype=np.uint64) if self.order < 2**64 else \
            rng.integers(0, 2**64, (n, t), dtype=np.uint64)
        negative = (_hadamard_sign(rows, items[:, None]) < 0).astype(np.int64)
        code = negative @ (1 << np.arange(t, dtype=np.int64))
        keep = 1 / (1 + (2**t - 1) * math.exp(-self.eps))
        code = _grr(code, 2**t, keep, rng)
        signs = (1 - 2 * ((code[:, None] >> np.arange(t)) & 1)).astype(np.int8)
        return HmReports(rows, signs)

    def _reports(self, reports: HmReports) -> HmReports:
        check_instance(reports, f"{self.name}: reports", HmReports, "HmReports (rows, signs)")
        rows = np.asarray(reports.rows)
        if rows.dtype != np.uint64 or rows.ndim != 2 or rows.shape[1] != self.t:
            raise ValueError(f"{self.name}: reports.rows must be a uint64 array of shape (n, t = {self.t}), got "
                             f"{rows.dtype} {rows.shape}")
        if self.order < 2**64 and rows.size and int(rows.max()) >= self.order:
            raise ValueError(f"{self.name}: reports.rows must lie in 0..{self.order - 1}, found {int(rows.max())}")
        check_signs(reports.signs, f"{self.name}: reports.signs", rows.shape)
        return reports

    def _moments(self, reports: HmReports, items: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Y_i(d) = sum_s s_is H[r_is, d] / (t (2p' - 1)); sum_i Y_i(d)^2 = (n t + 2 sum_i sum_(s<s') s_is s_is'
        H[r_is xor r_is', d]) / (t (2p' - 1))^2, as H[r, d] H[r', d] = H[r xor r', d]. Up to ``FWHT_ORDER_MAX``,
        both sums for every d by one Walsh-Hadamard transform each of the signs summed by row (pure-LDP's server);
        above it, item by item over the users."""
        n, t = reports.rows.shape
        scale = t * self.gap
        if self.order <= FWHT_ORDER_MAX:
            signs = reports.signs.astype(np.float64)
            linear = np.bincount(reports.rows.ravel().astype(np.int64), weights=signs.ravel(), minlength=self.order)
            pairs = [(a, b) for a in range(t) for b in range(a + 1, t)]
            cross = np.zeros(self.order)
            for a, b in pairs:
                cross += np.bincount((reports.rows[:, a] ^ reports.rows[:, b]).astype(np.int64),
                                     weights=signs[:, a] * signs[:, b], minlength=self.order)
            transformed = _fwht(np.stack([linear, cross]) if pairs else linear[None, :])
            index = items.astype(np.int64)
            squares = n * t + (2 * transformed[1, index] if pairs else 0.0)
            return transformed[0, index] / scale, squares / scale**2
        total, squares = np.zeros(items.size), np.zeros(items.size)
        per = max(1, _BLOCK // max(1, n * t))
        signs = reports.signs.astype(np.int64)
        for start in range(0, items.size, per):
            block = items[start:start + per]
            agree = (_hadamard_sign(reports.rows[:, :, None], block[None, None, :]) * signs[:, :, None]).sum(axis=1)
            counts = np.stack([(agree == v).sum(axis=0) for v in range(-t, t + 1, 2)])  # (t + 1, q)
            values = np.arange(-t, t + 1, 2) / scale
            total[start:start + per] = values @ counts
            squares[start:start + per] = values**2 @ counts
        return total, squares

    def _candidate_likelihood(self, reports: HmReports, candidates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """P(report | d) = K^-t (keep if the signs are H[r_s, d] else (1 - keep)/(2^t - 1)); "other", an item uniform
        over the K columns: its t signs are uniform on a coset of dimension rank(rows) over GF(2) when the reported
        signs satisfy every linear dependency among the rows, so P(signs are its) = 2^-rank there, else 0
        (``_match_other``)."""
        keep = 1 / (1 + (2**self.t - 1) * math.exp(-self.eps))
        low = (1 - keep) / (2**self.t - 1)
        own = np.stack([np.all(_hadamard_sign(reports.rows, np.uint64(d)) == reports.signs, axis=1)
                        for d in candidates], axis=1)
        match = _match_other(reports.rows, reports.signs)
        other = keep * match + low * (1 - match)
        log_scale = np.full(len(reports), -self.t * (self.order.bit_length() - 1) * math.log(2))
        return np.column_stack([np.where(own, keep, low), other]), log_scale

    def _audit_event(self, reports: HmReports, x1: int, x2: int) -> np.ndarray:
        """The signs are x1's true ones, which differ from x2's: ratio e^eps (GRR over 2^t)."""
        reports = self._reports(reports)
        first, second = (_hadamard_sign(reports.rows, np.uint64(x)) for x in (x1, x2))
        return np.all(reports.signs == first, axis=1) & np.any(first != second, axis=1)

    def _audit_description(self, x1: int, x2: int) -> str:
        return f"the t signs are {x1}'s, which differ from {x2}'s"


def _match_other(rows: np.ndarray, signs: np.ndarray) -> np.ndarray:
    """P over an item x uniform on the columns that H[rows_s, x] = signs_s for every s, per report: 2^-rank of the
    rows over GF(2) if the sign bits agree with every XOR dependency among the rows, else 0. An XOR basis a report,
    built row by row (each row reduced by the basis from the highest pivot down), vectorised over reports."""
    n, t = rows.shape
    basis = np.zeros((n, 64), dtype=np.uint64)
    labels = np.zeros((n, 64), dtype=np.uint8)
    rank = np.zeros(n, dtype=np.int64)
    consistent = np.ones(n, dtype=bool)
    users = np.arange(n)
    for s in range(t):
        vector, label = rows[:, s].copy(), (signs[:, s] < 0).astype(np.uint8)
        for pivot in range(63, -1, -1):
            hit = ((vector >> np.uint64(pivot)) & np.uint64(1)).astype(bool) & (basis[:, pivot] != 0)
            vector = np.where(hit, vector ^ basis[:, pivot], vector)
            label = np.where(hit, label ^ labels[:, pivot], label)
        fresh = vector != 0
        consistent &= fresh | (label == 0)
        top = np.zeros(n, dtype=np.int64)  # the highest set bit of each fresh vector
        for bit in range(64):
            top = np.where(((vector >> np.uint64(bit)) & np.uint64(1)).astype(bool), bit, top)
        basis[users[fresh], top[fresh]] = vector[fresh]
        labels[users[fresh], top[fresh]] = label[fresh]
        rank += fresh
    return np.where(consistent, np.exp2(-rank.astype(np.float64)), 0.0)
