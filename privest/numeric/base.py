"""The base of the numeric mechanisms: ``NumericMechanism`` (a value in [lo, hi] reported as a number, eps-LDP), what
every one derives from its per-report unbiased estimate and its channel (the mean, its variance and interval, the
histogram by EM or EMS), and the two result records, ``MeanInterval`` and ``NumericHistogram``.

Each mechanism works on a canonical range (Square Wave on [0, 1], Piecewise, Hybrid and Duchi on [-1, 1]) and maps
the column's [lo, hi] onto it linearly: reports come back in the column's unit (a report of Square Wave on ages in
[17, 90] is an age, in [17 - 73 b, 90 + 73 b]), and so do the mean, its interval and the histogram's edges.
"""

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from privest._checks import (
    check_between,
    check_bounds,
    check_choice,
    check_int,
    check_positive,
    check_rng,
    check_values_within,
)
from privest.intervals import MIN_NORMAL_REPORTS, _z
from privest.numeric import _em

__all__ = [
    "EPS_MAX",
    "EPS_MIN",
    "MeanInterval",
    "NumericHistogram",
    "NumericMechanism",
]

EPS_MIN = 1e-3
"""The smallest eps of a numeric mechanism: below it Square Wave's b, (eps e^eps - e^eps + 1) / (2 e^eps (e^eps - 1 -
eps)), loses more than 8 of its 16 digits to cancellation."""

EPS_MAX = 50.0
"""The largest eps: at 50, e^eps is 5e21 and every window or flip probability is within 1e-21 of its limit."""

_EPS_WHY = "(the numeric mechanisms' range: privest.numeric.EPS_MIN and EPS_MAX)"


@dataclass(frozen=True)
class MeanInterval:
    """A confidence interval for the mean of the users' values, from ``NumericMechanism.mean_interval``.

    Attributes
    ----------
    estimate : float
        The unbiased estimate of the mean, in the column's unit.
    lower, upper : float
        The interval, within [lo, hi] (clipping there cannot lower its coverage: the mean lies in [lo, hi]).
    level : float
        The nominal coverage (e.g. 0.95).
    informative : bool
        False where the reports were fewer than ``privest.intervals.MIN_NORMAL_REPORTS``: the interval is then the
        whole [lo, hi].
    """

    estimate: float
    lower: float
    upper: float
    level: float
    informative: bool = True

    def covers(self, mean: float) -> bool:
        """Whether the interval holds ``mean``."""
        mean = check_between(mean, "mean", -math.inf, math.inf)
        return bool(self.lower <= mean <= self.upper)


@dataclass(frozen=True)
class NumericHistogram:
    """A histogram of the users' values estimated from their reports (``NumericMechanism.distribution``).

    Attributes
    ----------
    theta : numpy.ndarray, shape (bins,)
        The estimated share of the users in each of the equal cells of [lo, hi], summing to 1.
    edges : numpy.ndarray, shape (bins + 1,)
        The cells' edges, in the column's unit.
    iterations : int
        The EM (or EMS) iterations run.
    log_likelihood : float
        The normalised log-likelihood of the report counts at theta (without EMS's smoothing it is what EM raises).
    capped : bool
        Whether max_iter stopped the iteration.
    """

    theta: np.ndarray
    edges: np.ndarray
    iterations: int
    log_likelihood: float
    capped: bool


@dataclass(frozen=True)
class NumericMechanism:
    """A numeric LDP mechanism: each user's value in [lo, hi] reported as one number (see ``privest.numeric``).

    Subclasses give the canonical range (``canonical``), the sampler on it, the per-report unbiased estimate
    ``_unbiased``, the closed-form variance and CDF, and the discretised channel; the rest is derived here.

    Attributes
    ----------
    eps : float
        The privacy level, in [EPS_MIN, EPS_MAX].
    lo, hi : float
        The range of the users' values, lo < hi.
    """

    eps: float
    lo: float = -1.0
    hi: float = 1.0
    name: ClassVar[str] = ""
    canonical: ClassVar[tuple[float, float]] = (-1.0, 1.0)
    default_smoothing: ClassVar[str | None] = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "eps", check_between(self.eps, "eps", EPS_MIN, EPS_MAX, _EPS_WHY))
        lo, hi = check_bounds(self.lo, self.hi)
        object.__setattr__(self, "lo", lo)
        object.__setattr__(self, "hi", hi)

    # the linear map between the column's unit and the canonical range
    @property
    def _unit(self) -> float:
        """Column units per canonical unit."""
        return (self.hi - self.lo) / (self.canonical[1] - self.canonical[0])

    def _to_canonical(self, x: np.ndarray) -> np.ndarray:
        return self.canonical[0] + (x - self.lo) / self._unit

    def _to_unit(self, y: np.ndarray) -> np.ndarray:
        return self.lo + (y - self.canonical[0]) * self._unit

    @property
    def output_range(self) -> tuple[float, float]:
        """The range of the reports, in the column's unit."""
        low, high = self._output
        return float(self._to_unit(low)), float(self._to_unit(high))

    # what each mechanism defines, on the canonical range
    _output: ClassVar[tuple[float, float]]

    def _sample(self, t: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        raise NotImplementedError

    def _unbiased(self, y: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _variance(self, t: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _cdf(self, y: np.ndarray, t: float) -> np.ndarray:
        raise NotImplementedError

    def _channel(self, cells: np.ndarray, report_bins: int) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    def _audit_threshold(self) -> float:
        raise NotImplementedError

    # the users' side
    def _values(self, values: Any) -> np.ndarray:
        return check_values_within(values, "values", self.lo, self.hi, "(the mechanism's [lo, hi])")

    def sample(self, values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One report per user, vectorised over users.

        Parameters
        ----------
        values : array_like of float, shape (n,)
            Each user's value, in [lo, hi].
        rng : numpy.random.Generator
            The source of randomness.

        Returns
        -------
        numpy.ndarray, shape (n,)
            The reports, in the column's unit, within ``output_range``.
        """
        t = self._to_canonical(self._values(values))
        return self._to_unit(self._sample(t, check_rng(rng)))

    def _reports(self, reports: Any, minimum: int = 1) -> np.ndarray:
        """reports in canonical units, checked to be finite, 1-D, at least ``minimum`` and within the output range."""
        low, high = self.output_range
        slack = 1e-9 * (high - low)
        y = check_values_within(reports, "reports", low - slack, high + slack,
                                f"(the output range of {self.name} on [{self.lo!r}, {self.hi!r}])")
        if y.size < minimum:
            raise ValueError(f"reports must hold at least {minimum} report{'s' if minimum > 1 else ''}, got {y.size}")
        return np.clip(self._to_canonical(y), *self._output)

    # the mean
    def estimates(self, reports: np.ndarray) -> np.ndarray:
        """Each report's unbiased estimate of its user's value, in the column's unit: E[estimate | value] = value.

        Parameters
        ----------
        reports : array_like, shape (n,)
            Reports of this mechanism (``sample``).

        Returns
        -------
        numpy.ndarray, shape (n,)
        """
        return self._to_unit(self._unbiased(self._reports(reports, minimum=0)))

    def mean(self, reports: np.ndarray) -> float:
        """The unbiased estimate of the users' mean value: the mean of ``estimates`` (for Piecewise, Hybrid and Duchi
        the mean of the reports themselves; Wang et al., ICDE 2019, section III).

        Parameters
        ----------
        reports : array_like, shape (n,)
            Reports of this mechanism, at least one.

        Returns
        -------
        float
            In the column's unit (it may fall outside [lo, hi] when the users are few).
        """
        y = self._reports(reports)
        return float(self._to_unit(self._unbiased(y).mean()))

    def variance(self, values: np.ndarray) -> np.ndarray:
        """The variance of one report's unbiased estimate for a user holding each value, in the column's unit squared
        (the mechanism's closed form: Wang et al. 2019, section III, for Duchi's, Piecewise and Hybrid;
        for Square Wave, E[y^2] - E[y]^2 of its density over the squared slope of its mean).

        Parameters
        ----------
        values : array_like, shape (n,)
            Values in [lo, hi].

        Returns
        -------
        numpy.ndarray, shape (n,)
        """
        t = self._to_canonical(self._values(values))
        return self._variance(t) * self._unit**2

    def estimate_variance(self, reports: np.ndarray) -> float:
        """The variance of ``mean(reports)``, estimated from the reports: the sample variance of the per-report
        estimates (ddof = 1) over n. Unbiased for users whose values are drawn i.i.d.; for fixed values it errs
        upwards by the values' own spread over n.

        Parameters
        ----------
        reports : array_like, shape (n,)
            Reports of this mechanism, at least two.

        Returns
        -------
        float
            In the column's unit squared.
        """
        y = self._reports(reports, minimum=2)
        return float(self._unbiased(y).var(ddof=1) / y.size * self._unit**2)

    def mean_interval(self, reports: np.ndarray, level: float = 0.95) -> MeanInterval:
        """A confidence interval for the users' mean value: mean +- z sqrt(estimate_variance), z the two-sided normal
        quantile of level (the central limit theorem on the i.i.d. per-report estimates), clipped to [lo, hi].

        Parameters
        ----------
        reports : array_like, shape (n,)
            Reports of this mechanism, at least two.
        level : float
            The confidence level, in (0, 1).

        Returns
        -------
        MeanInterval
            Not informative (the whole [lo, hi]) below ``MIN_NORMAL_REPORTS`` reports.
        """
        y = self._reports(reports, minimum=2)
        z = _z(level)
        estimates = self._unbiased(y)
        estimate = float(self._to_unit(estimates.mean()))
        if y.size < MIN_NORMAL_REPORTS:
            return MeanInterval(estimate, self.lo, self.hi, float(level), False)
        half = z * math.sqrt(estimates.var(ddof=1) / y.size) * self._unit
        return MeanInterval(estimate, max(self.lo, estimate - half), min(self.hi, estimate + half), float(level))

    def cdf(self, reports: np.ndarray, value: float) -> np.ndarray:
        """The closed-form distribution function of a report for a user holding ``value``: P(report <= y | value) at
        each y of ``reports`` (any finite numbers; 0 below the output range, 1 above).

        Parameters
        ----------
        reports : array_like, shape (n,)
            Where to evaluate it, in the column's unit.
        value : float
            The user's value, in [lo, hi].

        Returns
        -------
        numpy.ndarray, shape (n,)
        """
        y = check_values_within(reports, "reports", -math.inf, math.inf)
        t = float(self._to_canonical(check_between(value, "value", self.lo, self.hi, "(the mechanism's [lo, hi])")))
        return self._cdf(self._to_canonical(y), t)

    # the distribution
    def channel(self, bins: int, report_bins: int | None = None) -> np.ndarray:
        """The discretised channel: A[x, j] = P(report in bin j | value uniform on cell x), shape (bins, m).

        The cells are ``bins`` equal cells of [lo, hi]; the report bins are ``report_bins`` equal bins of the output
        range (Square Wave, Piecewise; the continuous part of Hybrid) plus, for Duchi and Hybrid, one column for each
        of Duchi's two outputs. Each entry is exact (``privest.numeric._em``: the window's mass averaged over the
        cell), so each row sums to 1.

        Parameters
        ----------
        bins : int
            The cells of [lo, hi], at least 2.
        report_bins : int, optional
            The bins of the reports' continuous range, at least 2 (default: ``bins``).

        Returns
        -------
        numpy.ndarray, shape (bins, m)
        """
        bins = check_int(bins, "bins", minimum=2)
        report_bins = bins if report_bins is None else check_int(report_bins, "report_bins", minimum=2)
        cells = np.linspace(*self.canonical, bins + 1)
        return self._channel(cells, report_bins)[0]

    def _counts(self, y: np.ndarray, report_bins: int) -> np.ndarray:
        """The canonical reports counted into the columns of ``channel``."""
        raise NotImplementedError

    def distribution(self, reports: np.ndarray, bins: int = 1024, smoothing: str | None = "default",
                     report_bins: int | None = None, stop: str = "paper", delta: float = 1e-10,
                     max_iter: int = 10_000) -> NumericHistogram:
        """A histogram of the users' values on ``bins`` equal cells of [lo, hi]: EM on the report counts through the
        discretised channel (``channel``), with EMS's smoothing step if asked (Li et al., SIGMOD 2020, section 5:
        Algorithm "EMS", the binomial smoothing (1, 2, 1) / 4 after each M step).

        Without smoothing it is the maximum-likelihood estimate of the histogram given the binned reports (for
        Piecewise, Hybrid and Duchi an estimator none of the mechanisms' papers gives).

        Parameters
        ----------
        reports : array_like, shape (n,)
            Reports of this mechanism, at least one.
        bins : int
            The cells of [lo, hi] (the paper's d; 1024 in its experiments).
        smoothing : {"ems", None, "default"}
            "ems" for EMS, None for plain EM; "default" is "ems" for Square Wave (the paper's method) and None for the
            others (the MLE).
        report_bins : int, optional
            The bins of the reports (the paper's d-tilde), as in ``channel`` (default: ``bins``).
        stop : {"paper", "converged"}
            "paper": the reference code's rule (stop once the summed log-likelihood rises by less than 1e-3, or
            theta moves by at most 1/n in L1). "converged": EM to the MLE (``privest.ibu``'s gap rule at delta),
            EMS to its fixed point (the normalised log-likelihood changing by less than delta).
        delta : float
            The tolerance of "converged".
        max_iter : int
            The most iterations.

        Returns
        -------
        NumericHistogram

        Examples
        --------
        >>> import numpy as np
        >>> from privest import numeric, rng_for
        >>> rng = rng_for(2026, "numeric doctest")
        >>> ages = rng.beta(5, 2, 20_000) * 73 + 17
        >>> sw = numeric.square_wave(1.0, lo=17, hi=90)
        >>> histogram = sw.distribution(sw.sample(ages, rng), bins=73)
        >>> histogram.theta.shape, bool(abs(histogram.theta.sum() - 1) < 1e-12)
        ((73,), True)
        """
        y = self._reports(reports)
        bins = check_int(bins, "bins", minimum=2)
        report_bins = bins if report_bins is None else check_int(report_bins, "report_bins", minimum=2)
        smoothing = check_choice(smoothing, "smoothing", ("ems", None, "default"))
        smoothing = self.default_smoothing if smoothing == "default" else smoothing
        check_choice(stop, "stop", ("paper", "converged"))
        delta = check_positive(delta, "delta")
        max_iter = check_int(max_iter, "max_iter", minimum=1)
        A, _ = self._channel(np.linspace(*self.canonical, bins + 1), report_bins)
        theta, iterations, value, capped = _em.em(A, self._counts(y, report_bins), smoothing == "ems", stop, delta,
                                                  max_iter)
        return NumericHistogram(theta, np.linspace(self.lo, self.hi, bins + 1), iterations, value, capped)

    # the audit
    def _audit_event(self, reports: Any, x1: float, x2: float) -> np.ndarray:
        """``privest.audit``'s default event (inputs hi and lo): the report at or above the canonical threshold where
        every part of the density's ratio between hi and lo is e^eps (each mechanism's ``_audit_threshold``)."""
        return self._reports(reports, minimum=0) >= self._audit_threshold()

    def _audit_description(self, x1: float, x2: float) -> str:
        return f"report >= {float(self._to_unit(self._audit_threshold())):.6g}"
