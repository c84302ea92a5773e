"""The geography of the planar datasets: latitude/longitude boxes, their projection to km, and region names.

A region (config ``regions``) is a box on the map cut into a grid of square cells (``privest.alphabets.Grid``);
the projection is fixed in decisions.md, section 5.
"""

from dataclasses import dataclass

import numpy as np

from privest.alphabets import Grid

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


@dataclass(frozen=True)
class Box:
    """A latitude/longitude box, bounds inclusive, projected to km about its centre (decisions.md, section 5)."""

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


def cell_of(grid: Grid, box: Box, lat: np.ndarray, lon: np.ndarray) -> np.ndarray:
    """The cell of ``grid`` of (lat, lon) points inside ``box``, projected with ``box.to_km``; points outside raise."""
    inside = box.contains(lat, lon)
    if not inside.all():
        raise ValueError(f"{int((~inside).sum())} points lie outside the box {box}: drop them first")
    return grid.cell_of_km(*box.to_km(lat, lon))
