"""The scores of a heavy-hitter list against the true top items (``privest.heavy_hitters``): precision, recall and
the normalised cumulative rank (Wang et al. 2019, its evaluation metric).
"""

from typing import Any

import numpy as np

from privest._checks import check_items

__all__ = [
    "ncr",
    "precision",
    "recall",
]


def _ranks(found: Any, truth: Any) -> tuple[np.ndarray, np.ndarray]:
    """found and truth as uint64 arrays of distinct items (an empty list: no items)."""
    found, truth = (np.zeros(0, dtype=np.uint64) if isinstance(v, list | tuple) and not v else v
                    for v in (found, truth))
    found = check_items(found, "found", None, ndim=1)
    truth = check_items(truth, "truth", None, ndim=1)
    if np.unique(found).size != found.size or np.unique(truth).size != truth.size:
        raise ValueError("found and truth must each list distinct items")
    return found, truth


def precision(found: Any, truth: Any) -> float:
    """The share of the found items that are true heavy hitters: ``len(found ∩ truth) / len(found)`` (0 if none found).

    Parameters
    ----------
    found : array_like of int, shape (t,)
        The items a protocol found (distinct).
    truth : array_like of int, shape (k,)
        The true top items (distinct).

    Examples
    --------
    >>> from privest.heavy_hitters import precision
    >>> precision([1, 2, 3, 4], [1, 3, 5])
    0.5
    """
    found, truth = _ranks(found, truth)
    return float(np.isin(found, truth).sum() / found.size) if found.size else 0.0


def recall(found: Any, truth: Any) -> float:
    """The share of the true heavy hitters that were found: ``len(found ∩ truth) / len(truth)``.

    Parameters
    ----------
    found, truth
        As in ``precision`` (truth not empty).

    Examples
    --------
    >>> from privest.heavy_hitters import recall
    >>> recall([1, 2, 3, 4], [1, 3, 5, 6])
    0.5
    """
    found, truth = _ranks(found, truth)
    if truth.size == 0:
        raise ValueError("truth must list at least one item")
    return float(np.isin(truth, found).sum() / truth.size)


def ncr(found: Any, truth: Any) -> float:
    """The normalised cumulative rank (Wang et al. 2019, its evaluation metric): the true top-k items in rank order get
    the qualities k, k-1, ..., 1; NCR is the qualities of the found ones over k (k + 1) / 2, their sum.

    Parameters
    ----------
    found : array_like of int
        The items a protocol found (distinct; their order does not matter).
    truth : array_like of int, shape (k,)
        The true top items, most frequent first (distinct, not empty).

    Examples
    --------
    >>> from privest.heavy_hitters import ncr
    >>> ncr([10, 30], [10, 20, 30])  # (3 + 1) / 6
    0.6666666666666666
    """
    found, truth = _ranks(found, truth)
    if truth.size == 0:
        raise ValueError("truth must list at least one item")
    quality = np.arange(truth.size, 0, -1, dtype=np.float64)
    return float(quality[np.isin(truth, found)].sum() / quality.sum())


