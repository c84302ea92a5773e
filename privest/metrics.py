"""Distances between distributions: the earth mover's distance (free-will section 7; IBU paper section 7)."""

import numpy as np

from privest._checks import check_distances, check_distribution_pair, check_flag, check_positive, check_vector_pair

__all__ = [
    "emd",
    "emd_1d",
    "total_variation",
]


def emd(p: np.ndarray, q: np.ndarray, distances: np.ndarray) -> float:
    """The earth mover's distance between p and q with the ground distance ``distances`` (k, k), by POT's ot.emd2.

    The minimum cost of transporting the mass of p onto q (free-will section 7, footnote 2); exact (network simplex).
    Imports POT on first use.

    Parameters
    ----------
    p, q : array_like, shape (k,)
        Probability distributions over the same alphabet (non-negative, summing to 1 within 1e-6; renormalised).
    distances : array_like, shape (k, k)
        The ground distance between the elements, e.g. ``Grid.distances()`` (km) or ``linear_distances(k)``.

    Returns
    -------
    float
        The EMD, in the unit of ``distances``.

    Raises
    ------
    ValueError
        If p and q are not distributions of one length, or distances is not (k, k), finite and non-negative.
    TypeError
        If an argument is not an array of numbers.
    """
    p, q = check_distribution_pair(p, q)
    distances = check_distances(distances, "distances", p.size)
    import ot  # here, not at the top: POT costs a second to import and the linear alphabet never needs it

    return float(ot.emd2(p, q, distances, numItermax=1_000_000))


def emd_1d(p: np.ndarray, q: np.ndarray, spacing: float = 1.0, *, signed: bool = False) -> float:
    """The earth mover's distance on the linear alphabet {0..k-1} * spacing: ``spacing * sum_x |P(x) - Q(x)|``, with
    P and Q the cumulative distributions (the 1-D closed form).

    It agrees with ``emd(p, q, linear_distances(k, spacing))`` to 1e-9 (decisions.md, section 4) and costs O(k).

    With ``signed=True`` p and q may be any finite vectors, such as a raw unbiased estimate (``inv``,
    ``Protocol.estimate``: negative entries, a sum off 1), and the same formula is applied to them as they are, over
    the whole alphabet: ``spacing * sum_{x=0}^{k-1} |P(x) - Q(x)|``, P and Q their cumulative sums, not renormalised.
    The last term, ``|sum p - sum q|``, charges the mass one vector has and the other lacks one step; for two
    distributions it is 0 and the result is the EMD. This is how the estimator comparison study scores every
    estimate, raw or post-processed (``privest_studies.estimator_comparison.distance``).

    Parameters
    ----------
    p, q : array_like, shape (k,)
        Probability distributions over {0..k-1} (non-negative, summing to 1 within 1e-6; renormalised); with
        ``signed=True``, any finite vectors of one length.
    spacing : float
        The distance between neighbouring elements of the alphabet.
    signed : bool
        Score vectors that are not distributions, as they are (keyword only).

    Returns
    -------
    float
        The EMD, in the unit of ``spacing``.

    Raises
    ------
    ValueError
        If p and q are not of one length, are not distributions (without ``signed``; the message names
        ``signed=True``) or hold a NaN or infinity, or spacing is not positive.

    Examples
    --------
    >>> import privest
    >>> privest.emd_1d([1.0, 0.0, 0.0], [0.0, 0.0, 1.0])   # all the mass moves two steps
    2.0
    >>> privest.emd_1d([0.5, 0.5, 0.0], [0.0, 0.5, 0.5], spacing=10.0)
    10.0
    >>> privest.emd_1d([0.5, -0.25, 0.75], [0.0, 0.5, 0.5], signed=True)   # |0.5| + |-0.25| + |0|
    0.75
    """
    spacing = check_positive(spacing, "spacing")
    if check_flag(signed, "signed"):
        p, q = check_vector_pair(p, q)
        return float(spacing * np.abs(np.cumsum(p - q)).sum())
    p, q = check_distribution_pair(p, q, "a raw (signed) estimate is scored by emd_1d(p, q, signed=True)")
    return float(spacing * np.abs(np.cumsum(p - q)[:-1]).sum())


def total_variation(p: np.ndarray, q: np.ndarray, *, signed: bool = False) -> float:
    """The total variation distance ``max_S |P(S) - Q(S)| = 1/2 sum_x |p(x) - q(x)|``: the earth mover's distance under
    the discrete metric (d(x, x') = 1 for x != x'), the error measure on categories, which have no geometry.

    With ``signed=True`` p and q may be any finite vectors (a raw unbiased estimate) and ``1/2 sum_x |p(x) - q(x)|``
    is applied to them as they are, not renormalised: the estimator comparison study's score on a categorical
    alphabet, as ``emd_1d(..., signed=True)`` is on an ordinal one.

    Parameters
    ----------
    p, q : array_like, shape (k,)
        Probability distributions over the same alphabet (non-negative, summing to 1 within 1e-6; renormalised);
        with ``signed=True``, any finite vectors of one length.
    signed : bool
        Score vectors that are not distributions, as they are (keyword only).

    Returns
    -------
    float
        In [0, 1] for two distributions.

    Raises
    ------
    ValueError
        If p and q are not of one length, are not distributions (without ``signed``; the message names
        ``signed=True``) or hold a NaN or infinity.

    Examples
    --------
    >>> import privest
    >>> privest.total_variation([0.5, 0.5, 0.0], [0.0, 0.5, 0.5])
    0.5
    >>> privest.total_variation([0.75, 0.5, -0.25], [0.0, 0.5, 0.5], signed=True)
    0.75
    """
    if check_flag(signed, "signed"):
        p, q = check_vector_pair(p, q)
        return float(0.5 * np.abs(p - q).sum())
    p, q = check_distribution_pair(p, q, "a raw (signed) estimate is scored by total_variation(p, q, signed=True)")
    return float(0.5 * np.abs(p - q).sum())
