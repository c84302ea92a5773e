"""The consistency post-processings of an unbiased frequency estimate: Wang, Lopuhaä-Zwakenberg, Chen, Škorić and Li,
"Locally Differentially Private Frequency Estimation with Consistency" (NDSS 2020), section IV.

An unbiased frequency oracle (the protocols' ``estimate``, INV, RAP) returns a vector that may be negative and
sums to 1 only in expectation. The paper's methods each use the knowledge that frequencies are non-negative and
sum to 1 differently; ``apply`` (and the ``post=`` argument of every unbiased estimator) applies one by name:

==============  =======================================================================  ========  =========  ========
``post``        what it does (paper section IV)                                          non-neg.  sums to 1  unbiased
==============  =======================================================================  ========  =========  ========
``"base"``      nothing (None is the same)                                               no        no         yes
``"base-pos"``  negative estimates to 0 (IV-A)                                           yes       no         no
``"post-pos"``  negative query answers to 0 (IV-A); on single values = base-pos          yes       no         no
``"base-cut"``  estimates below the significance threshold T to 0 (IV-A)                 yes       no         no
``"norm"``      the same delta added to every estimate (IV-B)                            no        yes        yes
``"norm-mul"``  negatives to 0, the rest multiplied by gamma (IV-B); = "normalization"   yes       yes        no
``"norm-cut"``  negatives and the smallest positives to 0 until the rest sum <= 1        yes       <= 1       no
``"norm-sub"``  negatives to 0, the same delta added to the rest (IV-B); = "projection"  yes       yes        no
``"power"``     the posterior mean, fitted power-law prior, Gaussian noise (IV-C)        yes       no         no
``"power-ns"``  Power, then Norm-Sub (IV-C)                                              yes       yes        no
==============  =======================================================================  ========  =========  ========

``"projection"`` and ``"normalization"`` (privest's names before these, INV-P and INV-N of the free-will paper,
section 5.1) stay accepted: they are Norm-Sub (the Euclidean projection onto the simplex, ``project_simplex``) and
Norm-Mul (``normalise``) and give the same bits as before.

Base-Cut, Power and PowerNS need the variance of the raw estimate (the paper's Var*, the variance of a value no
user holds) and Power the number of users n; each estimator passes them (``Protocol.estimate``, ``inv``, ``rap``).
Post-Pos differs from Base-Pos only on answers to queries over several values: ``post_pos`` answers them.
"""

import math
from statistics import NormalDist
from typing import Literal

import numpy as np

from privest._checks import (
    check_between,
    check_choice,
    check_finite,
    check_int,
    check_non_negative_array,
)
from privest.simplex import normalise, project_simplex

__all__ = [
    "ALIASES",
    "CONSISTENCY_POSTS",
    "NEEDS_VARIANCE",
    "POSTS",
    "AnyPost",
    "apply",
    "base_cut",
    "base_pos",
    "norm",
    "norm_cut",
    "norm_mul",
    "norm_sub",
    "post_pos",
    "power",
    "power_ns",
]

CONSISTENCY_POSTS = ("base", "base-pos", "post-pos", "base-cut", "norm", "norm-mul", "norm-cut", "norm-sub", "power",
                     "power-ns")
"""The NDSS 2020 paper's post-processings (section IV), by the names ``post=`` takes."""

ALIASES = {"projection": "norm-sub", "normalization": "norm-mul"}
"""privest's earlier names (INV-P, INV-N) and the paper's method each equals."""

POSTS = (None, *CONSISTENCY_POSTS, *ALIASES)
"""Every value ``post=`` takes in the unbiased estimators (None: the raw estimate)."""

NEEDS_VARIANCE = ("base-cut", "power", "power-ns")
"""The post-processings that need the raw estimate's variance (and Power the number of users)."""

AnyPost = Literal["base", "base-pos", "post-pos", "base-cut", "norm", "norm-mul", "norm-cut", "norm-sub", "power",
                  "power-ns", "projection", "normalization"] | None

_POWER_ALPHA_MAX = 64.0  # the power law's exponent is searched in [0, 64]: at 64 its mean is 1 + 2^-64 users


def base_pos(v: np.ndarray) -> np.ndarray:
    """Base-Pos (NDSS 2020, section IV-A): every negative estimate set to 0.

    Examples
    --------
    >>> from privest import consistency
    >>> consistency.base_pos([0.7, -0.2, 0.5])
    array([0.7, 0. , 0.5])
    """
    return np.maximum(check_finite(v, "v", ndim=1), 0.0)


def post_pos(v: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """Post-Pos (NDSS 2020, section IV-A): the answer of each subset query (the sum of the raw estimates of its
    values), set to 0 if negative. On single-value queries it equals Base-Pos.

    Parameters
    ----------
    v : array_like, shape (k,)
        The raw estimate.
    queries : array_like of bool, shape (m, k)
        Row i marks the values of query i.

    Returns
    -------
    numpy.ndarray, shape (m,)
        max(sum_{x in query i} v_x, 0).
    """
    v = check_finite(v, "v", ndim=1)
    queries = check_non_negative_array(queries, "queries", shape=(None, v.size))
    if not np.all((queries == 0) | (queries == 1)):
        raise ValueError("queries must hold 0/1 (or bool) entries")
    return np.maximum(queries @ v, 0.0)


def base_cut(v: np.ndarray, variance: float | np.ndarray, alpha: float = 0.05) -> np.ndarray:
    """Base-Cut (NDSS 2020, section IV-A): every estimate below the threshold T = Phi^-1(1 - alpha/k) sqrt(Var*) set
    to 0 (a one-sided test at level alpha with Bonferroni's correction over the k values).

    Parameters
    ----------
    v : array_like, shape (k,)
        The raw estimate.
    variance : float or array_like of shape (k,)
        Var*, the variance of a raw estimate whose true frequency is 0 (one value, or one per value).
    alpha : float
        The significance level, in (0, 1); the paper's 0.05 by default.

    Returns
    -------
    numpy.ndarray, shape (k,)
        v where v >= T, else 0.

    Examples
    --------
    >>> from privest import consistency
    >>> consistency.base_cut([0.6, 0.3, 0.05, 0.04], variance=0.0004)  # T = 2.2414 * 0.02 = 0.0448
    array([0.6 , 0.3 , 0.05, 0.  ])
    """
    v = check_finite(v, "v", ndim=1)
    sigma = np.sqrt(_variance(variance, v.size))
    alpha = check_between(alpha, "alpha", 1e-300, 1.0 - 1e-16)
    threshold = NormalDist().inv_cdf(1.0 - alpha / v.size) * sigma
    return np.where(v >= threshold, v, 0.0)


def norm(v: np.ndarray) -> np.ndarray:
    """Norm (NDSS 2020, section IV-B): the same delta = (1 - sum v) / k added to every estimate, so that they sum to
    1. Unbiased when v is (E[delta] = 0); it may stay negative.

    Examples
    --------
    >>> from privest import consistency
    >>> consistency.norm([0.7, -0.2, 0.8])
    array([ 0.6, -0.3,  0.7])
    """
    v = check_finite(v, "v", ndim=1)
    return v + (1.0 - v.sum()) / v.size


def norm_mul(v: np.ndarray) -> np.ndarray:
    """Norm-Mul (NDSS 2020, section IV-B): negatives to 0, the rest multiplied by one gamma so that they sum to 1.
    It is ``normalise`` (free-will section 5.1, INV-N's post-processing)."""
    return normalise(v)


def norm_sub(v: np.ndarray) -> np.ndarray:
    """Norm-Sub (NDSS 2020, section IV-B): negatives to 0 and the same delta added to the positive estimates, until
    all are non-negative and sum to 1. The result is max(v + delta, 0) with sum 1, which is the Euclidean projection
    onto the probability simplex: it is ``project_simplex`` (free-will section 5.1, INV-P's post-processing)."""
    return project_simplex(v)


def norm_cut(v: np.ndarray) -> np.ndarray:
    """Norm-Cut (NDSS 2020, section IV-B): negative estimates and the smallest positive ones set to 0, with the
    threshold theta the smallest for which the estimates at or above it sum to at most 1 (theta > 0: a negative
    estimate is always cut).

    The result is non-negative and sums to at most 1, to 1 only if the positive estimates kept sum to it. (The
    authors' released code, vvv214/LDP_Protocols ``post-process/norm_cut.py``, differs: it also keeps the first
    estimate that takes the sum past 1 and then rescales the kept ones to sum 1. We follow the paper's text.)

    Examples
    --------
    >>> from privest import consistency
    >>> consistency.norm_cut([0.5, 0.4, 0.2, -0.1])
    array([0.5, 0.4, 0. , 0. ])
    """
    v = np.maximum(check_finite(v, "v", ndim=1), 0.0)
    if not v.max(initial=0.0) > 0:
        raise ValueError("v has no positive entry: Norm-Cut (post='norm-cut') is undefined")
    order = np.argsort(-v, kind="stable")
    kept = np.cumsum(v[order]) <= 1.0 + 1e-12
    # ties are kept or cut together: a threshold keeps every estimate at or above it
    cut = order[~kept]
    if cut.size:
        v[v <= v[cut].max()] = 0.0
    return v


def power(v: np.ndarray, variance: float | np.ndarray, n: int) -> np.ndarray:
    """Power (NDSS 2020, section IV-C): each estimate replaced by the expected frequency given the estimate, under a
    power-law prior fitted to the estimates and Gaussian noise of variance Var* (the estimate that minimises the
    expected squared error given that model).

    The prior is over the count c in {1, ..., n}: P(c) proportional to c^-a, with a such that its mean equals the mean
    estimated count n sum(v) / k (a in [0, 64]; a = 64 where that mean is at most about 1, a = 0 where it is at least
    (n + 1) / 2). The noise on the estimated count n v_x is Gaussian with variance n^2 Var*. The result is
    E[c | n v_x] / n, between 1/n and 1: non-negative, not summing to 1 (PowerNS adds Norm-Sub).

    Parameters
    ----------
    v : array_like, shape (k,)
        The raw estimate.
    variance : float or array_like of shape (k,)
        Var*, the variance of the raw estimate of a value whose frequency is 0 (one value, or one per value).
    n : int
        The number of users.

    Returns
    -------
    numpy.ndarray, shape (k,)
        The posterior means, as frequencies.
    """
    v = check_finite(v, "v", ndim=1)
    sigma = np.broadcast_to(np.sqrt(_variance(variance, v.size)), v.shape)
    n_users = check_int(n, "n", minimum=1)
    exponent = _fit_power_law(n_users * v.sum() / v.size, n_users)
    counts, spread = n_users * v, n_users * sigma
    out = np.empty(v.size)
    for x in range(v.size):  # one vectorised sum over the counts near each estimate
        centre = min(max(counts[x], 1.0), float(n_users))
        low = max(1, math.floor(centre - 12 * spread[x]))
        high = min(n_users, math.ceil(centre + 12 * spread[x]))
        grid = np.arange(low, high + 1, dtype=np.float64)
        log_weight = -exponent * np.log(grid) - (grid - counts[x]) ** 2 / (2 * spread[x] ** 2)
        weight = np.exp(log_weight - log_weight.max())
        out[x] = (weight @ grid) / weight.sum() / n_users
    return out


def power_ns(v: np.ndarray, variance: float | np.ndarray, n: int) -> np.ndarray:
    """PowerNS (NDSS 2020, section IV-C): Power, then Norm-Sub: non-negative and summing to 1."""
    return project_simplex(power(v, variance, n))


def apply(v: np.ndarray, post: AnyPost, variance: float | np.ndarray | None = None, n: int | None = None) -> np.ndarray:
    """The post-processing named by ``post`` (table in the module docstring), applied to the raw estimate v.

    Parameters
    ----------
    v : array_like, shape (k,)
        The raw unbiased estimate.
    post : str or None
        One of ``POSTS``.
    variance : float or array_like of shape (k,), optional
        Var* of the raw estimate; required by "base-cut", "power" and "power-ns".
    n : int, optional
        The number of users; required by "power" and "power-ns".

    Returns
    -------
    numpy.ndarray, shape (k,)
        The post-processed estimate.

    Examples
    --------
    >>> from privest import consistency
    >>> v = [0.6, 0.5, -0.1]
    >>> bool((consistency.apply(v, "norm-sub") == consistency.apply(v, "projection")).all())
    True
    """
    check_choice(post, "post", POSTS)
    post = ALIASES.get(post, post)
    if post in NEEDS_VARIANCE and variance is None:
        raise ValueError(f"variance is required by post={post!r} (the raw estimate's Var*)")
    if post in ("power", "power-ns") and n is None:
        raise ValueError(f"n (the number of users) is required by post={post!r}")
    if post in (None, "base"):
        return check_finite(v, "v", ndim=1)
    if post in ("base-pos", "post-pos"):
        return base_pos(v)
    if post == "base-cut":
        return base_cut(v, variance)
    if post == "norm":
        return norm(v)
    if post == "norm-mul":
        return norm_mul(v)
    if post == "norm-cut":
        return norm_cut(v)
    if post == "norm-sub":
        return norm_sub(v)
    if post == "power":
        return power(v, variance, n)
    return power_ns(v, variance, n)


def _variance(variance: float | np.ndarray, k: int) -> np.ndarray:
    """variance as positive finite values: one, or one per value (k,)."""
    variance = check_finite(variance, "variance")
    if variance.ndim > 1 or (variance.ndim == 1 and variance.shape != (k,)):
        raise ValueError(f"variance must be one number or one per value ({k},), got shape {variance.shape}")
    if not np.all(variance > 0):
        raise ValueError(f"variance must be positive, found {variance.min()!r}")
    return variance


def _power_sum(s: float, n: int) -> float:
    """sum_{c=1}^{n} c^-s: the first 4096 terms summed, the rest by Euler-Maclaurin to the f' term (its error,
    below s (s+1) (s+2) 4096^-(s+3) / 720, is under 1e-12 of the sum)."""
    head = min(n, 4096)
    total = float(np.sum(np.arange(1, head + 1, dtype=np.float64) ** -s))
    if n > head:
        a, b = head + 1.0, float(n)
        exponent = 1.0 - s
        integral = math.log(b / a) if exponent == 0 else a**exponent * math.expm1(exponent * math.log(b / a)) / exponent
        total += integral + (a**-s + b**-s) / 2 + s * (a ** (-s - 1) - b ** (-s - 1)) / 12
    return total


def _fit_power_law(mean_count: float, n: int) -> float:
    """The exponent a in [0, 64] whose power law c^-a over {1..n} has mean ``mean_count`` (bisection: the mean falls
    as a grows, from (n + 1) / 2 at a = 0)."""
    def mean(a: float) -> float:
        return _power_sum(a - 1.0, n) / _power_sum(a, n)

    if mean_count >= mean(0.0):
        return 0.0
    if mean_count <= mean(_POWER_ALPHA_MAX):
        return _POWER_ALPHA_MAX
    low, high = 0.0, _POWER_ALPHA_MAX
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (middle, high) if mean(middle) > mean_count else (low, middle)
    return (low + high) / 2
