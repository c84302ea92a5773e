"""Post-processing onto the probability simplex (free-will section 5.1): the Euclidean projection (INV-P) and the
normalisation (INV-N), and ``post_process``, which applies the one that ``post`` names.

Below both ``privest.protocols`` (the unbiased estimators post-process) and ``privest.estimators`` (INV, RAP).
"""

from typing import Literal

import numpy as np

from privest._checks import (
    check_choice,
    check_finite,
)

__all__ = [
    "POSTS",
    "Post",
    "normalise",
    "post_process",
    "project_simplex",
]

Post = Literal["projection", "normalization"] | None


POSTS = (None, "projection", "normalization")


def project_simplex(v: np.ndarray) -> np.ndarray:
    """The Euclidean projection of v onto the probability simplex (Wang & Carreira-Perpinan, free-will ref. [14]).

    Sort-based: with u sorted decreasingly, rho = max{j : u_j + (1 - sum_{i<=j} u_i)/j > 0}, and the projection is
    max(v + lambda, 0) with lambda = (1 - sum_{i<=rho} u_i)/rho. This is INV-P's post-processing (free-will
    section 5.1).

    Parameters
    ----------
    v : array_like, shape (k,)
        Any finite vector, e.g. a raw INV estimate with negative entries.

    Returns
    -------
    numpy.ndarray, shape (k,)
        The distribution closest to v in Euclidean distance (non-negative, summing to 1).

    Raises
    ------
    ValueError
        If v is empty, not 1-D or not finite.

    Examples
    --------
    >>> import privest
    >>> privest.project_simplex([0.75, 0.75, -0.5])
    array([0.5, 0.5, 0. ])
    """
    v = check_finite(v, "v", ndim=1)
    if v.size == 0:
        raise ValueError(f"v must be a non-empty finite 1-D array, got shape {v.shape}")
    # The projection of v + c (1, ..., 1) is that of v: shifted so that its largest entry is 0, the sums below lose
    # no precision however large v is (a raw INV estimate at a tiny eps holds entries ~ 1/eps; unshifted, 1e17 + (1 -
    # 1e17) rounds to 0 and no rho is found). An entry more than 1 below the largest projects to 0, so clipping the
    # shifted entries at -2 changes nothing and keeps v - max(v) from overflowing.
    with np.errstate(over="ignore"):
        v = np.maximum(v - v.max(), -2.0)
    u = np.sort(v)[::-1]
    css = np.cumsum(u)
    j = np.arange(1, v.size + 1)
    rho = np.flatnonzero(u + (1 - css) / j > 0)[-1] + 1  # j = 1 always qualifies: u_1 = 0
    return np.maximum(v + (1 - css[rho - 1]) / rho, 0.0)


def normalise(v: np.ndarray) -> np.ndarray:
    """Truncate the negative entries of v to 0 and rescale to sum 1 (free-will section 5.1, 'normalization').

    This is INV-N's post-processing.

    Parameters
    ----------
    v : array_like, shape (k,)
        Any vector with a positive entry.

    Returns
    -------
    numpy.ndarray, shape (k,)
        max(v, 0) / sum(max(v, 0)).

    Raises
    ------
    ValueError
        If v has no positive entry.
    """
    v = np.maximum(check_finite(v, "v", ndim=1), 0.0)
    if not v.size or v.max() <= 0:
        raise ValueError("v has no positive entry: normalization (post='normalization', INV-N) is undefined")
    v = v / v.max()  # first to at most 1: a sum of entries near the largest float would overflow to inf
    return v / v.sum()


def post_process(v: np.ndarray, post: Post) -> np.ndarray:
    """Apply the post-processing named by ``post`` ('projection', 'normalization' or None for the raw vector)."""
    check_choice(post, "post", POSTS)
    if post == "projection":
        return project_simplex(v)
    if post == "normalization":
        return normalise(v)
    return check_finite(v, "v", ndim=1)
