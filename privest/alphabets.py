"""Alphabets with a metric: the linear range {0..k-1} and planar grids of square cells.

An index of a planar alphabet is ``row * columns + column``, rows counted from the south edge and columns from the
west edge; a cell's centre in km is ``((column + 0.5) * cell_km, (row + 0.5) * cell_km)`` from the south-west corner.
"""

from dataclasses import dataclass

import numpy as np

from privest.metrics import emd, emd_1d


def linear_distances(k: int, spacing: float = 1.0) -> np.ndarray:
    """Distances |x - x'| * spacing between the elements of the linear alphabet {0..k-1}, shape (k, k).

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
        If k < 1 or spacing is not positive.
    """
    if k < 1:
        raise ValueError(f"k must be a positive integer, got {k}")
    if spacing <= 0:
        raise ValueError(f"spacing must be positive, got {spacing}")
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
        If columns or rows is not positive, or cell_km is not positive.
    """

    columns: int
    rows: int
    cell_km: float

    def __post_init__(self) -> None:
        if self.columns < 1 or self.rows < 1:
            raise ValueError(f"grid columns and rows must be positive, got {self.columns} x {self.rows}")
        if self.cell_km <= 0:
            raise ValueError(f"grid cell_km must be positive, got {self.cell_km}")

    @property
    def k(self) -> int:
        """The number of cells, |X|."""
        return self.columns * self.rows

    def column_row(self, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(column, row) of cell indices."""
        index = np.asarray(index)
        return index % self.columns, index // self.columns

    def index(self, column: np.ndarray, row: np.ndarray) -> np.ndarray:
        """Cell index of (column, row) pairs."""
        return np.asarray(row) * self.columns + np.asarray(column)

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
        column = np.clip(np.floor(np.asarray(east) / self.cell_km), 0, self.columns - 1).astype(np.int64)
        row = np.clip(np.floor(np.asarray(north) / self.cell_km), 0, self.rows - 1).astype(np.int64)
        return self.index(column, row)


@dataclass(frozen=True)
class Alphabet:
    """The secrets of a study: the linear range {0..k-1} (grid None) or the cells of a planar grid.

    Parameters
    ----------
    k : int
        The number of secrets, |X| (``grid.k`` for a planar alphabet).
    grid : Grid, optional
        The planar grid, or None for the linear range.
    """

    k: int
    grid: Grid | None = None

    @classmethod
    def from_dict(cls, spec: dict) -> "Alphabet":
        """From {'kind': 'linear', 'k': k} or {'kind': 'planar', 'columns', 'rows', 'cell_km'}."""
        if spec.get("kind") == "linear":
            return cls(int(spec["k"]))
        if spec.get("kind") == "planar":
            grid = Grid(int(spec["columns"]), int(spec["rows"]), float(spec["cell_km"]))
            return cls(grid.k, grid)
        raise ValueError(f"alphabet kind must be 'linear' or 'planar', got {spec.get('kind')!r}")

    def distances(self) -> np.ndarray:
        return linear_distances(self.k) if self.grid is None else self.grid.distances()

    def emd(self, p: np.ndarray, q: np.ndarray) -> float:
        """EMD with this alphabet's ground distance: the 1-D closed form on the linear range, POT on a grid."""
        return emd_1d(p, q) if self.grid is None else emd(p, q, self.distances())
