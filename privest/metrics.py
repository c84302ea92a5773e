"""Distances between distributions: the earth mover's distance (free-will section 7; IBU paper section 7)."""

import numpy as np

from privest._checks import check_distances, check_distribution_pair, check_positive

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


def emd_1d(p: np.ndarray, q: np.ndarray, spacing: float = 1.0) -> float:
    """The earth mover's distance on the linear alphabet {0..k-1} * spacing: ``spacing * sum_x |P(x) - Q(x)|``, with
    P and Q the cumulative distributions (the 1-D closed form).

    It agrees with ``emd(p, q, linear_distances(k, spacing))`` to 1e-9 (decisions.md, section 4) and costs O(k).

    Parameters
    ----------
    p, q : array_like, shape (k,)
        Probability distributions over {0..k-1} (non-negative, summing to 1 within 1e-6; renormalised).
    spacing : float
        The distance between neighbouring elements of the alphabet.

    Returns
    -------
    float
        The EMD, in the unit of ``spacing``.

    Raises
    ------
    ValueError
        If p and q are not distributions of one length, or spacing is not positive.

    Examples
    --------
    >>> import privest
    >>> privest.emd_1d([1.0, 0.0, 0.0], [0.0, 0.0, 1.0])   # all the mass moves two steps
    2.0
    >>> privest.emd_1d([0.5, 0.5, 0.0], [0.0, 0.5, 0.5], spacing=10.0)
    10.0
    """
    p, q = check_distribution_pair(p, q)
    spacing = check_positive(spacing, "spacing")
    return float(spacing * np.abs(np.cumsum(p - q)[:-1]).sum())


def total_variation(p: np.ndarray, q: np.ndarray) -> float:
    """The total variation distance ``max_S |P(S) - Q(S)| = 1/2 sum_x |p(x) - q(x)|``: the earth mover's distance under
    the discrete metric (d(x, x') = 1 for x != x'), the error measure on categories, which have no geometry.

    Parameters
    ----------
    p, q : array_like, shape (k,)
        Probability distributions over the same alphabet (non-negative, summing to 1 within 1e-6; renormalised).

    Returns
    -------
    float
        In [0, 1].

    Raises
    ------
    ValueError
        If p and q are not distributions of one length.

    Examples
    --------
    >>> import privest
    >>> privest.total_variation([0.5, 0.5, 0.0], [0.0, 0.5, 0.5])
    0.5
    """
    p, q = check_distribution_pair(p, q)
    return float(0.5 * np.abs(p - q).sum())
