"""The matrix mechanisms by name, as a config names them on an alphabet: ``by_name`` (``privest.by_name``, also
``privest.mechanism_by_name``; the protocols' lookup is ``privest.protocols.by_name``, the count mechanisms'
``privest.counts.by_name``).
"""


import numpy as np

from privest._checks import (
    check_choice,
    check_instance,
)
from privest.alphabets import Alphabet
from privest.mechanisms.linear import exponential, geometric, krr, laplace
from privest.mechanisms.planar import planar_geometric, planar_laplace

__all__ = [
    "by_name",
]

def by_name(kind: str, alphabet: Alphabet, eps: float) -> np.ndarray:
    """The matrix of the mechanism named ``kind`` on ``alphabet``, as a config names it.

    Parameters
    ----------
    kind : {"krr", "geometric", "laplace", "exponential"}
        geometric and laplace are the linear mechanisms (eqs. 2-3) on a linear alphabet and the planar ones
        (decisions.md, section 2) on a grid (categories have no geometry: refused); krr and exponential work on every
        alphabet.
    alphabet : Alphabet
        The secrets (and, for these mechanisms, the observables).
    eps : float
        The privacy parameter (per unit of distance for the metric mechanisms: per index step, per km on a grid,
        per unit of the data on a linear alphabet with ``spacing``).

    Returns
    -------
    numpy.ndarray, shape (alphabet.k, alphabet.k)
        The row-stochastic matrix ``A[x, z]``.

    Raises
    ------
    ValueError
        If kind is not one of the names above, is geometric or laplace on categories, or the mechanism rejects eps
        (see ``krr``, ``geometric``, ...).
    """
    check_choice(kind, "kind", ("krr", "exponential", "geometric", "laplace"))
    check_instance(alphabet, "alphabet", Alphabet, "a privest.alphabets.Alphabet")
    if kind == "krr":
        return krr(alphabet.k, eps)
    if kind == "exponential":
        return exponential(alphabet.distances(), eps)
    if alphabet.categories is not None:
        raise ValueError(f"the {kind} mechanism needs a geometry (a linear or planar alphabet); categories have none:"
                         " use krr, exponential, rappor or a standard protocol")
    if alphabet.grid is not None:
        return {"geometric": planar_geometric, "laplace": planar_laplace}[kind](alphabet.grid, eps)
    # eps is per unit of distance: spacing units between neighbours make eps * spacing per index step
    return {"geometric": geometric, "laplace": laplace}[kind](alphabet.k, eps * alphabet.spacing)
