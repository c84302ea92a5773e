"""Alphabets with a metric: the linear range {0..k-1} (its neighbours ``spacing`` apart: equal bins of a numeric
column), planar grids of square cells, and categories with the discrete metric (no geometry: the EMD is then the
total variation distance).

An index of a planar alphabet is ``row * columns + column``, rows counted from the south edge and columns from the
west edge; a cell's centre in km is ``((column + 0.5) * cell_km, (row + 0.5) * cell_km)`` from the south-west corner.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from privest._checks import check_finite, check_instance, check_int, check_integers, check_mapping, check_positive
from privest.metrics import emd, emd_1d, total_variation

__all__ = [
    "Alphabet",
    "Grid",
    "linear_distances",
]


def linear_distances(k: int, spacing: float = 1.0) -> np.ndarray:
    """Distances ``|x - x'| * spacing`` between the elements of the linear alphabet {0..k-1}, shape (k, k).

    Parameters
    ----------
    k : int
        The number of elements, k >= 1.
    spacing : float
        The distance between neighbouring elements.

    Returns
    -------
    numpy.ndarray, shape (k, k)
        The ground distance for ``emd`` and ``exponential``.

    Raises
    ------
    ValueError
        If k < 1 or spacing is not finite and positive.
    TypeError
        If k is not an integer or spacing not a number.
    """
    k = check_int(k, "k", minimum=1)
    spacing = check_positive(spacing, "spacing")
    x = np.arange(k, dtype=np.float64) * spacing
    return np.abs(x[:, None] - x[None, :])


@dataclass(frozen=True)
class Grid:
    """A planar alphabet: ``columns`` x ``rows`` square cells of side ``cell_km``.

    Cell ``row * columns + column``, rows counted from the south edge and columns from the west edge; the centre of a
    cell is ``((column + 0.5) * cell_km, (row + 0.5) * cell_km)`` km from the south-west corner. Used by
    ``planar_geometric`` and ``planar_laplace``; ``distances()`` is the ground distance of ``emd``.

    Parameters
    ----------
    columns, rows : int
        The grid's size, both positive.
    cell_km : float
        The side of a cell in km, positive.

    Raises
    ------
    ValueError
        If columns or rows is not positive, or cell_km is not finite and positive.
    TypeError
        If columns or rows is not an integer, or cell_km not a number.
    """

    columns: int
    rows: int
    cell_km: float

    def __post_init__(self) -> None:
        check_int(self.columns, "columns", minimum=1)
        check_int(self.rows, "rows", minimum=1)
        check_positive(self.cell_km, "cell_km")

    @property
    def k(self) -> int:
        """The number of cells, ``|X|``."""
        return self.columns * self.rows

    def column_row(self, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(column, row) of cell indices (integers in 0..k-1)."""
        index = check_integers(index, "index", 0, self.k)
        return index % self.columns, index // self.columns

    def index(self, column: np.ndarray, row: np.ndarray) -> np.ndarray:
        """Cell index of (column, row) pairs (integers in 0..columns-1 and 0..rows-1)."""
        column = check_integers(column, "column", 0, self.columns)
        return check_integers(row, "row", 0, self.rows) * self.columns + column

    def centres(self) -> np.ndarray:
        """Cell centres in km from the south-west corner, shape (k, 2) as (east, north)."""
        column, row = self.column_row(np.arange(self.k))
        return np.column_stack([(column + 0.5) * self.cell_km, (row + 0.5) * self.cell_km])

    def distances(self) -> np.ndarray:
        """Euclidean distances in km between cell centres, shape (k, k)."""
        c = self.centres()
        return np.sqrt(((c[:, None, :] - c[None, :, :]) ** 2).sum(axis=-1))

    def cell_of_km(self, east: np.ndarray, north: np.ndarray) -> np.ndarray:
        """The cell of points given in km from the south-west corner: floor(km / cell), clamped to the grid."""
        east, north = check_finite(east, "east"), check_finite(north, "north")
        column = np.clip(np.floor(east / self.cell_km), 0, self.columns - 1).astype(np.int64)
        row = np.clip(np.floor(north / self.cell_km), 0, self.rows - 1).astype(np.int64)
        return self.index(column, row)


@dataclass(frozen=True)
class Alphabet:
    """The secrets of a study: the linear range {0..k-1} (grid None), the cells of a planar grid, or k categories.

    Parameters
    ----------
    k : int
        The number of secrets, ``|X|`` (``grid.k`` for a planar alphabet, ``len(categories)`` for categories).
    grid : Grid, optional
        The planar grid, or None.
    spacing : float
        Linear alphabet only: the distance between neighbouring elements, in the unit of the data (the width of a
        bin of a numeric column; 1 for index steps). The metric mechanisms' eps is per this unit.
    categories : tuple of str, optional
        Categories with the discrete metric d(x, x') = 1 for x != x' (no order, no geometry): the EMD is then the
        total variation distance, and only mechanisms that need no geometry apply (k-RR, exponential, RAPPOR and
        the standard protocols; ``privest.mechanisms.by_name`` refuses geometric and Laplace).

    Examples
    --------
    >>> from privest.alphabets import Alphabet
    >>> Alphabet(3, spacing=5.0).emd([1.0, 0.0, 0.0], [0.0, 0.0, 1.0])   # two bins of 5 units
    10.0
    >>> Alphabet(3, categories=("a", "b", "c")).emd([1.0, 0.0, 0.0], [0.0, 0.5, 0.5])   # total variation
    1.0
    """

    k: int
    grid: Grid | None = None
    spacing: float = 1.0
    categories: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        check_int(self.k, "k", minimum=1)
        check_positive(self.spacing, "spacing")
        if self.grid is not None:
            check_instance(self.grid, "grid", Grid, "a privest.alphabets.Grid or None")
            if self.k != self.grid.k:
                raise ValueError(f"k must be the grid's number of cells {self.grid.k}, got {self.k}")
        if (self.grid is not None or self.categories is not None) and self.spacing != 1.0:
            raise ValueError("spacing applies to the linear alphabet only")
        if self.categories is not None:
            if self.grid is not None:
                raise ValueError("an alphabet has a grid or categories, not both")
            if not isinstance(self.categories, tuple) or not all(isinstance(c, str) for c in self.categories):
                raise TypeError("categories must be a tuple of strings")
            if len(self.categories) != self.k or len(set(self.categories)) != self.k:
                raise ValueError(f"categories must be k = {self.k} distinct strings, got {len(self.categories)} "
                                 f"({len(set(self.categories))} distinct)")

    @property
    def kind(self) -> str:
        """'linear', 'planar' or 'categorical'."""
        return "planar" if self.grid is not None else "categorical" if self.categories is not None else "linear"

    @classmethod
    def from_dict(cls, spec: Mapping) -> "Alphabet":
        """From {'kind': 'linear', 'k': k, 'spacing'?: s}, {'kind': 'planar', 'columns', 'rows', 'cell_km'} or
        {'kind': 'categorical', 'categories': [...]} (other keys ignored).

        Raises TypeError if spec is not a mapping, ValueError if a key is missing or a value is not a valid size."""
        check_mapping(spec, "spec", ["kind"])
        if spec["kind"] == "linear":
            check_mapping(spec, "spec", ["k"])
            return cls(check_int(spec["k"], "spec['k']", minimum=1),
                       spacing=float(check_positive(spec.get("spacing", 1.0), "spec['spacing']")))
        if spec["kind"] == "planar":
            check_mapping(spec, "spec", ["columns", "rows", "cell_km"])
            grid = Grid(check_int(spec["columns"], "spec['columns']", minimum=1),
                        check_int(spec["rows"], "spec['rows']", minimum=1),
                        float(check_positive(spec["cell_km"], "spec['cell_km']")))
            return cls(grid.k, grid)
        if spec["kind"] == "categorical":
            check_mapping(spec, "spec", ["categories"])
            categories = tuple(str(c) for c in spec["categories"])
            return cls(len(categories), categories=categories)
        raise ValueError(f"spec['kind'] must be 'linear', 'planar' or 'categorical', got {spec['kind']!r}")

    def distances(self) -> np.ndarray:
        """The ground distance (k, k): ``|x - x'| * spacing``, km between cell centres, or the discrete metric."""
        if self.categories is not None:
            return 1.0 - np.eye(self.k)
        return linear_distances(self.k, self.spacing) if self.grid is None else self.grid.distances()

    def emd(self, p: np.ndarray, q: np.ndarray) -> float:
        """EMD with this alphabet's ground distance: the 1-D closed form on the linear range, POT on a grid, the
        total variation distance (the EMD under the discrete metric) on categories."""
        if self.categories is not None:
            return total_variation(p, q)
        return emd_1d(p, q, self.spacing) if self.grid is None else emd(p, q, self._ground_distances)

    @cached_property
    def _ground_distances(self) -> np.ndarray:
        """The grid's distances, computed once (read-only): a study scores thousands of estimates on one alphabet,
        and building the (k, k) matrix cost a third of each EMD at k = 384."""
        distances = self.distances()
        distances.flags.writeable = False
        return distances
