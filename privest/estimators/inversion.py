"""INV, the matrix-inversion estimator (free-will eq. 7 with one mechanism): solve theta A = q for a square
mechanism through one LU factorisation, refuse a singular A, post-process (``privest.simplex``).
"""


import warnings

import numpy as np

from privest._checks import (
    as_array,
    check_choice,
    check_row_stochastic,
    check_weights,
)
from privest.simplex import POSTS, Post, post_process

__all__ = [
    "CONDITION_LIMIT",
    "inv",
    "inv_runs",
]

CONDITION_LIMIT = 1e12


def inv(A: np.ndarray, q: np.ndarray, post: Post = None) -> np.ndarray:
    """INV (free-will eq. 7 with one mechanism): solve theta A = q for a square mechanism, then post-process.

    q holds counts or frequencies over the columns of A. A whose condition number (the 1-norm estimate of LAPACK
    gecon, from the LU factors the solve uses) reaches 1e12 counts as singular. The inverse is never formed.

    Parameters
    ----------
    A : array_like, shape (k, k)
        A square mechanism, rows summing to 1 within 1e-9.
    q : array_like, shape (k,)
        The report counts or frequencies over the columns of A (normalised to sum 1 here).
    post : {None, "projection", "normalization"}
        None for the raw solution (may be negative), "projection" for INV-P (``project_simplex``),
        "normalization" for INV-N (``normalise``).

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
    A = check_row_stochastic(A, "A", atol=1e-9)
    if A.shape[0] != A.shape[1]:
        raise ValueError(f"A must be square for INV, got shape {A.shape}")
    q = check_weights(q, A.shape[1], "q")
    return post_process(inv_runs(A, q[None, :])[0], post)


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
