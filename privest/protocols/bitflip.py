"""dBitFlipPM (Ding, Kulkarni and Yekhanin, NeurIPS 2017, as multi-freq-ldpy's long_freq_est/dBitFlipPM.py): the k
values in b buckets, each user reporting d of the b bucket bits, memoised once ("permanent memoisation").

A user with value x has bucket B(x) = int(x / (k / b)) (multi-freq-ldpy's float expression: for some (k, b) it
differs from floor(x b / k)), draws d of the b buckets uniformly without replacement, and reports for each drawn
bucket i one bit: 1 with probability p = e^(eps/2) / (e^(eps/2) + 1) if i = B(x), else with q = 1 - p. A report is
the b-vector of states, -1 for a bucket not drawn, else the bit (int8 (n, b), multi-freq-ldpy's layout). The estimate
is of the b buckets' distribution.

Its likelihood has three levels, so it is not a two-level ``Protocol``: P(report | B(x) = v) = C(b, d)^-1
prod_{i drawn} q^{bit_i} p^{1 - bit_i} times e^(eps/2) if v was drawn with bit 1, e^(-eps/2) if drawn with bit 0,
and 1 if not drawn. ``group`` gives GIBU a matrix group over the b buckets with one column per distinct report.
A report is eps-LDP for d >= 2 (two drawn buckets, one with bit 1, one with bit 0: (p/q)^2 = e^eps) and only
eps/2-LDP for d = 1 (no report sees two buckets).
"""

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from privest._checks import check_between, check_choice, check_int, check_integers, check_rng, check_secrets
from privest.consistency import NEEDS_VARIANCE, POSTS, AnyPost, apply
from privest.groups import Group
from privest.intervals import Interval, normal_interval
from privest.protocols.base import EPS_MAX, EPS_MIN
from privest.protocols.packed import unary_packed

__all__ = [
    "DBitFlipPM",
    "dbitflip",
]


@dataclass(frozen=True)
class DBitFlipPM:
    """dBitFlipPM on k values at eps (module docstring): ``buckets`` b (default k), ``bits`` d (default b), with
    1 <= d <= b <= k.

    Attributes
    ----------
    k : int
    eps : float
    buckets : int
    bits : int
    """

    k: int
    eps: float
    buckets: int | None = None
    bits: int | None = None
    name: ClassVar[str] = "dBitFlipPM"

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", check_int(self.k, "k", minimum=2))
        object.__setattr__(self, "eps", check_between(self.eps, "eps", EPS_MIN, EPS_MAX))
        b = self.k if self.buckets is None else check_int(self.buckets, "buckets", minimum=1, maximum=self.k)
        d = b if self.bits is None else check_int(self.bits, "bits", minimum=1, maximum=b)
        object.__setattr__(self, "buckets", b)
        object.__setattr__(self, "bits", d)

    @property
    def p(self) -> float:
        """The drawn user bucket's bit: 1 with this probability (any other drawn bucket's: 1 - p)."""
        return 1 / (1 + math.exp(-self.eps / 2))

    def bucket_of(self, secrets: np.ndarray) -> np.ndarray:
        """Each value's bucket, int(x / (k / b)) as multi-freq-ldpy computes it."""
        return (check_secrets(secrets, self.k) / (self.k / self.buckets)).astype(np.int64)

    def sample(self, secrets: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One report a user: int8 (n, b), -1 for a bucket not drawn, else its bit."""
        bucket, rng = self.bucket_of(secrets), check_rng(rng)
        n, b, d = bucket.size, self.buckets, self.bits
        if d == b:  # every bucket drawn: unary encoding of the bucket, its bit 1 with p, every other with 1 - p
            bits = unary_packed(bucket, b, 1 - self.p, self.p, rng)
            return np.unpackbits(bits, axis=1, count=b).view(np.int8)
        drawn = np.argsort(rng.random((n, b)), axis=1)[:, :d]
        ones = rng.random((n, d)) < np.where(drawn == bucket[:, None], self.p, 1 - self.p)
        reports = np.full((n, b), -1, dtype=np.int8)
        np.put_along_axis(reports, drawn, ones.astype(np.int8), axis=1)
        return reports

    def _reports(self, reports: Any) -> np.ndarray:
        reports = check_integers(reports, f"{self.name}: reports", -1, 2, ndim=2, keep_dtype=True)
        if reports.shape[1] != self.buckets or ((reports >= 0).sum(axis=1) != self.bits).any():
            raise ValueError(f"{self.name}: reports must be (n, {self.buckets}) with {self.bits} entries 0 or 1 a row "
                             f"and -1 elsewhere")
        return reports

    def count(self, reports: Any) -> int:
        return len(self._reports(reports))

    def estimate(self, reports: Any, post: AnyPost = None) -> np.ndarray:
        """The unbiased estimate of the b buckets' distribution (multi-freq-ldpy's MI before its clipping):
        theta_v = b / (n d) sum over the reports that drew v of (bit (e + 1) - 1) / (e - 1), e = e^(eps/2);
        ``post`` as ``Protocol.estimate`` (multi-freq-ldpy's MI is "normalization"), with Var* for those that need
        it."""
        check_choice(post, "post", POSTS)
        reports = self._reports(reports)
        n, e = reports.shape[0], math.exp(self.eps / 2)
        raw = self._raw(reports)
        variance = self.buckets * e / (self.bits * n * (e - 1) ** 2) if post in NEEDS_VARIANCE else None
        return apply(raw, post, variance=variance, n=n)

    def estimate_variance(self, reports: Any) -> np.ndarray:
        """The raw estimate's variance for users drawn i.i.d.: ((b/d) (e / (e - 1)^2 + f_v) - f_v^2) / n, with f_v
        the raw estimate clipped to [0, 1]."""
        return self._raw_variance(self._reports(reports))

    def interval(self, reports: Any, level: float = 0.95) -> Interval:
        """Normal-approximation intervals from ``estimate`` and ``estimate_variance`` (``Protocol.interval``)."""
        reports = self._reports(reports)  # checked once for the three
        return normal_interval(self._raw(reports), self._raw_variance(reports), level, reports=len(reports))

    def _raw(self, reports: np.ndarray) -> np.ndarray:
        """``estimate``'s raw estimate of checked reports."""
        n, b, d, e = reports.shape[0], self.buckets, self.bits, math.exp(self.eps / 2)
        if n == 0:
            raise ValueError(f"{self.name}: reports must not be empty")
        drawn, ones = (reports >= 0).sum(axis=0), (reports == 1).sum(axis=0)
        return b / (n * d) * (ones * (e + 1) - drawn) / (e - 1)

    def _raw_variance(self, reports: np.ndarray) -> np.ndarray:
        """``estimate_variance`` of checked reports."""
        e = math.exp(self.eps / 2)
        f = np.clip(self._raw(reports), 0.0, 1.0)
        return (self.buckets / self.bits * (e / (e - 1) ** 2 + f) - f**2) / len(reports)

    def _factors(self, reports: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(log of each report's prefactor, (n, b) each bucket's factor: e^(eps/2), e^(-eps/2) or 1)."""
        half = self.eps / 2
        ones, zeros = (reports == 1).sum(axis=1), (reports == 0).sum(axis=1)
        b, d = self.buckets, self.bits
        log_choose = math.lgamma(b + 1) - math.lgamma(d + 1) - math.lgamma(b - d + 1)
        log_scale = ones * math.log1p(-self.p) + zeros * math.log(self.p) - log_choose
        return log_scale, np.exp(np.where(reports == 1, half, np.where(reports == 0, -half, 0.0)))

    def likelihood(self, reports: Any) -> np.ndarray:
        """P(report_i | bucket v), (n, b); summed over every possible report each column gives 1."""
        log_scale, factors = self._factors(self._reports(reports))
        return np.exp(log_scale)[:, None] * factors

    def group(self, reports: Any) -> Group:
        """The reports as ``privest.gibu`` takes them: a matrix group over the b buckets, one column per distinct
        report (its factors), with the report's prefactor as log scale."""
        reports = self._reports(reports)
        if reports.shape[0] == 0:
            raise ValueError(f"{self.name}: reports must not be empty")
        unique, counts = np.unique(reports, axis=0, return_counts=True)
        log_scale, factors = self._factors(unique)
        return Group(np.ascontiguousarray(factors.T), counts.astype(np.float64), log_scale)


def dbitflip(k: int, eps: float, buckets: int | None = None, bits: int | None = None) -> DBitFlipPM:
    """dBitFlipPM on k values at eps: ``buckets`` b (default k) and ``bits`` d (default b), 1 <= d <= b <= k."""
    return DBitFlipPM(k, eps, buckets, bits)
