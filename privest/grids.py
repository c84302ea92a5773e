"""Alphabets with a metric: the linear range {0..k-1} and planar grids of square cells.

An index of a planar alphabet is ``row * columns + column``, rows counted from the south edge and columns from the
west edge; a cell's centre in km is ``((column + 0.5) * cell_km, (row + 0.5) * cell_km)`` from the south-west corner.
"""

from dataclasses import dataclass

import numpy as np

KM_PER_DEGREE_LATITUDE = 110.574
KM_PER_DEGREE_LONGITUDE_AT_EQUATOR = 111.320


def region_title(region: str) -> str:
    """A region key of config `regions` as prose: 'san_francisco' -> 'San Francisco'."""
    return region.replace("_", " ").title()


def region_name(spec: dict) -> str:
    """The planar region of an alphabet file as figures and the report print it: 'San Francisco (24 × 16 cells of
    0.5 km)'."""
    name = region_title(str(spec.get("region", "planar")))
    return f"{name} ({spec['columns']} × {spec['rows']} cells of {spec['cell_km']:g} km)"


def linear_distances(k: int, spacing: float = 1.0) -> np.ndarray:
    """Distances |x - x'| * spacing between the elements of the linear alphabet {0..k-1}, shape (k, k)."""
    if k < 1:
        raise ValueError(f"k must be a positive integer, got {k}")
    if spacing <= 0:
        raise ValueError(f"spacing must be positive, got {spacing}")
    x = np.arange(k, dtype=np.float64) * spacing
    return np.abs(x[:, None] - x[None, :])


@dataclass(frozen=True)
class Box:
    """A latitude/longitude box, bounds inclusive, projected to km about its centre (NOTES section 5)."""

    lat_min: float
    lat_max: float
    lon_min: float
    lon_max: float

    def __post_init__(self) -> None:
        if not (self.lat_min < self.lat_max and self.lon_min < self.lon_max):
            raise ValueError(f"box bounds must satisfy min < max, got {self}")

    def contains(self, lat: np.ndarray, lon: np.ndarray) -> np.ndarray:
        """Boolean mask of the points inside the box (bounds inclusive)."""
        lat, lon = np.asarray(lat, dtype=np.float64), np.asarray(lon, dtype=np.float64)
        return (lat >= self.lat_min) & (lat <= self.lat_max) & (lon >= self.lon_min) & (lon <= self.lon_max)

    def to_km(self, lat: np.ndarray, lon: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Equirectangular (east, north) km of points from the box's south-west corner."""
        centre = np.radians((self.lat_min + self.lat_max) / 2)
        east = (np.asarray(lon, dtype=np.float64) - self.lon_min) * KM_PER_DEGREE_LONGITUDE_AT_EQUATOR * np.cos(centre)
        north = (np.asarray(lat, dtype=np.float64) - self.lat_min) * KM_PER_DEGREE_LATITUDE
        return east, north


@dataclass(frozen=True)
class Grid:
    """A planar alphabet: ``columns`` x ``rows`` square cells of side ``cell_km``."""

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

    def cell_of(self, box: Box, lat: np.ndarray, lon: np.ndarray) -> np.ndarray:
        """The cell of (lat, lon) points inside ``box``, projected with ``box.to_km``; points outside raise."""
        inside = box.contains(lat, lon)
        if not inside.all():
            raise ValueError(f"{int((~inside).sum())} points lie outside the box {box}: drop them first")
        return self.cell_of_km(*box.to_km(lat, lon))
