"""Read the raw Adult and Gowalla files and discretise them into secrets (decisions.md, section 5).

Adult (UCI): ``adult.data`` + ``adult.test`` = 48,842 persons; ages on X = {0..k-1}, k = 100; binary targets income
(>50K), gender (Male) and young (age < threshold) for the count-data paper.

Gowalla (SNAP): either the full ``loc-gowalla_totalCheckins.txt(.gz)`` (tab separated: user, ISO time, latitude,
longitude, location id) or the mirror's San Francisco extract ``gowalla_sf_box_latlon.csv`` (``latitude,longitude``
lines, no header). Regions are config values: a box (bounds, or a centre and a side in km) and a grid of square cells.
"""

import gzip
import logging
import math
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, TextIO

import numpy as np
import pandas as pd

from privest.alphabets import Grid
from privest_studies.files import file_digests
from privest_studies.regions import KM_PER_DEGREE_LATITUDE, KM_PER_DEGREE_LONGITUDE_AT_EQUATOR, Box, cell_of

ADULT_COLUMNS = (
    "age", "workclass", "fnlwgt", "education", "education_num", "marital_status", "occupation", "relationship",
    "race", "sex", "capital_gain", "capital_loss", "hours_per_week", "native_country", "income",
)  # fmt: skip
ADULT_INTEGER_COLUMNS = ("age", "fnlwgt", "education_num", "capital_gain", "capital_loss", "hours_per_week")
ADULT_INCOME_LABELS = ("<=50K", ">50K")
ADULT_SEX_LABELS = ("Female", "Male")
ADULT_MISSING = "?"

CHECKIN_KINDS = ("snap_full", "sf_box")
# The extent of the mirror's San Francisco extract: the full file filtered with this box, bounds inclusive.
SF_BOX_EXTENT = Box(lat_min=37.7228, lat_max=37.7946, lon_min=-122.5153, lon_max=-122.3789)
PLANAR_REGIONS = ("manhattan", "san_francisco")
COORDINATE_RANGES = {"latitude": (-90.0, 90.0), "longitude": (-180.0, 180.0)}

log = logging.getLogger(__name__)


# ---------------------------------------------------------------------------------------------------------- Adult


def _adult_lines(path: Path) -> pd.Series:
    """The record lines of one Adult file, indexed by their 1-based line number (blank and ``|`` lines skipped)."""
    lines = pd.Series(path.read_text(encoding="utf-8").splitlines(), dtype=object)
    lines.index = lines.index + 1
    return lines[(lines.str.strip() != "") & ~lines.str.startswith("|")]


def _fail(path: Path, line: int, reason: str) -> None:
    """Raise the error of a malformed Adult record."""
    raise ValueError(f"{path}: line {line}: malformed Adult record: {reason}")


def _read_adult_file(path: Path) -> pd.DataFrame:
    """One Adult file as a DataFrame of strings (stripped), with its ``line`` numbers; malformed records raise."""
    lines = _adult_lines(path)
    if lines.empty:
        raise ValueError(f"{path}: no Adult records")
    n_fields = lines.str.count(",") + 1
    bad = n_fields != len(ADULT_COLUMNS)
    if bad.any():
        line = int(bad.idxmax())
        _fail(path, line, f"expected {len(ADULT_COLUMNS)} comma-separated fields, got {n_fields[line]}")
    fields = lines.str.split(",", expand=True).apply(lambda column: column.str.strip())
    fields.columns = list(ADULT_COLUMNS)
    fields["income"] = fields["income"].str.removesuffix(".")  # adult.test writes "<=50K." and ">50K."
    fields.insert(0, "line", fields.index.to_numpy())
    return fields.reset_index(drop=True)


def _type_adult(fields: pd.DataFrame, path: Path) -> pd.DataFrame:
    """Integer columns as nullable Int64, ``?`` as missing; unknown income or sex labels raise."""
    df = fields.replace(ADULT_MISSING, pd.NA)
    for column in ADULT_INTEGER_COLUMNS:
        numbers = pd.to_numeric(df[column], errors="coerce")
        bad = (numbers.isna() & df[column].notna()) | (numbers.notna() & (numbers % 1 != 0))
        if bad.any():
            row = int(bad.to_numpy().argmax())
            _fail(path, int(df["line"].iloc[row]), f"{column} is {df[column].iloc[row]!r}, not an integer")
        df[column] = numbers.astype("Int64")
    for column, labels in (("income", ADULT_INCOME_LABELS), ("sex", ADULT_SEX_LABELS)):
        bad = df[column].notna() & ~df[column].isin(labels)
        if bad.any():
            row = int(bad.to_numpy().argmax())
            _fail(path, int(df["line"].iloc[row]), f"{column} is {df[column].iloc[row]!r}, not one of {labels}")
    return df


def read_adult(paths: str | os.PathLike | Iterable[str | os.PathLike]) -> pd.DataFrame:
    """Read UCI Adult files (``adult.data``, ``adult.test``) into one DataFrame, one row per person, in file order.

    Columns: ``source`` (the path as given), ``line`` (1-based line number in it), then the 15 Adult columns in snake
    case; integer columns are nullable Int64, the others strings; ``?`` is missing; income is ``<=50K`` or ``>50K``
    (the test file's trailing period removed). A malformed record raises ValueError naming the file and the line.
    """
    paths = [paths] if isinstance(paths, str | os.PathLike) else list(paths)
    if not paths:
        raise ValueError("read_adult needs at least one file")
    frames = []
    for path in map(Path, paths):
        df = _type_adult(_read_adult_file(path), path)
        df.insert(0, "source", str(path))
        frames.append(df)
    return pd.concat(frames, ignore_index=True)


def adult_ages(df: pd.DataFrame, k: int = 100) -> np.ndarray:
    """The ages as secrets on X = {0..k-1} (int64); a missing age or one outside X raises ValueError."""
    age = df["age"]
    if age.isna().any():
        raise ValueError(f"{int(age.isna().sum())} persons have no age: drop them first (see adult_table)")
    ages = age.to_numpy(dtype=np.int64)
    outside = (ages < 0) | (ages >= k)
    if outside.any():
        raise ValueError(f"{int(outside.sum())} ages lie outside X = {{0..{k - 1}}} (max {ages.max()}): raise k")
    return ages


def adult_targets(df: pd.DataFrame, young_below: int = 30) -> pd.DataFrame:
    """The count-data paper's binary targets, int8 0/1: income (>50K), gender (Male), young (age < young_below).

    Missing values raise: drop the persons without age, sex or income first (see ``adult_table``).
    """
    needed = df[["age", "sex", "income"]]
    if needed.isna().any().any():
        raise ValueError(f"missing values in {needed.columns[needed.isna().any()].tolist()}: drop them first")
    return pd.DataFrame(
        {
            "income": (df["income"] == ">50K").to_numpy(dtype=np.int8),
            "gender": (df["sex"] == "Male").to_numpy(dtype=np.int8),
            "young": (df["age"].to_numpy(dtype=np.int64) < young_below).astype(np.int8),
        },
        index=df.index,
    )


def adult_table(df: pd.DataFrame, k: int = 100, young_below: int = 30) -> tuple[pd.DataFrame, dict[str, int]]:
    """The per-person table ``age, income, gender, young`` and the persons dropped, by reason.

    Schema: age int64 on {0..k-1}; income, gender, young int8 in {0, 1} (>50K, Male, age < young_below). Persons
    without age, sex or income are dropped (none in the real data); ``?`` in any other column keeps the person.
    """
    dropped = {f"missing_{column}": int(df[column].isna().sum()) for column in ("age", "sex", "income")}
    kept = df.dropna(subset=["age", "sex", "income"])
    table = pd.DataFrame({"age": adult_ages(kept, k)}, index=kept.index).join(adult_targets(kept, young_below))
    return table.reset_index(drop=True), {reason: n for reason, n in dropped.items() if n}


def empirical_theta(secrets: np.ndarray, k: int) -> np.ndarray:
    """The empirical distribution of secrets on {0..k-1}: counts / n, float64 of shape (k,)."""
    secrets = np.asarray(secrets)
    if secrets.size == 0:
        raise ValueError("empirical_theta needs at least one secret")
    if not np.issubdtype(secrets.dtype, np.integer):
        raise ValueError(f"secrets must be integers, got dtype {secrets.dtype}")
    if secrets.min() < 0 or secrets.max() >= k:
        raise ValueError(f"secrets must lie in {{0..{k - 1}}}, got range {secrets.min()}..{secrets.max()}")
    return np.bincount(secrets, minlength=k).astype(np.float64) / secrets.size


def discretise_adult(
    paths: Iterable[str | os.PathLike], k: int = 100, young_below: int = 30
) -> tuple[pd.DataFrame, np.ndarray, dict[str, Any], dict[str, Any]]:
    """Read the Adult files: (per-person table (see ``adult_table``), theta of the ages, alphabet, provenance).

    The alphabet is ``{kind: linear, k}``; the secrets are the table's ``age`` column.
    """
    paths = [Path(p) for p in paths]
    frames = [read_adult(path) for path in paths]
    df = pd.concat(frames, ignore_index=True)
    table, dropped = adult_table(df, k, young_below)
    provenance = {
        "sources": [
            {"file": str(path), "sha256": file_digests(path)["sha256"], "records": len(frame)}
            for path, frame in zip(paths, frames, strict=True)
        ],
        "rows_read": len(df),
        "rows_kept": len(table),
        "rows_dropped": dropped,
        "k": k,
        "young_below": young_below,
        "age_range": [int(table["age"].min()), int(table["age"].max())],
        "counts": {column: int(table[column].sum()) for column in ("income", "gender", "young")},
    }
    return table, empirical_theta(table["age"].to_numpy(), k), {"kind": "linear", "k": k}, provenance


# -------------------------------------------------------------------------------------------------------- Gowalla


def _is_gzip(path: Path) -> bool:
    """Whether a file is gzip-compressed (by its magic bytes, not its name)."""
    with open(path, "rb") as f:
        return f.read(2) == b"\x1f\x8b"


def _open_text(path: Path) -> TextIO:
    """A text stream of a plain or gzip-compressed file."""
    return gzip.open(path, "rt", encoding="utf-8") if _is_gzip(path) else open(path, encoding="utf-8")


def checkin_kind(path: str | os.PathLike) -> str:
    """``snap_full`` (tab separated, 5 fields) or ``sf_box`` (``lat,lon``), from the first non-blank line."""
    path = Path(path)
    with _open_text(path) as f:
        first = next((line.strip() for line in f if line.strip()), "")
    if first.count("\t") == 4:
        return "snap_full"
    if first.count(",") == 1 and "\t" not in first:
        return "sf_box"
    raise ValueError(
        f"{path}: not a Gowalla check-in file (first line {first[:80]!r}): expected SNAP's 5 tab-separated"
        " fields or 'latitude,longitude'"
    )


def read_checkins(path: str | os.PathLike) -> tuple[np.ndarray, np.ndarray, str]:
    """Latitudes and longitudes (float64) of every check-in in the file, in file order, and the file's kind.

    Accepts the full SNAP file (plain or gzip) or the San Francisco extract; detected by content. A record whose
    coordinates are not numbers raises ValueError naming the file and the record (blank lines are skipped); the other
    fields are not checked (the pinned checksums vouch for them). A latitude outside [-90, 90], a longitude outside
    [-180, 180], or an infinite coordinate raises ValueError naming the file, the field and the record.
    """
    path = Path(path)
    kind = checkin_kind(path)
    sep, columns = ("\t", [2, 3]) if kind == "snap_full" else (",", [0, 1])
    options = {"sep": sep, "header": None, "usecols": columns, "compression": "gzip" if _is_gzip(path) else None}
    try:
        coordinates = pd.read_csv(path, dtype=np.float64, **options)  # the fast path
    except ValueError:  # a field that is not a number (ParserError included): find and name it
        coordinates = _locate_bad_checkin(path, options)
    lat, lon = (coordinates[column].to_numpy(dtype=np.float64) for column in columns)
    if np.isnan(lat).any() or np.isnan(lon).any():
        _locate_bad_checkin(path, options)
    for name, values, column in (("latitude", lat, columns[0]), ("longitude", lon, columns[1])):
        _check_coordinates(values, f"{path}: {name} (field {column + 1})", name)
    return lat, lon, kind


def _check_coordinates(values: np.ndarray, what: str, name: str) -> None:
    """Raise ValueError naming ``what`` and the first record whose coordinate is not finite or outside the range of a
    latitude ([-90, 90]) or a longitude ([-180, 180]), with how many such records there are."""
    low, high = COORDINATE_RANGES[name]
    bad = ~np.isfinite(values) | (values < low) | (values > high)
    if bad.any():
        record = int(np.argmax(bad))
        raise ValueError(f"{what}: record {record + 1} has {name} {float(values[record])!r}, outside "
                         f"[{low:g}, {high:g}] ({int(bad.sum())} such records)")


def _locate_bad_checkin(path: Path, options: dict[str, Any]) -> pd.DataFrame:
    """Re-read a check-in file as text and raise ValueError naming its first record without numeric coordinates."""
    try:
        raw = pd.read_csv(path, dtype=str, **options)
    except pd.errors.ParserError as error:
        raise ValueError(f"{path}: malformed check-in file: {' '.join(str(error).split())}") from None
    raw.index = raw.index + 1  # record numbers (= line numbers when no blank line precedes)
    bad = raw.apply(lambda column: pd.to_numeric(column, errors="coerce")).isna().any(axis=1)
    if bad.any():
        record = int(bad.idxmax())
        raise ValueError(f"{path}: record {record}: check-in coordinates {raw.loc[record].tolist()} are not numbers")
    raise ValueError(f"{path}: malformed check-in file")


def square_box(centre_lat: float, centre_lon: float, side_km: float) -> Box:
    """The box of a square ``side_km`` wide centred on a point, in the equirectangular projection of ``grids.Box``."""
    if side_km <= 0:
        raise ValueError(f"side_km must be positive, got {side_km}")
    half_lat = side_km / 2 / KM_PER_DEGREE_LATITUDE
    half_lon = side_km / 2 / (KM_PER_DEGREE_LONGITUDE_AT_EQUATOR * math.cos(math.radians(centre_lat)))
    return Box(centre_lat - half_lat, centre_lat + half_lat, centre_lon - half_lon, centre_lon + half_lon)


def region_box(spec: Mapping[str, Any]) -> Box:
    """The Box of a configured region: ``box: {lat_min, lat_max, lon_min, lon_max}`` or ``centre: {lat, lon}`` and
    ``side_km`` (a square, see ``square_box``)."""
    if "box" in spec:
        bounds = spec["box"]
        if set(bounds) != {"lat_min", "lat_max", "lon_min", "lon_max"}:
            raise ValueError(f"a region box needs lat_min, lat_max, lon_min, lon_max; got {dict(bounds)}")
        return Box(**{key: float(value) for key, value in bounds.items()})
    if "centre" in spec and "side_km" in spec:
        centre = spec["centre"]
        return square_box(float(centre["lat"]), float(centre["lon"]), float(spec["side_km"]))
    raise ValueError(f"a region needs box, or centre and side_km; got keys {sorted(spec)}")


def region_grid(spec: Mapping[str, Any]) -> Grid:
    """The Grid of a configured region: ``columns`` x ``rows`` cells of ``cell_km``."""
    return Grid(columns=int(spec["columns"]), rows=int(spec["rows"]), cell_km=float(spec["cell_km"]))


def region_output_grid(spec: Mapping[str, Any]) -> Grid | None:
    """The grid of observables covering the same area (``output_columns`` x ``output_rows`` square cells), or None."""
    if "output_columns" not in spec and "output_rows" not in spec:
        return None
    grid = region_grid(spec)
    columns, rows = int(spec["output_columns"]), int(spec["output_rows"])
    cell_km = grid.columns * grid.cell_km / columns
    if not math.isclose(cell_km, grid.rows * grid.cell_km / rows):
        raise ValueError(
            f"output grid {columns} x {rows} cannot cover the {grid.columns} x {grid.rows} grid of "
            f"{grid.cell_km} km with square cells"
        )
    return Grid(columns=columns, rows=rows, cell_km=cell_km)


def _box_within(inner: Box, outer: Box) -> bool:
    """Whether ``inner`` lies inside ``outer`` (bounds inclusive)."""
    return (
        outer.lat_min <= inner.lat_min
        and inner.lat_max <= outer.lat_max
        and outer.lon_min <= inner.lon_min
        and inner.lon_max <= outer.lon_max
    )


def check_coverage(kind: str, box: Box) -> None:
    """Raise ValueError when the check-in file cannot hold every check-in of ``box`` (the SF extract, box outside)."""
    if kind not in CHECKIN_KINDS:
        raise ValueError(f"unknown check-in file kind {kind!r}: expected one of {CHECKIN_KINDS}")
    if kind == "sf_box" and not _box_within(box, SF_BOX_EXTENT):
        raise ValueError(
            f"the box {box} is not inside the San Francisco extract's box {SF_BOX_EXTENT}: this region "
            "needs the full SNAP file loc-gowalla_totalCheckins.txt.gz"
        )


def discretise_checkins(lat: np.ndarray, lon: np.ndarray, box: Box, grid: Grid) -> tuple[np.ndarray, dict[str, Any]]:
    """The cell (int64 index of ``grid``) of every check-in inside ``box``, and counts kept and dropped by reason.

    Check-ins outside the box (bounds inclusive) are dropped, counted in the provenance and logged; the others are
    projected with ``box.to_km`` and assigned floor(km / cell_km), clamped to the grid (decisions.md, section 5). A
    coordinate that is not finite, or a latitude outside [-90, 90] or a longitude outside [-180, 180], raises
    ValueError: it is a broken record, not a check-in elsewhere.
    """
    lat, lon = np.asarray(lat, dtype=np.float64), np.asarray(lon, dtype=np.float64)
    if lat.shape != lon.shape or lat.ndim != 1:
        raise ValueError(f"lat and lon must be 1-D of one length, got shapes {lat.shape} and {lon.shape}")
    _check_coordinates(lat, "lat", "latitude")
    _check_coordinates(lon, "lon", "longitude")
    inside = box.contains(lat, lon)
    cells = cell_of(grid, box, lat[inside], lon[inside])
    provenance = {"rows": int(lat.size), "kept": int(inside.sum()), "dropped": {"outside_box": int((~inside).sum())}}
    log.info("check-ins: %d read, %d inside the box %s, %d outside it dropped", lat.size, inside.sum(), box,
             (~inside).sum())
    return cells, provenance


def planar_region_choice(kind: str, requested: str) -> str:
    """``planar_region`` (decisions.md, section 5): ``auto`` is Manhattan with the full SNAP file, else San Francisco.

    ``manhattan`` with only the San Francisco extract raises ValueError; ``san_francisco`` works with either file.
    """
    if kind not in CHECKIN_KINDS:
        raise ValueError(f"unknown check-in file kind {kind!r}: expected one of {CHECKIN_KINDS}")
    if requested == "auto":
        return "manhattan" if kind == "snap_full" else "san_francisco"
    if requested not in PLANAR_REGIONS:
        raise ValueError(f"planar_region must be 'auto' or one of {PLANAR_REGIONS}, got {requested!r}")
    if requested == "manhattan" and kind == "sf_box":
        raise ValueError(
            "planar_region 'manhattan' needs the full SNAP file loc-gowalla_totalCheckins.txt.gz, but only"
            " the San Francisco extract gowalla_sf_box_latlon.csv was fetched: set planar_region to "
            "'auto' or 'san_francisco', or make the full file available"
        )
    return requested


def resolve_region(kind: str, requested: str, regions: Mapping[str, Any]) -> str:
    """The region to use: ``planar_region_choice`` for auto/manhattan/san_francisco, else a name in ``regions``."""
    name = planar_region_choice(kind, requested) if requested == "auto" or requested in PLANAR_REGIONS else requested
    if name not in regions:
        raise ValueError(f"region {name!r} is not configured: known regions {sorted(regions)}")
    return name


REGION_KEYS = {"box", "centre", "side_km", "columns", "rows", "cell_km", "output_columns", "output_rows"}


def region_geometry(name: str, spec: Mapping[str, Any]) -> tuple[Box, Grid, dict[str, Any]]:
    """Box, grid and alphabet (JSON-ready) of a configured region.

    spec: ``box`` (bounds) or ``centre`` ({lat, lon}) and ``side_km``; ``columns``, ``rows``, ``cell_km``; optionally
    ``output_columns`` and ``output_rows`` (the observables' grid over the same area). The alphabet is
    ``{kind: planar, region, columns, rows, cell_km, k, box, output_grid?}`` (``registry.Alphabet.from_dict`` reads it).
    """
    unknown = set(spec) - REGION_KEYS
    if unknown:
        raise ValueError(f"region {name!r} has unknown keys {sorted(unknown)}")
    box, grid, output = region_box(spec), region_grid(spec), region_output_grid(spec)
    alphabet = {
        "kind": "planar",
        "region": name,
        "box": {"lat_min": box.lat_min, "lat_max": box.lat_max, "lon_min": box.lon_min, "lon_max": box.lon_max},
        "columns": grid.columns,
        "rows": grid.rows,
        "cell_km": grid.cell_km,
        "k": grid.k,
    }
    if output is not None:
        alphabet["output_grid"] = {"columns": output.columns, "rows": output.rows, "cell_km": output.cell_km,
                                   "k": output.k}  # fmt: skip
    return box, grid, alphabet


def discretise_region(
    path: str | os.PathLike, requested: str, regions: Mapping[str, Any]
) -> tuple[np.ndarray, np.ndarray, dict[str, Any], dict[str, Any]]:
    """Read a check-in file and discretise it on a configured region: (cells, theta, alphabet, provenance).

    requested: a region name of ``regions`` or ``auto`` (see ``planar_region_choice``); regions: name -> spec (see
    ``region_geometry``). The alphabet records the region used and what was requested.
    """
    lat, lon, kind = read_checkins(path)
    name = resolve_region(kind, requested, regions)
    box, grid, alphabet = region_geometry(name, regions[name])
    alphabet["requested"] = requested
    check_coverage(kind, box)
    cells, counts = discretise_checkins(lat, lon, box, grid)
    if cells.size == 0:
        raise ValueError(f"{path}: no check-in lies inside region {name!r} {box}")
    provenance = {
        "source": {"file": str(path), "kind": kind, "sha256": file_digests(path)["sha256"]},
        "requested": requested,
        "region": name,
        "rows_in_file": counts["rows"],
        "rows_kept": counts["kept"],
        "rows_dropped": counts["dropped"],
    }
    return cells, empirical_theta(cells, grid.k), alphabet, provenance
