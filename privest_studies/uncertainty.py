"""Verdicts that carry their uncertainty: the ratio of two methods' mean errors over paired runs with its interval
(the delta method), and an interval judged against a band as agree, disagree or undecided at this scale.

Used by every judged ratio of the report: the cells of the free-will Tables 1 and 2 (``free_will_verdicts``) and
the IBU paper's "not substantially different" checks (``reproduction.checks.similar``)."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

AGREE, DISAGREE, UNDECIDED = "agree", "disagree", "undecided"
AGREEMENTS = (AGREE, DISAGREE, UNDECIDED)


@dataclass(frozen=True)
class Ratio:
    """A ratio of mean errors over runs and its interval [low, high] (NaN throughout for a method that cannot run)."""

    value: float
    low: float
    high: float
    runs: int

    @property
    def available(self) -> bool:
        return bool(np.isfinite(self.value))

    def text(self) -> str:
        """'1.99 [1.93, 2.04]', or 'NA'."""
        if not self.available:
            return "NA"
        return f"{self.value:.2f} [{self.low:.2f}, {self.high:.2f}]"


NA_RATIO = Ratio(float("nan"), float("nan"), float("nan"), 0)


def ratio_interval(numerator: Sequence[float], denominator: Sequence[float], level: float = 0.95) -> Ratio:
    """mean(numerator) / mean(denominator) over paired runs, with its delta-method interval.

    r = a_bar / g_bar; the per-run residuals e_i = a_i - r g_i have mean zero, and the delta method gives the standard
    error SE = sd(e) / (sqrt(m) g_bar) over m runs; the interval is r +- t SE with t Student's quantile on m - 1
    degrees of freedom, its low end clipped at 0. Pairing (the same reports for both methods in run i) is what makes
    it narrow. With fewer than two runs nothing bounds the ratio: [0, inf].
    """
    a, g = np.asarray(numerator, dtype=float), np.asarray(denominator, dtype=float)
    if a.shape != g.shape or a.ndim != 1 or a.size == 0:
        raise ValueError(f"ratio_interval needs two equally long 1-d arrays of runs, got {a.shape} and {g.shape}")
    m = a.size
    ratio = float(a.mean() / g.mean())
    if m < 2:
        return Ratio(ratio, 0.0, float("inf"), m)
    se = float(np.std(a - ratio * g, ddof=1) / (np.sqrt(m) * g.mean()))
    half = t_quantile(level, m) * se
    return Ratio(ratio, max(ratio - half, 0.0), ratio + half, m)


@dataclass(frozen=True)
class Difference:
    """The mean of paired per-run differences d_i = a_i - b_i and its two-sided interval [low, high] at ``level``
    (Student's t on runs - 1 degrees of freedom); with one run nothing bounds it: (-inf, inf)."""

    mean: float
    low: float
    high: float
    se: float
    runs: int
    level: float

    def text(self, digits: int = 3) -> str:
        """'-0.012 [-0.02, -0.004]'."""
        return f"{self.mean:+.{digits}g} [{self.low:+.{digits}g}, {self.high:+.{digits}g}]"


def t_quantile(level: float, runs: int) -> float:
    """The two-sided Student t quantile of an interval at ``level`` over ``runs`` runs (runs - 1 degrees of
    freedom); inf below two runs."""
    if not 0 < level < 1:
        raise ValueError(f"the interval's level must lie in (0, 1), got {level}")
    return float(stats.t.ppf(0.5 + level / 2, runs - 1)) if runs >= 2 else float("inf")


def difference_interval(a: Sequence[float], b: Sequence[float], level: float = 0.95) -> Difference:
    """mean(a - b) over paired runs (the same reports in run i) with its t interval at ``level``: the paired test a
    claim "a is smaller than b" or "a and b are equal" is judged by (``interval_in_band`` on a band of differences)."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.shape != y.shape or x.ndim != 1 or x.size == 0:
        raise ValueError(f"difference_interval needs two equally long 1-d arrays of runs, got {x.shape} and {y.shape}")
    d = x - y
    m = d.size
    se = float(np.std(d, ddof=1) / np.sqrt(m)) if m >= 2 else float("inf")
    half = t_quantile(level, m) * se if m >= 2 else float("inf")
    mean = float(d.mean())
    return Difference(mean, mean - half, mean + half, se, m, level)


def mean_interval(values: Sequence[float], level: float = 0.95) -> Difference:
    """The mean of per-run values with its two-sided t interval at ``level`` (``difference_interval`` against 0): a
    mean error over runs and its uncertainty (the free-will propositions' simulated errors, an own multi-column
    study's summary)."""
    values = np.asarray(values, dtype=np.float64)
    return difference_interval(values, np.zeros_like(values), level)


def worst(ratios: Sequence[Ratio]) -> Ratio:
    """The largest of several ratios as one interval: each end the largest of the ends, which covers the largest
    true ratio whenever each interval covers its own; NA when none can run."""
    finite = [r for r in ratios if r.available]
    if not finite:
        return NA_RATIO
    return Ratio(max(r.value for r in finite), max(r.low for r in finite), max(r.high for r in finite),
                 min(r.runs for r in finite))


def interval_in_band(low: float, high: float, band: tuple[float, float]) -> str:
    """An interval [low, high] against a band (lo, hi] (either end may be infinite): agree when it lies inside,
    disagree when it lies wholly outside, undecided when it crosses an end (more runs could turn it either way)."""
    lo, hi = band
    if lo < low and high <= hi:
        return AGREE
    if high <= lo or low > hi:
        return DISAGREE
    return UNDECIDED


def below_zero(low: float, high: float) -> str:
    """An interval [low, high] of a difference d = a - b against the claim "a is smaller than b": agree when it lies
    wholly below 0, disagree when it lies at or above 0, undecided when it holds 0."""
    return AGREE if high < 0 else DISAGREE if low >= 0 else UNDECIDED


def rule_text(rule: Sequence[Mapping]) -> str:
    """A verdict rule (entries {'verdict', 'max_ratio'}, the last without max_ratio) as one line:
    'Excellent <= 1.2 < Good <= 2 < Bad'."""
    return " < ".join(f"{entry['verdict']} <= {entry['max_ratio']:g}" if "max_ratio" in entry else entry["verdict"]
                      for entry in rule)
