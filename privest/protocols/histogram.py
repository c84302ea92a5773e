"""Histogram encoding (Wang et al., USENIX Security 2017, section 4.2): SHE and THE, and the adaptive choice ADP.

Each user adds i.i.d. Laplace noise of scale 2/eps to every coordinate of the one-hot vector of its value (the
vector's L1 sensitivity is 2, so the noisy vector is eps-LDP).

- SHE (summation) reports the noisy vector itself, float (k,) a user. Its density given the secret x is

      f(y | x) = prod_v (eps/4) exp(-(eps/2) |y_v - [v = x]|)
               = exp(log_scale(y)) exp((eps/2) (|y_x| - |y_x - 1| - 1)),
      log_scale(y) = k log(eps/4) - (eps/2) sum_v |y_v| + eps/2,

  so the factor that depends on x lies in [e^-eps, 1]: GIBU takes the reports as a matrix ``Group`` with one column
  per user (k n floats, the size of the reports). The unbiased estimate is the column mean of the reports.
- THE (thresholding) reports the set of coordinates above a threshold t: unary encoding (``privest.protocols.unary``)
  with p = P(1 + Lap(2/eps) > t) = 1 - e^(eps (t - 1)/2) / 2 and q = P(Lap(2/eps) > t) = e^(-eps t/2) / 2, so its
  reports are bits (packed or not) and GIBU runs on a ``BitGroup``. t defaults to the one of multi-freq-ldpy (which
  minimises the estimator's variance q (1 - q) / (p - q)^2 over t in [1/2, 1]); here it is that minimum in closed
  form: with a = e^(eps t/2) and b = e^(eps/2) the derivative vanishes at 3 a^2 - 2 (b + 1) a + b = 0, whose larger
  root a = (b + 1 + sqrt(b^2 - b + 1)) / 3 gives t in [1/2, 1] (1/2 as eps -> 0, 1 as eps -> infinity).
- ADP is not a protocol of its own: ``adp(k, eps)`` returns GRR when GRR's variance q (1 - q) / (p - q)^2 is at most
  OUE's, else OUE, as multi-freq-ldpy's ADP decides: GRR iff k - 2 <= 3 e^eps (k <= 3 e^eps + 2).
"""

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from privest._checks import (
    as_array,
    check_between,
    check_choice,
    check_distribution,
    check_finite,
    check_int,
    check_rng,
    check_secrets,
)
from privest.consistency import NEEDS_VARIANCE, POSTS, AnyPost, apply
from privest.groups import Group
from privest.protocols import _laplace
from privest.protocols.base import EPS_MAX, EPS_MIN, Protocol
from privest.protocols.response import GRR
from privest.protocols.unary import OUE, _UnaryEncoding

__all__ = [
    "SHE",
    "THE",
    "adp",
    "the_threshold",
]

# users a block when SHE's reports are drawn or turned into a group: 2^20 floats (8 MB) of temporaries at a time
_CHUNK_ENTRIES = 1 << 20


@dataclass(frozen=True)
class SHE(Protocol):
    """Summation with histogram encoding: the one-hot vector of the secret plus Laplace(2/eps) noise on each of its
    k coordinates, reported as it is (float64 (n, k) reports; module docstring).

    Unlike the set-valued protocols its report is continuous: ``likelihood`` is a density, ``group`` a matrix
    ``Group`` with one column per user, and it has no sets (``membership``, ``support``, ``p_star`` and ``q_star``
    are not defined). ``privest.audit`` tests it on the event "y_x1 >= 1 and y_x2 <= 0", whose likelihood ratio is
    e^eps at every point.
    """

    name: ClassVar[str] = "SHE"

    @property
    def scale(self) -> float:
        """The Laplace noise's scale, 2/eps."""
        return 2 / self.eps

    def sample(self, secrets: np.ndarray, rng: np.random.Generator, packed: bool = False) -> np.ndarray:
        """One report per user (``Protocol.sample``): float64 (n, k), the one-hot vector plus Laplace(2/eps) noise.
        ``packed`` changes nothing (the reports are not bits), as for the other protocols that are not bit ones."""
        secrets = check_secrets(secrets, self.k)
        rng = check_rng(rng)
        # Laplace(2/eps) from one random word a draw (privest.protocols._laplace: a ziggurat whose spare bit is the
        # sign), against numpy's standard_exponential and a sign bit apart (21 ms at n k = 3.3 million, measured)
        reports = _laplace.laplace(rng, (secrets.size, self.k), self.scale)
        reports[np.arange(secrets.size), secrets] += 1.0
        return reports

    def _reports(self, reports: Any) -> np.ndarray:
        return check_finite(reports, f"{self.name}: reports", shape=(None, self.k))

    def _shifted(self, reports: np.ndarray) -> np.ndarray:
        """(eps/2) (|y| - |y - 1| - 1) entrywise, in [-eps, 0]: the log of the x-dependent factor (module docstring)."""
        return (self.eps / 2) * (np.abs(reports) - np.abs(reports - 1.0) - 1.0)

    def log_scale(self, reports: Any) -> np.ndarray:
        reports = self._reports(reports)
        return (self.k * math.log(self.eps / 4) - (self.eps / 2) * np.abs(reports).sum(axis=1) + self.eps / 2)

    def likelihood(self, reports: Any) -> np.ndarray:
        """The exact density of each report under each secret, shape (n, k): L[i, x] = f(y_i | x) (module
        docstring); integrated over R^k, each column gives 1."""
        reports = self._reports(reports)
        return np.exp(self.log_scale(reports)[:, None] + self._shifted(reports))

    def group(self, reports: Any) -> Group:
        """The reports as ``privest.gibu`` takes them: a matrix ``Group`` whose column i is user i's likelihood over
        the k secrets up to its factor, G[x, i] = exp((eps/2) (|y_ix| - |y_ix - 1| - 1)) in [e^-eps, 1], with weight
        1 and the factor in ``log_scale`` (so the log-likelihood is exact and the group mixes with others). Built a
        block of users at a time: k n floats, as many as the reports."""
        reports = self._reports(reports)
        n = reports.shape[0]
        if n == 0:
            raise ValueError(f"{self.name}: reports must not be empty")
        G = np.empty((self.k, n))
        rows = max(1, _CHUNK_ENTRIES // self.k)
        for start in range(0, n, rows):
            G[:, start:start + rows] = np.exp(self._shifted(reports[start:start + rows])).T
        return Group._of_checked(G, np.ones(n), self.log_scale(reports))

    def distinct(self, reports: Any) -> tuple[np.ndarray, np.ndarray]:
        """The reports and a count of 1 each (continuous reports are distinct with probability 1)."""
        reports = self._reports(reports)
        return reports, np.ones(reports.shape[0], dtype=np.int64)

    def membership(self, reports: Any) -> np.ndarray:
        raise TypeError("SHE: its reports are real vectors, not sets; membership is not defined (THE thresholds them)")

    def support(self, reports: Any) -> np.ndarray:
        raise TypeError("SHE: its reports are real vectors, not sets; support is not defined (estimate sums them)")

    def estimate(self, reports: Any, post: AnyPost = None) -> np.ndarray:
        """The unbiased estimate: the mean of the reports over users (the Laplace noise has mean 0), post-processed
        as ``Protocol.estimate`` (Base-Cut, Power and PowerNS use Var* = 8 / (eps^2 n), the variance of the estimate
        of a value no user holds).

        Returns
        -------
        numpy.ndarray, shape (k,)
        """
        check_choice(post, "post", POSTS)
        reports = as_array(reports, f"{self.name}: reports")
        n = reports.shape[0] if reports.ndim == 2 and reports.shape[1] == self.k else 0
        if n == 0:
            reports = self._reports(reports)  # the shape's error, named
            raise ValueError(f"{self.name}: reports must not be empty")
        raw = reports.mean(axis=0)
        if not np.isfinite(raw).all():  # a column holding inf or NaN sums to one: the entry named by the full check
            self._reports(reports)
        variance = self._noise_variance / n if post in NEEDS_VARIANCE else None
        return apply(raw, post, variance=variance, n=n)

    @property
    def _noise_variance(self) -> float:
        """Var[Lap(2/eps)] = 2 (2/eps)^2 = 8/eps^2."""
        return 2 * self.scale**2

    def estimate_variance(self, reports: Any) -> np.ndarray:
        """The variance of the raw estimate for users whose secrets are drawn i.i.d. from theta,
        (8/eps^2 + theta_v (1 - theta_v)) / n, with theta_v the raw estimate clipped to [0, 1].

        Returns
        -------
        numpy.ndarray, shape (k,)
        """
        theta = np.clip(self.estimate(reports), 0.0, 1.0)
        return (self._noise_variance + theta * (1 - theta)) / self.count(reports)

    def variance(self, theta: np.ndarray, n: int) -> np.ndarray:
        """The variance of the raw estimate for n users with fixed secrets, n theta_v of them holding v: 8/(eps^2 n)
        for every v (Wang et al. 2017, section 4.2; the one-hot part of the mean is then not random)."""
        check_distribution(theta, "theta", self.k)
        n = check_int(n, "n", minimum=1)
        return np.full(self.k, self._noise_variance / n)

    def _audit_event(self, reports: Any, x1: int, x2: int) -> np.ndarray:
        reports = self._reports(reports)
        return (reports[:, x1] >= 1.0) & (reports[:, x2] <= 0.0)

    def _audit_description(self, x1: int, x2: int) -> str:
        return f"y_{x1} >= 1 and y_{x2} <= 0"


def the_threshold(eps: float) -> float:
    """THE's default threshold at eps: the t in [1/2, 1] that minimises q (1 - q) / (p - q)^2 (module docstring),
    a = e^(eps t/2) = (b + 1 + sqrt(b^2 - b + 1)) / 3 with b = e^(eps/2), computed as a - 1 without cancellation."""
    eps = check_between(eps, "eps", EPS_MIN, EPS_MAX)
    d = math.expm1(eps / 2)  # b - 1
    a_minus_1 = (d + (d + d * d) / (math.sqrt(1 + d + d * d) + 1)) / 3
    return min(1.0, max(0.5, 2 * math.log1p(a_minus_1) / eps))


@dataclass(frozen=True)
class THE(_UnaryEncoding):
    """Thresholding with histogram encoding: the bits of the coordinates of SHE's noisy vector above ``threshold``,
    unary encoding with one = p = 1 - e^(eps (t - 1)/2)/2 and flip = q = e^(-eps t/2)/2 (module docstring).

    Attributes
    ----------
    threshold : float or None
        t, in [0, 1]; None (the default) for ``the_threshold(eps)``, as multi-freq-ldpy chooses it.
    """

    threshold: float | None = None
    name: ClassVar[str] = "THE"

    def __post_init__(self) -> None:
        super().__post_init__()
        t = the_threshold(self.eps) if self.threshold is None else check_between(
            self.threshold, "threshold", 0.0, 1.0, "(p and q stay in (0, 1) for any eps of the range)")
        object.__setattr__(self, "threshold", t)

    @property
    def flip(self) -> float:  # type: ignore[override]
        return 0.5 * math.exp(-self.eps * self.threshold / 2)

    @property
    def one(self) -> float:  # type: ignore[override]
        return 1 - 0.5 * math.exp(self.eps * (self.threshold - 1) / 2)

    @property
    def low(self) -> float:  # type: ignore[override]
        return 0.5 * math.exp(self.eps * (self.threshold - 1) / 2) / (1 - self.flip)

    @property
    def _gap(self) -> float:
        # p - q = -(expm1(eps (t - 1)/2) + expm1(-eps t/2)) / 2: no cancellation at a tiny eps
        return -0.5 * (math.expm1(self.eps * (self.threshold - 1) / 2) + math.expm1(-self.eps * self.threshold / 2))


def adp(k: int, eps: float) -> GRR | OUE:
    """The adaptive protocol: a ``GRR`` instance when GRR's variance q (1 - q) / (p - q)^2 = (e^eps + k - 2) /
    (e^eps - 1)^2 is at most OUE's 4 e^eps / (e^eps - 1)^2, that is when k - 2 <= 3 e^eps, else an ``OUE``
    instance (multi-freq-ldpy's ADP, GRR at a tie). The returned protocol is the chosen one itself: its reports,
    estimates and group are GRR's or OUE's.

    Examples
    --------
    >>> from privest import protocols
    >>> protocols.adp(10, 1.0).name, protocols.adp(11, 1.0).name   # 3 e + 2 = 10.15
    ('GRR', 'OUE')
    """
    k = check_int(k, "k", minimum=2)
    eps = check_between(eps, "eps", EPS_MIN, EPS_MAX)
    return GRR(k, eps) if k - 2 <= 3 * math.exp(eps) else OUE(k, eps)
