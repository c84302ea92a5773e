"""What a researcher asks of a matrix mechanism: "is it eps-LDP?" (``ldp_level``, ``is_ldp``), "is it eps*d
geo-indistinguishable?" (``geo_indistinguishability_level``, ``is_geo_indistinguishable``), and the average
mechanism of a mixture (free-will eq. 7), checked to be row-stochastic.
"""

import math
from collections.abc import Iterator, Sequence

import numpy as np

from privest._checks import (
    check_distances,
    check_matrix,
    check_non_negative,
    check_non_negative_array,
    check_positive,
    check_row_stochastic,
    check_sequence,
)

__all__ = [
    "average",
    "geo_indistinguishability_level",
    "is_geo_indistinguishable",
    "is_ldp",
    "ldp_level",
]

def average(mechanisms: Sequence[np.ndarray], weights: Sequence[float] | np.ndarray | None = None) -> np.ndarray:
    """The average mechanism sum_A w_A A with the weights normalised to sum 1 (free-will eq. 7, A[n] with n^A/n).

    Parameters
    ----------
    mechanisms : sequence of array_like, each of shape (k, m)
        Row-stochastic matrices of one shape (one alphabet of observables), rows summing to 1 within 1e-9.
    weights : array_like, shape (len(mechanisms),), optional
        Non-negative, positive sum, e.g. the numbers of users n^A (default: equal weights).

    Returns
    -------
    numpy.ndarray, shape (k, m)
        The row-stochastic average mechanism.

    Raises
    ------
    ValueError
        If mechanisms is empty, a matrix is not row-stochastic, the shapes differ, or the weights have the wrong shape,
        a negative or non-finite entry, or a zero sum.
    """
    check_sequence(mechanisms, "mechanisms", minimum=1)
    matrices = [check_row_stochastic(A, f"mechanisms[{i}]", atol=1e-9) for i, A in enumerate(mechanisms)]
    for i, A in enumerate(matrices):
        if A.shape != matrices[0].shape:
            raise ValueError(f"mechanisms[{i}] has shape {A.shape} but mechanisms[0] has {matrices[0].shape}")
    w = np.ones(len(matrices)) if weights is None else check_non_negative_array(
        weights, "weights", shape=(len(matrices),), positive_sum=True)
    return np.tensordot(w / w.sum(), np.stack(matrices), axes=1)


def _column_blocks(A: np.ndarray) -> Iterator[np.ndarray]:
    """log A[x, z] - log A[x', z] as (k, k, b) blocks of columns (nan where both entries are 0)."""
    k, m = A.shape
    block = max(1, 2**22 // (k * k))
    with np.errstate(divide="ignore"):
        log_A = np.log(A)
    for start in range(0, m, block):
        L = log_A[:, start:start + block]
        with np.errstate(invalid="ignore"):
            yield L[:, None, :] - L[None, :, :]


def ldp_level(A: np.ndarray) -> float:
    """The smallest eps for which A is eps-LDP: max over columns of log(max_x A[x,z] / min_x A[x,z]) (inf if none).

    Parameters
    ----------
    A : array_like, shape (k, m)
        A mechanism (non-negative; rows need not sum to 1). All-zero columns are ignored.

    Returns
    -------
    float
        The LDP level, 0 for a mechanism whose columns are constant, inf if a column mixes zero and positive entries.

    Raises
    ------
    ValueError
        If A is not a non-empty 2-D matrix of finite non-negative entries.
    """
    A = check_matrix(A, "A")
    high, low = A.max(axis=0), A.min(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        level = np.log(high) - np.log(low)
    level = level[high > 0]
    return float(max(level.max(initial=0.0), 0.0))


def is_ldp(A: np.ndarray, eps: float, rtol: float = 1e-9) -> bool:
    """Whether A is eps-LDP: A[x,z] <= e^eps A[x',z] (1 + rtol) for all secrets x, x' and observables z.

    Parameters
    ----------
    A : array_like, shape (k, m)
        A mechanism (non-negative; rows need not sum to 1).
    eps : float
        The privacy level to check, finite and positive.
    rtol : float
        Relative tolerance on the ratio, for round-off.

    Returns
    -------
    bool

    Raises
    ------
    ValueError
        If A is not a non-empty 2-D matrix of finite non-negative entries, or eps is not finite and positive.
    """
    A = check_matrix(A, "A")
    eps = check_positive(eps, "eps")
    rtol = check_non_negative(rtol, "rtol")
    return ldp_level(A) <= eps + math.log1p(rtol)


def geo_indistinguishability_level(A: np.ndarray, distances: np.ndarray) -> float:
    """The smallest eps for which A is eps*d geo-indistinguishable: max log(A[x,z] / A[x',z]) / d(x, x').

    Over all z and x != x'; inf if a pair at distance 0, or a zero entry facing a positive one, forbids every eps.
    """
    A = check_matrix(A, "A")
    d = check_distances(distances, "distances", A.shape[0])
    off_diagonal = ~np.eye(A.shape[0], dtype=bool)
    x, x_other = np.nonzero(off_diagonal & (d == 0))
    if np.any(A[x] != A[x_other]):
        return math.inf
    with np.errstate(divide="ignore"):
        inverse = np.where(off_diagonal & (d > 0), 1.0 / d, 0.0)[:, :, None]
    level = 0.0
    for diff in _column_blocks(A):
        with np.errstate(invalid="ignore"):
            level = max(level, float(np.fmax.reduce(diff * inverse, axis=None)))  # fmax skips the nan of 0 vs 0
    return level


def is_geo_indistinguishable(A: np.ndarray, distances: np.ndarray, eps: float, rtol: float = 1e-9) -> bool:
    """Whether A is eps*d geo-indistinguishable: A[x,z] <= e^{eps d(x,x')} A[x',z] (1 + rtol) for all x, x', z.

    Parameters
    ----------
    A : array_like, shape (k, m)
        A mechanism (non-negative; rows need not sum to 1).
    distances : array_like, shape (k, k)
        d(x, x') between the secrets, in the unit eps is given per (steps, km).
    eps : float
        The privacy level per unit of distance, finite and positive.
    rtol : float
        Relative tolerance on the ratio, for round-off.

    Returns
    -------
    bool

    Raises
    ------
    ValueError
        If A is not a non-empty 2-D matrix of finite non-negative entries, distances is not a finite non-negative
        (k, k) matrix, or eps is not finite and positive.
    """
    A = check_matrix(A, "A")
    d = check_distances(distances, "distances", A.shape[0])
    eps = check_positive(eps, "eps")
    rtol = check_non_negative(rtol, "rtol")
    bound = (eps * d + math.log1p(rtol))[:, :, None]
    return not any(np.any(diff > bound) for diff in _column_blocks(A))
