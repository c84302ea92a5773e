"""Confidence intervals for a frequency estimate: the one result type (``Interval``) of every estimator's intervals,
the normal approximation from a variance (the unbiased estimators: ``Protocol.interval``, ``inv_interval``), and the
covariance of a maximum-likelihood estimate on the probability simplex from its observed Fisher information
(``IbuResult.interval``). The parametric bootstrap, which needs the estimators, is ``privest.estimators.bootstrap``.

All intervals are for theta, the distribution the users' secrets are drawn from (i.i.d.), the model under which IBU
and GIBU are the maximum-likelihood estimates; each is clipped to [0, 1], which cannot lower its coverage.
"""

from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from privest._checks import (
    check_between,
    check_distribution,
    check_finite,
    check_matrix,
)

__all__ = [
    "Interval",
    "fisher_interval",
    "normal_interval",
    "simplex_covariance",
]


@dataclass(frozen=True)
class Interval:
    """Per-value confidence intervals for theta, with the estimate they surround.

    Attributes
    ----------
    estimate : numpy.ndarray, shape (k,)
        The point estimate.
    lower, upper : numpy.ndarray, shape (k,)
        The interval of each value, within [0, 1].
    level : float
        The nominal coverage of each value's interval (e.g. 0.95).
    method : str
        "normal" (an unbiased estimate and its variance), "fisher" (an MLE and its observed Fisher information on the
        simplex) or "bootstrap" (parametric bootstrap percentiles).
    informative : bool
        False where the reports were too few for the method (``MIN_NORMAL_REPORTS``): every interval is then the
        whole [0, 1].
    """

    estimate: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    level: float
    method: str
    informative: bool = True

    def covers(self, theta: np.ndarray) -> np.ndarray:
        """Which values' intervals hold theta's entry, bool of shape (k,)."""
        theta = check_finite(theta, "theta", shape=self.lower.shape)
        return (self.lower <= theta) & (theta <= self.upper)


def _z(level: float) -> float:
    """The two-sided standard normal quantile of a confidence level in (0, 1)."""
    level = check_between(level, "level", 1e-12, 1 - 1e-12, "(a confidence level)")
    return NormalDist().inv_cdf(0.5 + level / 2)


MIN_NORMAL_REPORTS = 30
"""Fewer reports than this and a normal interval is the whole [0, 1], marked not informative: the plug-in variance
of a handful of reports is no estimate of the variance (one report gives 0, an interval of width 0 that covers
nothing), and the normal approximation of a count needs tens of reports (the usual rule of thumb: 30)."""


def normal_interval(estimate: np.ndarray, variance: np.ndarray, level: float = 0.95,
                    method: str = "normal", reports: int | None = None) -> Interval:
    """estimate +- z sqrt(variance), z the two-sided normal quantile of level, clipped to [0, 1].

    Parameters
    ----------
    estimate : array_like, shape (k,)
        An (approximately) normal, unbiased estimate of theta.
    variance : array_like, shape (k,)
        Its variance, value by value (non-negative).
    level : float
        The confidence level, in (0, 1).
    method : str
        The name the result carries.
    reports : int, optional
        The number of reports behind the estimate: below ``MIN_NORMAL_REPORTS`` every interval is [0, 1] and the
        result's ``informative`` is False.

    Returns
    -------
    Interval

    Examples
    --------
    >>> from privest import intervals
    >>> result = intervals.normal_interval([0.5, 0.3, 0.2], [0.0025, 0.0025, 0.0], level=0.95)
    >>> result.lower.round(4), result.upper.round(4)
    (array([0.402, 0.202, 0.2  ]), array([0.598, 0.398, 0.2  ]))
    """
    estimate = check_finite(estimate, "estimate", ndim=1)
    variance = check_finite(variance, "variance", shape=estimate.shape)
    if np.any(variance < 0):
        raise ValueError(f"variance must be non-negative, found {variance.min()!r}")
    half = _z(level) * np.sqrt(variance)
    if reports is not None and reports < MIN_NORMAL_REPORTS:
        return Interval(estimate, np.zeros_like(estimate), np.ones_like(estimate), float(level), method, False)
    return Interval(estimate, np.clip(estimate - half, 0.0, 1.0), np.clip(estimate + half, 0.0, 1.0), float(level),
                    method)


def simplex_covariance(information: np.ndarray) -> np.ndarray:
    """The asymptotic covariance of an MLE on the probability simplex from its (k, k) Fisher information J: the
    inverse of J restricted to the directions that keep the sum at 1 (Aitchison and Silvey's constrained MLE),

        C = J^-1 - J^-1 1 1^T J^-1 / (1^T J^-1 1)

    when J is positive definite (one Cholesky factorisation, no pivot negligible), else U (U^T J U)^+ U^T with U an
    orthonormal basis of the vectors summing to 0 (QR of the e_i - e_k) and ^+ the inverse on the directions that
    carry information; the two agree where both apply. A direction that carries none (two secrets no report tells
    apart, e.g. two values nobody reported through GRR) has infinite variance: the secrets it moves get inf on the
    diagonal. Valid where the MLE is interior to the simplex (every entry positive).

    Raises
    ------
    ValueError
        If J is not a square non-negative matrix.
    """
    information = check_matrix(information, "information")
    k = information.shape[0]
    if information.shape != (k, k):
        raise ValueError(f"information must be square, got shape {information.shape}")
    symmetric = (information + information.T) / 2
    from scipy.linalg import LinAlgError, cho_factor, cho_solve  # here: scipy.linalg loads with the first interval

    try:
        factor = cho_factor(symmetric, check_finite=False)
        pivots = np.abs(np.diag(factor[0]))
        # a pivot this small is a singular J that rounding let through (the same relative floor as below)
        if pivots.min() ** 2 > 1e-10 * pivots.max() ** 2:
            inverse = cho_solve(factor, np.eye(k), check_finite=False)
            ones = inverse.sum(axis=1)
            return inverse - np.outer(ones, ones) / ones.sum()
    except LinAlgError:
        pass
    differences = np.eye(k, k - 1)
    differences[-1] = -1.0  # columns e_i - e_k, i < k: they span the vectors summing to 0
    basis = np.linalg.qr(differences)[0]
    values, vectors = np.linalg.eigh(basis.T @ symmetric @ basis)
    informative = values > 1e-10 * max(values.max(initial=0.0), 1e-300)
    directions = basis @ vectors[:, informative]
    covariance = (directions / values[informative]) @ directions.T
    blind = ((basis @ vectors[:, ~informative]) ** 2).sum(axis=1) > 1e-12
    covariance[np.diag_indices(k)] = np.where(blind, np.inf, np.diag(covariance))
    return covariance


def fisher_interval(theta: np.ndarray, information: np.ndarray, level: float = 0.95) -> Interval:
    """Wald intervals of an interior MLE theta on the simplex: theta_x +- z sqrt(C_xx) with C = ``simplex_covariance``
    of the observed Fisher information (of all n users: n times the per-user information), clipped to [0, 1].

    Where the MLE lies on (or near) the boundary the normal approximation fails: an interval whose lower end is
    clipped to 0 flags it; use the parametric bootstrap (``privest.bootstrap``) there. A secret along a direction
    the reports carry no information on (``simplex_covariance``) gets the interval [0, 1].

    Parameters
    ----------
    theta : array_like, shape (k,)
        The MLE, a distribution.
    information : array_like, shape (k, k)
        The observed Fisher information at theta.
    level : float
        The confidence level, in (0, 1).

    Returns
    -------
    Interval
    """
    theta = check_distribution(theta, "theta")
    covariance = simplex_covariance(information)
    if covariance.shape[0] != theta.size:
        raise ValueError(f"information must be ({theta.size}, {theta.size}), got {covariance.shape}")
    variance = np.maximum(np.diag(covariance), 0.0)
    blind = ~np.isfinite(variance)
    result = normal_interval(theta, np.where(blind, 0.0, variance), level, method="fisher")
    return Interval(theta, np.where(blind, 0.0, result.lower), np.where(blind, 1.0, result.upper), result.level,
                    "fisher")
