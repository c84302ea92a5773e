"""k-RR (free-will eq. 1) and the mechanisms on the line {0..k-1}: the truncated and untruncated geometric
mechanisms, the Laplace mechanism (free-will eqs. 2-3; IBU paper), and the exponential mechanism on any distances.

epsilon of the geometric, Laplace and exponential mechanisms is per unit of distance (per step on {0..k-1}).
"""

import math

import numpy as np

from privest._checks import (
    check_distances,
    check_int,
    check_positive,
)
from privest.rappor import flip_probability

__all__ = [
    "exponential",
    "geometric",
    "geometric_untruncated",
    "krr",
    "laplace",
    "rappor_flip_probability",
]

def krr(k: int, eps: float) -> np.ndarray:
    """k-ary randomised response (free-will eq. 1): P(z|x) = e^eps / (k-1+e^eps) if z = x, else 1 / (k-1+e^eps).

    Parameters
    ----------
    k : int
        The number of secrets, ``|X| = |Z| = k >= 2``.
    eps : float
        The privacy level, finite and positive.

    Returns
    -------
    numpy.ndarray, shape (k, k)
        The row-stochastic matrix ``A[x, z] = P(z | x)``; it is eps-LDP (``ldp_level(krr(k, eps)) == eps``).

    Raises
    ------
    ValueError
        If k is not an integer >= 2 or eps is not finite and positive.

    Examples
    --------
    >>> import math
    >>> import privest
    >>> print(privest.krr(3, math.log(2)).round(3))   # e^eps = 2: keep 2/4, each other value 1/4
    [[0.5  0.25 0.25]
     [0.25 0.5  0.25]
     [0.25 0.25 0.5 ]]
    """
    k = check_int(k, "k", minimum=2)
    eps = check_positive(eps, "eps")
    other = 1.0 / (math.exp(eps) + (k - 1)) if eps < 700 else math.exp(-eps) / (1.0 + (k - 1) * math.exp(-eps))
    keep = 1.0 / (1.0 + (k - 1) * math.exp(-eps))
    A = np.full((k, k), other)
    np.fill_diagonal(A, keep)
    return A


def rappor_flip_probability(eps: float) -> float:
    """The probability 1 / (1 + e^(eps/2)) that basic one-time RAPPOR flips each bit (free-will eq. 12)."""
    return float(flip_probability(check_positive(eps, "eps")))


def geometric(k: int, eps: float) -> np.ndarray:
    """Truncated linear geometric mechanism on X = Z = {0..k-1} (free-will eqs. 2-3).

    P(z|x) = c_z e^{-eps|z-x|} with c_z = 1/(1+e^-eps) at the borders z in {0, k-1} and (1-e^-eps)/(1+e^-eps) inside:
    the untruncated mechanism with every report beyond a border moved onto it.

    Parameters
    ----------
    k : int
        The number of secrets, k >= 2.
    eps : float
        The privacy level per step of the alphabet, finite and positive.

    Returns
    -------
    numpy.ndarray, shape (k, k)
        The row-stochastic matrix ``A[x, z]``; eps*|x-x'| geo-indistinguishable.

    Raises
    ------
    ValueError
        If k is not an integer >= 2 or eps is not finite and positive.
    """
    k = check_int(k, "k", minimum=2)
    eps = check_positive(eps, "eps")
    x = np.arange(k)
    c = np.full(k, math.tanh(eps / 2))  # (1 - e^-eps) / (1 + e^-eps)
    c[[0, -1]] = 1.0 / (1.0 + math.exp(-eps))
    return np.exp(-eps * np.abs(x[:, None] - x[None, :])) * c[None, :]


def geometric_untruncated(k: int, eps: float, z_min: int, z_max: int) -> np.ndarray:
    """The columns z_min..z_max of the untruncated linear geometric mechanism on secrets {0..k-1} (IBU eq. 6).

    P(z|x) = c e^{-eps|z-x|} for every integer z, c = (1-e^-eps)/(1+e^-eps). Column j of the result is the observable
    z = z_min + j; shape (k, z_max - z_min + 1). This is a sub-matrix of a mechanism with infinitely many columns, so
    its rows sum to less than 1: a secret x with z_min <= x <= z_max loses the mass
    (e^{-eps(x - z_min + 1)} + e^{-eps(z_max - x + 1)}) / (1 + e^-eps) of the reports outside the range. It is meant
    for likelihoods over the reported integers (likely subsets, IBU section 8), not for sampling.
    """
    k = check_int(k, "k", minimum=2)
    eps = check_positive(eps, "eps")
    z_min = check_int(z_min, "z_min")
    z_max = check_int(z_max, "z_max")
    if z_max < z_min:
        raise ValueError(f"z_max must be at least z_min, got z_min={z_min}, z_max={z_max}")
    x = np.arange(k)
    z = np.arange(z_min, z_max + 1)
    return math.tanh(eps / 2) * np.exp(-eps * np.abs(z[None, :] - x[:, None]).astype(np.float64))


def laplace(k: int, eps: float) -> np.ndarray:
    """Linear Laplace mechanism on X = Z = {0..k-1} (IBU paper section 7.3, decisions.md, section 2).

    Continuous noise of density (eps/2) e^{-eps|t|} is added to x and the result is remapped to the nearest integer of
    {0..k-1}: P(z|x) is the noise mass of the cell [z - 1/2, z + 1/2] - x, the border cells extending to -inf and +inf.
    Closed form from the Laplace CDF, each entry computed on the side of x it lies on so that tiny entries keep their
    relative precision.

    Parameters
    ----------
    k : int
        The number of secrets, k >= 2.
    eps : float
        The privacy level per step of the alphabet, finite and positive.

    Returns
    -------
    numpy.ndarray, shape (k, k)
        The row-stochastic matrix ``A[x, z]``; eps*|x-x'| geo-indistinguishable (post-processing of the continuous
        mechanism).

    Raises
    ------
    ValueError
        If k is not an integer >= 2 or eps is not finite and positive.
    """
    k = check_int(k, "k", minimum=2)
    eps = check_positive(eps, "eps")
    x = np.arange(k, dtype=np.float64)
    lower = np.concatenate([[-np.inf], x[1:] - 0.5])[None, :] - x[:, None]
    upper = np.concatenate([x[:-1] + 0.5, [np.inf]])[None, :] - x[:, None]
    width = upper - lower
    with np.errstate(over="ignore", invalid="ignore"):
        above = 0.5 * np.exp(-eps * lower) * -np.expm1(-eps * width)  # cells with lower >= 0
        below = 0.5 * np.exp(eps * upper) * -np.expm1(-eps * width)  # cells with upper <= 0
        # the cell of x: 1 - e^(eps lower)/2 - e^(-eps upper)/2 with expm1, not cancelling to ~1e-16 at a tiny eps
        around = -0.5 * np.expm1(eps * lower) - 0.5 * np.expm1(-eps * upper)
    return np.where(lower >= 0, above, np.where(upper <= 0, below, around))


def exponential(distances: np.ndarray, eps: float) -> np.ndarray:
    """Exponential mechanism in its geo-indistinguishable form (IBU paper section 7.3, decisions.md, section 2).

    P(z|x) = e^{-eps d(x,z)/2} / sum_z' e^{-eps d(x,z')/2} over Z = X.
    For a metric d it is eps*d geo-indistinguishable: the kernel ratio is at most e^{eps d(x,x')/2} by the triangle
    inequality, and so is the ratio of the normalisers; the bound eps*d (not eps*d/2) is what it guarantees.

    Parameters
    ----------
    distances : array_like, shape (k, k)
        d(x, z) between the elements of the alphabet (e.g. ``linear_distances(k)`` or ``Grid.distances()``), k >= 2.
    eps : float
        The privacy level per unit of distance, finite and positive.

    Returns
    -------
    numpy.ndarray, shape (k, k)
        The row-stochastic matrix ``A[x, z]``.

    Raises
    ------
    ValueError
        If distances is not a finite non-negative square matrix of size at least 2, or eps is not finite and positive.
    """
    d = check_distances(distances, "distances")
    eps = check_positive(eps, "eps")
    if d.shape[0] < 2:
        raise ValueError(f"distances must be at least 2 x 2, got shape {d.shape}")
    A = np.exp(-eps * (d - d.min(axis=1, keepdims=True)) / 2)
    return A / A.sum(axis=1, keepdims=True)
