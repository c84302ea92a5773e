"""The four numeric mechanisms, each on its canonical range, and their factories.

- Square Wave (Li et al., "Estimating Numerical Distributions under Local Differential Privacy", SIGMOD 2020,
  section 4): v in [0, 1]; the report has density p = e^eps / (2 b e^eps + 1) on [v - b, v + b] and
  q = 1 / (2 b e^eps + 1) elsewhere on [-b, 1 + b], with b = (eps e^eps - e^eps + 1) / (2 e^eps (e^eps - 1 - eps))
  (the b that maximises the mutual information between value and report).
- Piecewise (Wang et al., "Collecting and Analyzing Multidimensional Data with Local Differential Privacy", ICDE 2019,
  Algorithm 2): t in [-1, 1], C = (e^(eps/2) + 1) / (e^(eps/2) - 1); the report has density
  p = (e^eps - e^(eps/2)) / (2 e^(eps/2) + 2) on [l(t), r(t)] = [(C + 1) t / 2 - (C - 1) / 2, l(t) + C - 1] and
  p / e^eps elsewhere on [-C, C]; E[report] = t.
- Duchi et al.'s one-dimensional mechanism (Duchi, Jordan and Wainwright, JASA 2018; Wang et al. 2019, Algorithm 1):
  t in [-1, 1]; the report is +-(e^eps + 1) / (e^eps - 1), + with probability (e^eps - 1) t / (2 e^eps + 2) + 1/2.
- Hybrid (Wang et al. 2019, section III-C): Piecewise with probability alpha = 1 - e^(-eps/2) (for eps > 0.61; 0 at or
  below), else Duchi's; eps-LDP, and its worst-case variance is below both.

Square Wave's and Piecewise's reports are windows of high density moving linearly with the value, whose discretised
channel ``privest.numeric._em.window_channel`` gives exactly.
"""

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from privest.numeric._em import bin_counts, window_channel
from privest.numeric.base import NumericMechanism

__all__ = [
    "HYBRID_THRESHOLD",
    "Duchi",
    "Hybrid",
    "Piecewise",
    "SquareWave",
    "duchi",
    "hybrid",
    "piecewise",
    "square_wave",
]

HYBRID_THRESHOLD = 0.61
"""Hybrid mixes in Piecewise only above this eps (Wang et al. 2019, section III-C: eps* ~ 0.61)."""


@dataclass(frozen=True)
class SquareWave(NumericMechanism):
    """Square Wave on [lo, hi] (module docstring; Li et al. 2020, section 4), its values mapped onto [0, 1]."""

    lo: float = 0.0
    hi: float = 1.0
    name: ClassVar[str] = "Square Wave"
    canonical: ClassVar[tuple[float, float]] = (0.0, 1.0)
    default_smoothing: ClassVar[str | None] = "ems"

    @property
    def b(self) -> float:
        """The half-width of the window, on [0, 1]: (eps e^eps - e^eps + 1) / (2 e^eps (e^eps - 1 - eps))."""
        e = math.exp(self.eps)
        return (self.eps * e - math.expm1(self.eps)) / (2 * e * (math.expm1(self.eps) - self.eps))

    @property
    def p(self) -> float:
        """The density in the window, e^eps / (2 b e^eps + 1)."""
        return 1 / (2 * self.b + math.exp(-self.eps))

    @property
    def q(self) -> float:
        """The density outside it, 1 / (2 b e^eps + 1) = p / e^eps."""
        return self.p * math.exp(-self.eps)

    @property
    def _output(self) -> tuple[float, float]:
        return -self.b, 1 + self.b

    def _sample(self, t: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        b = self.b
        inside = rng.random(t.size) < 2 * b * self.p
        u = rng.random(t.size)
        # outside the window: u uniform on [0, 1), the complement's length, placed left of it or right of it
        return np.where(inside, t - b + 2 * b * u, np.where(u < t, u - b, u + b))

    @property
    def _slope(self) -> float:
        """E[y | v] = 1/2 + 2 b (p - q) (v - 1/2): the report's mean moves by 2 b (p - q) per unit of value."""
        return 2 * self.b * (self.p - self.q)

    def _unbiased(self, y: np.ndarray) -> np.ndarray:
        return 0.5 + (y - 0.5) / self._slope

    def _variance(self, t: np.ndarray) -> np.ndarray:
        b, p, q = self.b, self.p, self.q
        second = q * ((1 + b) ** 3 + b**3) / 3 + (p - q) * (6 * t**2 * b + 2 * b**3) / 3
        first = 0.5 + self._slope * (t - 0.5)
        return (second - first**2) / self._slope**2

    def _cdf(self, y: np.ndarray, t: float) -> np.ndarray:
        b = self.b
        return self.q * (np.clip(y, -b, 1 + b) + b) + (self.p - self.q) * np.clip(y - t + b, 0.0, 2 * b)

    def _channel(self, cells: np.ndarray, report_bins: int) -> tuple[np.ndarray, np.ndarray]:
        edges = np.linspace(-self.b, 1 + self.b, report_bins + 1)
        return window_channel(cells, edges, self.b, self.p, self.q), edges

    def _counts(self, y: np.ndarray, report_bins: int) -> np.ndarray:
        return bin_counts(y, -self.b, 1 + self.b, report_bins)

    def _audit_threshold(self) -> float:
        # [max(b, 1 - b), 1 + b] lies in v = 1's window and outside v = 0's: density ratio e^eps throughout
        return max(self.b, 1 - self.b)


@dataclass(frozen=True)
class Piecewise(NumericMechanism):
    """The Piecewise mechanism on [lo, hi] (module docstring; Wang et al. 2019, Algorithm 2), mapped onto [-1, 1]."""

    name: ClassVar[str] = "Piecewise"

    @property
    def C(self) -> float:  # noqa: N802 (the paper's name)
        """The output bound, (e^(eps/2) + 1) / (e^(eps/2) - 1)."""
        return 1 / math.tanh(self.eps / 4)

    @property
    def _width(self) -> float:
        """C - 1 = 2 / (e^(eps/2) - 1), the window's width, without the cancellation of C - 1 at a large eps."""
        return 2 / math.expm1(self.eps / 2)

    @property
    def p(self) -> float:
        """The density in the window [l(t), r(t)], (e^eps - e^(eps/2)) / (2 e^(eps/2) + 2)."""
        s = math.exp(self.eps / 2)
        return s * math.expm1(self.eps / 2) / (2 * (s + 1))

    @property
    def _output(self) -> tuple[float, float]:
        return -self.C, self.C

    def _left(self, t: np.ndarray) -> np.ndarray:
        return (self._width + 2) / 2 * t - self._width / 2

    def _sample(self, t: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        C, s = self.C, math.exp(self.eps / 2)
        inside = rng.random(t.size) < s / (s + 1)
        u = rng.random(t.size)
        left = self._left(t)
        z = (C + 1) * u  # outside: uniform on the complement [-C, l) + (r, C], of length C + 1
        return np.where(inside, left + self._width * u, np.where(z < left + C, z - C, z - 1))

    def _unbiased(self, y: np.ndarray) -> np.ndarray:
        return y

    def _variance(self, t: np.ndarray) -> np.ndarray:
        d = math.expm1(self.eps / 2)
        return t**2 / d + (d + 4) / (3 * d**2)  # Wang et al. 2019, section III-B (Piecewise's variance)

    def _cdf(self, y: np.ndarray, t: float) -> np.ndarray:
        C, p = self.C, self.p
        low = p * math.exp(-self.eps)
        return low * (np.clip(y, -C, C) + C) + (p - low) * np.clip(y - self._left(np.asarray(t)), 0.0, self._width)

    def _channel(self, cells: np.ndarray, report_bins: int) -> tuple[np.ndarray, np.ndarray]:
        C, p = self.C, self.p
        edges = np.linspace(-C, C, report_bins + 1)
        # the window's centre is (C + 1) t / 2: the cells of t scaled onto the centres
        width = self._width
        return window_channel((width + 2) / 2 * cells, edges, width / 2, p, p * math.exp(-self.eps)), edges

    def _counts(self, y: np.ndarray, report_bins: int) -> np.ndarray:
        return bin_counts(y, -self.C, self.C, report_bins)

    def _audit_threshold(self) -> float:
        return 1.0  # [1, C] is t = 1's window, outside t = -1's


@dataclass(frozen=True)
class Duchi(NumericMechanism):
    """Duchi et al.'s mechanism on [lo, hi] (module docstring), mapped onto [-1, 1]: two possible reports."""

    name: ClassVar[str] = "Duchi"

    @property
    def D(self) -> float:  # noqa: N802 (the paper's name)
        """The magnitude of the report, (e^eps + 1) / (e^eps - 1)."""
        return 1 / math.tanh(self.eps / 2)

    @property
    def _output(self) -> tuple[float, float]:
        return -self.D, self.D

    def _positive(self, t: np.ndarray) -> np.ndarray:
        """P(report = +D | t) = (e^eps - 1) t / (2 e^eps + 2) + 1/2."""
        return 0.5 + 0.5 * math.tanh(self.eps / 2) * t

    def _sample(self, t: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return np.where(rng.random(t.size) < self._positive(t), self.D, -self.D)

    def _reports(self, reports: Any, minimum: int = 1) -> np.ndarray:
        y = super()._reports(reports, minimum)
        if np.any(np.abs(np.abs(y) - self.D) > 1e-9 * self.D):
            bad = y[np.abs(np.abs(y) - self.D) > 1e-9 * self.D][0]
            raise ValueError(f"reports of {self.name} must be one of its two outputs {self.output_range}, found "
                             f"{float(self._to_unit(bad))!r}")
        return np.where(y > 0, self.D, -self.D)

    def _unbiased(self, y: np.ndarray) -> np.ndarray:
        return y

    def _variance(self, t: np.ndarray) -> np.ndarray:
        return self.D**2 - t**2  # Wang et al. 2019, section III-A (Duchi's variance)

    def _cdf(self, y: np.ndarray, t: float) -> np.ndarray:
        below = 1 - float(self._positive(np.asarray(t)))
        return np.where(y < -self.D, 0.0, np.where(y < self.D, below, 1.0))

    def _channel(self, cells: np.ndarray, report_bins: int) -> tuple[np.ndarray, np.ndarray]:
        positive = self._positive((cells[:-1] + cells[1:]) / 2)  # linear in t: its cell average is at the midpoint
        return np.column_stack([1 - positive, positive]), np.array([-self.D, 0.0, self.D])

    def _counts(self, y: np.ndarray, report_bins: int) -> np.ndarray:
        positive = float(np.count_nonzero(y > 0))
        return np.array([y.size - positive, positive])

    def _audit_threshold(self) -> float:
        return 1.0  # the report +D


@dataclass(frozen=True)
class Hybrid(NumericMechanism):
    """The Hybrid mechanism on [lo, hi] (module docstring; Wang et al. 2019, section III-C), mapped onto [-1, 1]."""

    name: ClassVar[str] = "Hybrid"

    @property
    def alpha(self) -> float:
        """The probability of reporting through Piecewise: 1 - e^(-eps/2) above ``HYBRID_THRESHOLD``, else 0."""
        return -math.expm1(-self.eps / 2) if self.eps > HYBRID_THRESHOLD else 0.0

    @property
    def _parts(self) -> tuple[Piecewise, Duchi]:
        return Piecewise(self.eps), Duchi(self.eps)

    @property
    def _output(self) -> tuple[float, float]:
        bound = self._parts[0].C if self.alpha > 0 else self._parts[1].D  # C > D at every eps
        return -bound, bound

    def _sample(self, t: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        piecewise, duchi = self._parts
        chosen = rng.random(t.size) < self.alpha
        return np.where(chosen, piecewise._sample(t, rng), duchi._sample(t, rng))

    def _atoms(self, y: np.ndarray) -> np.ndarray:
        """Which reports are Duchi's (+-D: Piecewise reports one with probability 0)."""
        return np.isclose(np.abs(y), self._parts[1].D, rtol=1e-12, atol=0.0)

    def _reports(self, reports: Any, minimum: int = 1) -> np.ndarray:
        y = super()._reports(reports, minimum)
        if self.alpha == 0:
            return self._parts[1]._reports(self._parts[1]._to_unit(y), minimum)
        return y

    def _unbiased(self, y: np.ndarray) -> np.ndarray:
        return y

    def _variance(self, t: np.ndarray) -> np.ndarray:
        piecewise, duchi = self._parts
        second = self.alpha * (piecewise._variance(t) + t**2) + (1 - self.alpha) * duchi.D**2
        return second - t**2  # Wang et al. 2019, section III-C: the mixture's second moment

    def _cdf(self, y: np.ndarray, t: float) -> np.ndarray:
        piecewise, duchi = self._parts
        return self.alpha * piecewise._cdf(y, t) + (1 - self.alpha) * duchi._cdf(y, t)

    def _channel(self, cells: np.ndarray, report_bins: int) -> tuple[np.ndarray, np.ndarray]:
        piecewise, duchi = self._parts
        atoms, _ = duchi._channel(cells, report_bins)
        if self.alpha == 0:
            return atoms, np.array([-duchi.D, 0.0, duchi.D])
        windows, edges = piecewise._channel(cells, report_bins)
        return np.hstack([self.alpha * windows, (1 - self.alpha) * atoms]), edges

    def _counts(self, y: np.ndarray, report_bins: int) -> np.ndarray:
        atom = self._atoms(y)
        duchi = self._parts[1]._counts(y[atom], report_bins)
        if self.alpha == 0:
            return duchi
        return np.concatenate([self._parts[0]._counts(y[~atom], report_bins), duchi])

    def _audit_threshold(self) -> float:
        return 1.0  # Piecewise's window [1, C] and Duchi's +D: both parts' ratio is e^eps


def square_wave(eps: float, lo: float = 0.0, hi: float = 1.0) -> SquareWave:
    """Square Wave (Li et al., SIGMOD 2020) for values in [lo, hi] at privacy level eps (module docstring).

    Examples
    --------
    >>> from privest import numeric, rng_for
    >>> sw = numeric.square_wave(1.0, lo=0.0, hi=100.0)
    >>> reports = sw.sample([10.0, 50.0, 90.0] * 10_000, rng_for(2026, "sw doctest"))
    >>> bool(abs(sw.mean(reports) - 50.0) < 3 * sw.estimate_variance(reports) ** 0.5)
    True
    """
    return SquareWave(eps, lo, hi)


def piecewise(eps: float, lo: float = -1.0, hi: float = 1.0) -> Piecewise:
    """The Piecewise mechanism (Wang et al., ICDE 2019) for values in [lo, hi] at privacy level eps.

    Examples
    --------
    >>> from privest import numeric, rng_for
    >>> pm = numeric.piecewise(2.0, lo=0.0, hi=10.0)
    >>> interval = pm.mean_interval(pm.sample([2.0] * 50_000, rng_for(2026, "pm doctest")))
    >>> interval.covers(2.0), interval.level
    (True, 0.95)
    """
    return Piecewise(eps, lo, hi)


def hybrid(eps: float, lo: float = -1.0, hi: float = 1.0) -> Hybrid:
    """The Hybrid mechanism (Wang et al., ICDE 2019) for values in [lo, hi] at privacy level eps."""
    return Hybrid(eps, lo, hi)


def duchi(eps: float, lo: float = -1.0, hi: float = 1.0) -> Duchi:
    """Duchi et al.'s one-dimensional mechanism for values in [lo, hi] at privacy level eps."""
    return Duchi(eps, lo, hi)
