"""Distances between distributions: the earth mover's distance (free-will section 7; IBU paper section 7)."""

import numpy as np


def _check_pair(p: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    p, q = np.asarray(p, dtype=np.float64), np.asarray(q, dtype=np.float64)
    if p.ndim != 1 or p.shape != q.shape:
        raise ValueError(f"p and q must be 1-D of one length, got shapes {p.shape} and {q.shape}")
    for name, v in (("p", p), ("q", q)):
        if np.any(v < 0) or not np.all(np.isfinite(v)) or abs(v.sum() - 1) > 1e-6:
            raise ValueError(f"{name} must be a probability distribution (non-negative, summing to 1)")
    return p / p.sum(), q / q.sum()


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
        If p and q are not distributions of one length, or distances is not (k, k).
    """
    p, q = _check_pair(p, q)
    distances = np.asarray(distances, dtype=np.float64)
    if distances.shape != (p.size, p.size):
        raise ValueError(f"distances must have shape ({p.size}, {p.size}), got {distances.shape}")
    import ot  # here, not at the top: POT costs a second to import and the linear alphabet never needs it

    return float(ot.emd2(p, q, distances, numItermax=1_000_000))


def emd_1d(p: np.ndarray, q: np.ndarray, spacing: float = 1.0) -> float:
    """The earth mover's distance on the linear alphabet {0..k-1} * spacing: spacing * sum_x |P(x) - Q(x)|, with
    P and Q the cumulative distributions (the 1-D closed form).

    It agrees with ``emd(p, q, linear_distances(k, spacing))`` to 1e-9 (NOTES section 4) and costs O(k).

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
    p, q = _check_pair(p, q)
    if spacing <= 0:
        raise ValueError(f"spacing must be positive, got {spacing}")
    return float(spacing * np.abs(np.cumsum(p - q)[:-1]).sum())
