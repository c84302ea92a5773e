"""INV, the matrix-inversion estimator (free-will eq. 7 with one mechanism): solve theta A = q for a square
mechanism through one LU factorisation, refuse a singular A, post-process (``privest.simplex``).
"""


import warnings

import numpy as np

from privest._checks import (
    as_array,
    check_choice,
    check_int,
    check_row_stochastic,
    check_weights,
)
from privest.consistency import NEEDS_VARIANCE, POSTS, AnyPost, apply
from privest.estimators._calls import refuse_matrix
from privest.intervals import Interval, normal_interval

__all__ = [
    "CONDITION_LIMIT",
    "inv",
    "inv_interval",
    "inv_runs",
    "inv_variance",
]

CONDITION_LIMIT = 1e12


def inv(A: np.ndarray, q: np.ndarray, post: AnyPost = None, n: int | None = None) -> np.ndarray:
    """INV (free-will eq. 7 with one mechanism): solve theta A = q for a square mechanism, then post-process.

    q holds counts or frequencies over the columns of A. A whose condition number (the 1-norm estimate of LAPACK
    gecon, from the LU factors the solve uses) reaches 1e12 counts as singular. The inverse is never formed (but for
    the variance that Base-Cut, Power and PowerNS need, ``inv_variance``).

    Parameters
    ----------
    A : array_like, shape (k, k)
        A square mechanism, rows summing to 1 within 1e-9.
    q : array_like, shape (k,)
        The report counts or frequencies over the columns of A (normalised to sum 1 here).
    post : str or None
        None for the raw solution (may be negative), "projection" for INV-P (``project_simplex``), "normalization"
        for INV-N (``normalise``), or any consistency post-processing of ``privest.consistency`` (NDSS 2020, section
        IV): "base-pos", "post-pos", "base-cut", "norm", "norm-mul" (= "normalization"), "norm-cut", "norm-sub"
        (= "projection"), "power", "power-ns". Base-Cut, Power and PowerNS take each value's variance from
        ``inv_variance`` (the plug-in variance, where the paper's protocols use Var*).
    n : int, optional
        The number of users, for Base-Cut, Power and PowerNS (default: the sum of q, which then holds counts).

    Returns
    -------
    numpy.ndarray, shape (k,)
        The estimate of theta.

    Raises
    ------
    ValueError
        If A is not square and row-stochastic, A is singular (condition number >= 1e12), q is not non-negative of
        shape (k,) with a positive sum, or post is not one of the values above.
    """
    check_choice(post, "post", POSTS)
    refuse_matrix(A, "A", "inv")
    A = check_row_stochastic(A, "A", atol=1e-9)
    if A.shape[0] != A.shape[1]:
        raise ValueError(f"A must be square for INV, got shape {A.shape}")
    q = check_weights(q, A.shape[1], "q")
    raw = inv_runs(A, q[None, :])[0]
    if post not in NEEDS_VARIANCE:
        return apply(raw, post)
    users = _users(q, n)
    return apply(raw, post, variance=np.maximum(inv_variance(A, q, users), 1e-300), n=users)


def inv_variance(A: np.ndarray, q: np.ndarray, n: int | None = None) -> np.ndarray:
    """The variance of each entry of the raw INV estimate, estimated from the reports: for n users whose secrets are
    drawn i.i.d. from theta, the report frequencies have covariance (diag(q) - q q^T) / n with q = theta A, so the
    estimate v = q A^-1 has covariance A^-T (diag(q) - q q^T) A^-1 / n; its diagonal, with q the observed report
    frequencies, is returned.

    Parameters
    ----------
    A : array_like, shape (k, k)
        A square mechanism, rows summing to 1 within 1e-9.
    q : array_like, shape (k,)
        The report counts (or frequencies, then with n).
    n : int, optional
        The number of users (default: the sum of q, which then holds counts; a q summing to 1 holds frequencies).

    Returns
    -------
    numpy.ndarray, shape (k,)
        Var[v_x] for each secret x.
    """
    refuse_matrix(A, "A", "inv_variance")
    A = check_row_stochastic(A, "A", atol=1e-9)
    if A.shape[0] != A.shape[1]:
        raise ValueError(f"A must be square for INV, got shape {A.shape}")
    q = check_weights(q, A.shape[1], "q")
    users = _users(q, n)
    frequencies = q / q.sum()
    from scipy.linalg import lu_solve  # here: scipy.linalg loads with the first INV, not with privest

    inverse = lu_solve(_factor_transpose(A), np.eye(A.shape[0]), check_finite=False).T  # A^-1: row z, column x
    v = frequencies @ inverse
    return np.maximum(frequencies @ inverse**2 - v**2, 0.0) / users


def inv_interval(A: np.ndarray, q: np.ndarray, level: float = 0.95, n: int | None = None) -> Interval:
    """Normal-approximation intervals for theta around the raw INV estimate: v_x +- z sqrt(Var[v_x]) with
    ``inv_variance``, clipped to [0, 1].

    Parameters
    ----------
    A, q, n
        As in ``inv_variance``.
    level : float
        The confidence level, in (0, 1).

    Returns
    -------
    Interval
        The raw INV estimate and each secret's interval; from fewer than ``privest.intervals.MIN_NORMAL_REPORTS``
        reports every interval is [0, 1] and ``informative`` is False (one report's plug-in variance is 0).

    Examples
    --------
    >>> import numpy as np
    >>> import privest
    >>> A = privest.krr(3, 1.0)
    >>> result = privest.inv_interval(A, np.array([4000, 3000, 3000]))
    >>> result.estimate.round(3), bool(np.all(result.lower < result.estimate))
    (array([0.516, 0.242, 0.242]), True)
    """
    refuse_matrix(A, "A", "inv_interval")
    return normal_interval(inv(A, q), inv_variance(A, q, n), level, reports=_users(as_array(q, "q"), n))


def _users(q: np.ndarray, n: int | None) -> int:
    """The number of users: n, or the sum of the counts q."""
    if n is not None:
        return check_int(n, "n", minimum=1)
    total = float(q.sum())
    if abs(total - round(total)) > 1e-6 * total or total <= 1.0 + 1e-9:  # a sum of 1: frequencies
        raise ValueError(f"n is required when q holds frequencies (q sums to {total!r})")
    return round(total)


def inv_runs(A: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The raw INV vectors v (free-will eq. 7) of many runs' counts (R, m) through one square mechanism: one
    condition estimate and one LU factorisation for all runs. Rows may be negative; post-process each.

    Parameters
    ----------
    A : array_like, shape (k, k)
        A square mechanism, rows summing to 1 within 1e-9.
    counts : array_like, shape (R, k)
        Row r holds the report counts of run r.

    Returns
    -------
    numpy.ndarray, shape (R, k)
        Row r solves v A = counts[r] / counts[r].sum().

    Raises
    ------
    ValueError
        If A is not square and row-stochastic, A is singular (condition number >= 1e12), or a row of counts is not
        non-negative with a positive sum.
    """
    refuse_matrix(A, "A", "inv_runs")
    A = check_row_stochastic(A, "A", atol=1e-9)
    if A.shape[0] != A.shape[1]:
        raise ValueError(f"A must be square for INV, got shape {A.shape}")
    counts = as_array(counts, "counts")
    if counts.ndim != 2 or counts.shape[1] != A.shape[1]:
        raise ValueError(f"counts must have shape (runs, {A.shape[1]}), got {counts.shape}")
    for run in counts:
        check_weights(run, A.shape[1], "counts")
    factors = _factor_transpose(A)
    from scipy.linalg import lu_solve  # here: scipy.linalg loads with the first INV, not with privest

    return lu_solve(factors, (counts / counts.sum(axis=1, keepdims=True)).T, check_finite=False).T


def _factor_transpose(A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The LU factors of A^T (LAPACK getrf, as ``numpy.linalg.solve`` computes them), after checking that A is not
    singular for INV: its 1-norm condition number, estimated from the factors by LAPACK gecon in O(k^2), is below
    CONDITION_LIMIT. The estimate costs a fraction of the factorisation; the full SVD of ``numpy.linalg.cond`` cost
    100 times the solve at k = 2000."""
    from scipy.linalg import LinAlgWarning, lapack, lu_factor  # here: scipy.linalg loads with the first INV

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LinAlgWarning)  # an exact zero pivot: reported below as singular
        lu, pivots = lu_factor(A.T, check_finite=False)
    gecon = lapack.get_lapack_funcs("gecon", (lu,))
    reciprocal, info = gecon(lu, np.abs(A).sum(axis=1).max(), norm="1")  # ||A^T||_1 = the largest row sum of |A|
    if info != 0 or not reciprocal * CONDITION_LIMIT > 1.0:
        condition = np.inf if info != 0 or reciprocal == 0 else 1.0 / reciprocal
        raise ValueError(f"A is singular for INV (condition number {condition:.3g} >= {CONDITION_LIMIT:.0e}, 1-norm "
                         "estimate)")
    return lu, pivots
