"""Closed-form maximum-likelihood estimates: the k-RR MLE (Pinzon et al., AAAI 2026), which IBU reaches.
"""

import math

import numpy as np

from privest._checks import (
    as_array,
    check_positive,
    check_weights,
)
from privest.estimators._calls import refuse_matrix

__all__ = [
    "krr_mle",
]

def krr_mle(counts: np.ndarray, eps: float) -> np.ndarray:
    """The maximum-likelihood estimate of theta from k-RR reports, in closed form (Pinzon, ElSalamouny, Massot, Miller,
    Arcolezi and Palamidessi, AAAI 2026, arXiv 2601.08603).

    Under k-RR, P(z) = q + (p - q) theta_z with p = e^eps/(e^eps + k - 1), q = 1/(e^eps + k - 1). The KKT conditions
    of max sum_z c_z log P(z) on the simplex give theta_z = max(mu c_z - r, 0) with r = q/(p - q) = 1/(e^eps - 1)
    and mu the one value that makes theta sum to 1: the support is the j values with the largest counts, j the largest
    with mu_j c_(j) > r, mu_j = (1 + j r) / (c_(1) + ... + c_(j)). Where the unbiased estimate (c_z/n - q)/(p - q)
    has no negative entry, mu = 1/(n (p - q)) and the two agree. IBU run to convergence reaches it.

    Parameters
    ----------
    counts : array_like, shape (k,)
        How many users reported each value (any non-negative weights with a positive sum).
    eps : float
        The k-RR privacy level.

    Returns
    -------
    numpy.ndarray, shape (k,)
        The MLE: a distribution, zero where the counts are too small.

    Raises
    ------
    ValueError
        If counts is not 1-D of length at least 2, non-negative with a positive sum, or eps is not finite and positive.

    Examples
    --------
    >>> import privest
    >>> privest.krr_mle([50, 30, 15, 5], 1.0).round(4)
    array([0.7705, 0.2295, 0.    , 0.    ])
    """
    refuse_matrix(counts, "counts", "krr_mle", what="counts", constructors=False)
    counts = as_array(counts, "counts")
    if counts.ndim != 1 or counts.size < 2:
        raise ValueError(f"counts must be a 1-D array of at least 2 values, got shape {counts.shape}")
    counts = check_weights(counts, counts.size, "counts")
    eps = check_positive(eps, "eps")
    r = math.exp(-eps) / -math.expm1(-eps)  # 1/(e^eps - 1), without overflow at a large eps
    ordered = np.sort(counts)[::-1]
    j = np.arange(1, counts.size + 1)
    css = np.cumsum(ordered)
    # mu_j c - r = (c + r (j c - S_j)) / S_j, S_j = c_(1) + ... + c_(j): j c - S_j is exact for whole counts, so a
    # tiny eps (r ~ 1/eps) does not cancel r against mu_j c; the last division only removes the sum's rounding
    support = np.flatnonzero(ordered + r * (j * ordered - css) > 0)[-1]
    theta = np.maximum(counts + r * ((support + 1) * counts - css[support]), 0.0)
    return theta / theta.sum()
