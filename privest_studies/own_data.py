"""A study's data from a researcher's file or a built-in dataset: the secrets on the study's alphabet, the alphabet
file and the provenance (what was read, kept and dropped, and why).

    data: {csv: ages.csv, column: age, missing: drop, encoding: latin-1, delimiter: ";"}   # or {builtin: adult,
    alphabet: {kind: binned, min: 0, max: 100, bins: 20, unit: years, outside: drop}        #     column: occupation}
    alphabet: {kind: numeric, min: 17, max: 90, bins: 73, unit: years}   # the values kept as numbers too

``check_header`` is what is cheap when the Snakefile is parsed: the file is a regular file in a format we read, its
header line decodes and holds each needed column once (``privest_studies.own_csv.inspect``: at most ``HEAD_BYTES``
read, whatever the file's size). ``load`` checks every record's field count against the header, reads every record
in chunks with pandas' C parser (only the needed columns) and converts them with vectorised numpy: no Python loop
over rows.

A record is dropped, or stops the study in one line naming the file and line, for one of ``REASONS``: a blank cell,
a cell that is not a number (numeric alphabets: linear, binned, numeric, planar), or a value outside the alphabet. A
``numeric`` alphabet judges its records exactly as a binned one (the same bins of [min, max]) and keeps each kept
record's value as well (``load_with_values``): the numeric mechanisms report the numbers.
``data.missing`` decides for the first two, ``alphabet.outside`` for the third (``error``, the default, or ``drop``):
the judging is ``own_records``'s, which a multi-column experiment's joint read (``own_columns``) shares.
Line numbers are the file's physical lines (the header is line 1), quoted line breaks counted.
"""

import hashlib
import logging
import math
import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from privest.alphabets import Grid
from privest_studies import own_csv, own_items
from privest_studies.datasets import ADULT_COLUMNS, read_adult
from privest_studies.own_records import BINNED, NUMERIC, REASONS, Tally, judge
from privest_studies.regions import Box

__all__ = ["ADULT_FILES", "BUILTINS", "KINDS", "REASONS", "TABLE_COLUMNS", "alphabet_of", "check_categories",
           "check_header", "empirical_data", "input_files", "load", "load_with_values", "provenance_of", "stamp",
           "table_rows", "tally_csv"]

BUILTINS = ("ages", "planar", "adult")
"""Built-in datasets: ``ages`` and ``planar`` are prebuilt (results/data/), ``adult`` reads any Adult column."""
ADULT_FILES = ("data/raw/adult.data", "data/raw/adult.test")
KINDS = ("linear", "binned", "numeric", "categorical", "planar", "large")
TABLE_COLUMNS = ["what", "records"]

log = logging.getLogger(__name__)


# ------------------------------------------------------------------------------------------------ the alphabet


def columns_of(data: Mapping[str, Any], alphabet: Mapping[str, Any]) -> list[str]:
    """The columns a study reads: the latitude and longitude of a planar alphabet, else ``data.column``."""
    if alphabet["kind"] == "planar":
        return [alphabet["latitude"], alphabet["longitude"]]
    return [data["column"]]


def _binned_label(spec: Mapping[str, Any], column: str) -> str:
    width = (float(spec["max"]) - float(spec["min"])) / int(spec["bins"])
    size = f"{width:g} {spec['unit']}" if spec.get("unit") else f"width {width:g}"
    return f"{column}: {int(spec['bins'])} bins of {size} on [{float(spec['min']):g}, {float(spec['max']):g}]"


def alphabet_of(spec: Mapping[str, Any], column: str | None = None,
                categories: Sequence[str] | None = None) -> dict:
    """The alphabet file of a study's data, as ``privest.alphabets.Alphabet.from_dict`` reads it.

    Parameters
    ----------
    spec : Mapping
        The config's ``alphabet``: {kind: linear, k}, {kind: binned or numeric, min, max, bins}, {kind: categorical,
        categories?} or {kind: planar, box, columns, rows, cell_km, ...}; ``unit`` optional (linear, binned,
        numeric).
    column : str, optional
        The data's column (binned and categorical record it).
    categories : sequence of str, optional
        Categorical only: the categories found in the data when the config gives none.

    Returns
    -------
    dict
        linear {kind, k, spacing 1, unit, label}; binned {kind: linear, k: bins, spacing: the bin width, unit,
        column, min, max, bins, label} (numeric: the same, with numeric: true); categorical {kind, k, categories,
        column, label}; planar {kind, region: own,
        columns, rows, cell_km, k, box, unit: km, label}.
    """
    kind = spec["kind"]
    if kind == "linear":
        k = int(spec["k"])
        return {"kind": "linear", "k": k, "spacing": 1.0, "unit": spec.get("unit") or "index steps",
                "label": f"X = {{0..{k - 1}}}"}
    if kind in BINNED:
        lo, hi, bins = float(spec["min"]), float(spec["max"]), int(spec["bins"])
        unit = spec.get("unit") or f"units of {column}"
        return {"kind": "linear", "k": bins, "spacing": (hi - lo) / bins, "unit": unit, "column": column,
                "min": lo, "max": hi, "bins": bins, "label": _binned_label(spec, column),
                **({"numeric": True} if kind == "numeric" else {})}
    if kind == "categorical":
        found = [str(c) for c in (spec.get("categories") or categories or [])]
        if not found:
            raise ValueError(f"a categorical alphabet of {column} needs its categories (given, or found in the data)")
        return {"kind": "categorical", "k": len(found), "categories": found, "column": column,
                "label": f"{column}: {len(found)} categories"}
    grid = Grid(int(spec["columns"]), int(spec["rows"]), float(spec["cell_km"]))
    return {"kind": "planar", "region": "own", "columns": grid.columns, "rows": grid.rows, "cell_km": grid.cell_km,
            "k": grid.k, "box": dict(spec["box"]), "unit": "km",
            "label": f"{grid.columns} x {grid.rows} cells of {grid.cell_km:g} km"}


def empirical_data(secrets: np.ndarray, k: int, values: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """A study's data file: {"secrets": the secrets in the smallest unsigned integer type that holds 0..k-1, "theta":
    their empirical distribution}, and "values" (float64, the records' numbers, in the secrets' order) on a numeric
    alphabet. uint8 for k <= 256: 4*10^7 records compress in about 3 s instead of a minute as int64 (the jobs that
    read them count them with np.bincount, which takes any unsigned type)."""
    counts = np.bincount(secrets, minlength=k)
    return {"secrets": np.asarray(secrets).astype(np.min_scalar_type(k - 1)), "theta": counts / counts.sum(),
            **({} if values is None else {"values": np.asarray(values, dtype=np.float64)})}


def _check_alphabet(key: str, data: Mapping[str, Any], alphabet: Mapping[str, Any]) -> None:
    """One line naming ``key`` when the alphabet lacks what its kind needs or the data lacks its column."""
    kind = alphabet["kind"]
    need = {"linear": ["k"], "binned": ["min", "max", "bins"], "numeric": ["min", "max", "bins"], "categorical": [],
            "large": [],
            "planar": ["box", "columns", "rows", "cell_km", "latitude", "longitude"]}[kind]
    if missing := [name for name in need if name not in alphabet]:
        raise ValueError(f"{key}: a {kind} alphabet needs alphabet.{', alphabet.'.join(missing)}")
    if kind in BINNED:
        lo, hi, bins = float(alphabet["min"]), float(alphabet["max"]), int(alphabet["bins"])
        if not lo < hi:
            raise ValueError(f"{key}: a {kind} alphabet needs alphabet.min < alphabet.max, got {alphabet['min']} and "
                             f"{alphabet['max']}")
        width = (hi - lo) / bins
        if not (np.isfinite(hi - lo) and lo + width > lo and hi - width < hi):
            raise ValueError(f"{key}: bins of [{lo:g}, {hi:g}] / {bins} are not representable in float64; give "
                             "alphabet.min and alphabet.max of the data's own scale")
    if kind == "planar":
        _check_grid(key, alphabet)
    if kind != "planar" and "column" not in data:
        raise ValueError(f"{key}: a {kind} alphabet needs data.column, the column of the secrets")


def _check_grid(key: str, alphabet: Mapping[str, Any]) -> None:
    """One line naming ``key`` unless the grid's columns and rows of ``cell_km`` cover the box exactly: the fewest
    cells that reach its far edges (fewer would clamp the points beyond them into the edge cells; more would add
    cells no record can fall in)."""
    try:
        box = Box(**{name: float(value) for name, value in dict(alphabet["box"]).items()})
    except (TypeError, ValueError) as error:
        raise ValueError(f"{key}: alphabet.box needs lat_min < lat_max and lon_min < lon_max ({error})") from None
    east, north = (float(km) for km in box.to_km(box.lat_max, box.lon_max))
    cell = float(alphabet["cell_km"])
    for name, extent, side in (("columns", east, "wide"), ("rows", north, "tall")):
        need, given = max(1, math.ceil(extent / cell * (1 - 1e-9))), int(alphabet[name])
        if given != need:
            cells = name[:-1] if need == 1 else name
            raise ValueError(f"{key}: the box is {extent:.4g} km {side}, which {need} {cells} of {cell:g} km cover; "
                             f"alphabet.{name} is {given}")


# ------------------------------------------------------------------------------------------------ the header


def check_header(key: str, data: Mapping[str, Any], alphabet: Mapping[str, Any]) -> own_csv.Csv | None:
    """What is cheap before any job: the data source, the alphabet's needs, and a CSV file's header line.

    Parameters
    ----------
    key : str
        The config key of ``data`` in messages, e.g. ``config key studies.mine.data``.
    data : Mapping
        {csv, column?, missing?, encoding?, delimiter?} or {builtin: ages | planar | adult, column?}.
    alphabet : Mapping
        The study's alphabet (see ``alphabet_of``).

    Returns
    -------
    own_csv.Csv or None
        The CSV file as ``own_csv.inspect`` found it (its header, encoding and records guess: read once, passed on
        by its callers); None for a built-in dataset.

    Raises
    ------
    ValueError
        In one line naming the file or ``key`` and what to do: no such file, a header that does not decode in the
        encoding (its line and byte) or lacks a needed column (with the delimiter it seems to use), an unknown
        built-in dataset or Adult column. Reads at most ``own_csv.HEAD_BYTES`` of the file.
    """
    if ("csv" in data) == ("builtin" in data):
        raise ValueError(f"{key}: give csv (and column) or builtin: one of {', '.join(BUILTINS)}")
    if data.get("builtin") in ("ages", "planar"):
        return None
    if "builtin" in data and data["builtin"] != "adult":
        raise ValueError(f"{key}.builtin: unknown dataset {data['builtin']!r}; known: {', '.join(BUILTINS)}")
    _check_alphabet(key, data, alphabet)
    table = None
    if "csv" in data:
        table = own_csv.inspect(data["csv"], data)
        own_csv.check_columns(table, columns_of(data, alphabet))
    elif alphabet["kind"] == "planar":
        raise ValueError(f"{key}: builtin adult has no latitude and longitude; use a linear, binned or categorical "
                         "alphabet")
    elif data["column"] not in ADULT_COLUMNS:
        raise ValueError(f"{key}.column: Adult has no column {data['column']!r}; its columns: "
                         f"{', '.join(ADULT_COLUMNS)}")
    return table


def stamp(data: Mapping[str, Any]) -> str:
    """What decides, beside the input's mtime, that a study's data job reruns (its rule's params): the CSV's size,
    mtime, inode and ctime. Replacing the file by other records always changes them (the ctime cannot be set back),
    even when the new file's mtime is older than the results; nothing of the file is read, so a dry run costs the
    same for any size. The data job records the content's SHA-256 in the provenance."""
    if "csv" not in data:
        return ""
    try:
        info = os.stat(data["csv"])
    except OSError:
        return "absent"
    return f"size {info.st_size}, mtime {info.st_mtime_ns}, inode {info.st_ino}, ctime {info.st_ctime_ns}"


def input_files(data: Mapping[str, Any]) -> list[str]:
    """The files a study's data job reads: the CSV, the raw Adult files, or none for a prebuilt dataset."""
    if "csv" in data:
        return [data["csv"]]
    return list(ADULT_FILES) if data.get("builtin") == "adult" else []


# ------------------------------------------------------------------------------------------------ the sources


def tally_csv(table: own_csv.Csv, data: Mapping[str, Any], spec: Mapping[str, Any], joint: bool = False) -> Tally:
    """The records of a CSV file whose header ``check_header`` checked, each field count checked against the header
    (``own_csv.shape``); ``joint``: every record's reason kept too (``Tally``)."""
    path, columns = table.path, columns_of(data, spec)
    tally = Tally(joint=joint)
    try:
        lines = own_csv.shape(table)
        for chunk in own_csv.chunks(table, columns, spec["kind"] in NUMERIC, lines):
            tally.add(0, path, chunk, spec)
    except UnicodeDecodeError as error:
        if (where := own_csv.decode_error_at(table)) is None:
            raise ValueError(f"{path}: {own_csv.shown(' '.join(str(error).split()), 160)}") from None
        raise own_csv.not_encoded(path, *where, data.get("encoding", "utf-8")) from None
    except pd.errors.ParserError as error:
        raise ValueError(f"{path}: {own_csv.shown(' '.join(str(error).split()), 160)}") from None
    return tally


def _tally_adult(files: Sequence[str], data: Mapping[str, Any], spec: Mapping[str, Any]) -> Tally:
    """The records of one Adult column, file by file (``?`` is blank)."""
    if not files:
        raise ValueError("builtin adult needs the raw Adult files (adult_files: data/raw/adult.data, adult.test)")
    tally = Tally()
    for order, path in enumerate(files):
        df = read_adult(path)
        tally.add(order, str(path), df[[data["column"]]].set_axis(df["line"].to_numpy()), spec)
    return tally


def load(data: Mapping[str, Any], alphabet: Mapping[str, Any],
         adult_files: Sequence[str] = ()) -> tuple[np.ndarray, dict, dict]:
    """``load_with_values`` without the values: (secrets, alphabet_file, provenance)."""
    secrets, _, alphabet_file, provenance = load_with_values(data, alphabet, adult_files)
    return secrets, alphabet_file, provenance


def load_with_values(data: Mapping[str, Any], alphabet: Mapping[str, Any], adult_files: Sequence[str] = ()
                     ) -> tuple[np.ndarray, np.ndarray | None, dict, dict]:
    """Every record of a study's data on its alphabet, blank, non-numeric and outside records dropped or refused.

    Parameters
    ----------
    data, alphabet : Mapping
        As in ``check_header``; ``data.missing`` and ``alphabet.outside`` are ``error`` (default) or ``drop``.
    adult_files : sequence of str
        The raw Adult files, for ``builtin: adult`` (read with ``privest_studies.datasets.read_adult``: ``?`` is
        missing, i.e. blank).

    Returns
    -------
    secrets : numpy.ndarray of int64 (a large alphabet: uint64 items, ``own_items``), shape (kept,)
        The kept records' secrets in 0..k-1, in file order.
    values : numpy.ndarray of float64, shape (kept,), or None
        On a numeric alphabet the kept records' numbers, in the same order (each in [min, max], in its secret's
        bin); None on any other.
    alphabet_file : dict
        As ``alphabet_of`` makes it (a categorical alphabet without given categories: the sorted distinct values).
    provenance : dict
        {source, column or columns, records read, kept, dropped: {blank, not_a_number, outside}}, plus the encoding
        and delimiter of a CSV file.

    Raises
    ------
    ValueError
        In one line: the header's errors (see ``check_header``); a byte that does not decode (file, line, byte and
        the hint data.encoding); else the file and 1-based line (header = line 1) of the first record refused, with
        the count of such records and the setting that drops them.
    """
    table = check_header("data", data, alphabet)
    if data.get("builtin") in ("ages", "planar"):
        raise ValueError(f"builtin {data['builtin']} is prebuilt (results/data/): nothing to load")
    columns = columns_of(data, alphabet)
    if "csv" in data:
        source, tally = data["csv"], tally_csv(table, data, alphabet)
    else:
        source, tally = [str(f) for f in adult_files], _tally_adult(adult_files, data, alphabet)
    judge(tally, data, alphabet, source, ", ".join(columns))
    secrets, found = tally.secrets()
    if secrets.size == 0:
        raise ValueError(f"{source}: no records kept ({tally.records} read, dropped {tally.counts})")
    if "csv" in data:
        check_categories(table, found)
    secrets, alphabet_file = (own_items.read(secrets, found, columns[0]) if alphabet["kind"] == "large"
                              else (secrets, alphabet_of(alphabet, columns[0], found)))
    values = np.concatenate([np.empty(0), *tally.values]) if alphabet["kind"] == "numeric" else None
    return secrets, values, alphabet_file, provenance_of(source, columns, tally.records, secrets.size, tally.counts,
                                                         table)


def check_categories(table: own_csv.Csv, found: Sequence[str]) -> None:
    """One line naming the CSV file when a category found in it holds a C1 control character (text holds none: the
    file is likely cp1252 read as another encoding)."""
    if garbled := [c for c in found if any("\x80" <= ch <= "\x9f" for ch in c)]:
        raise ValueError(f"{table.path}: category {own_csv.shown(garbled[0])} holds a C1 control character, which "
                         f"text does not: the file is likely cp1252, not {table.encoding}; set data.encoding: cp1252")


def provenance_of(source: str | Sequence[str], columns: Sequence[str], records: int, kept: int,
                  dropped: Mapping[str, int], table: own_csv.Csv | None) -> dict:
    """What was read, kept and dropped, and why (logged in one line): {source, column or columns, records read,
    kept, dropped: {blank, not_a_number, outside}}, plus the encoding, delimiter, compression and SHA-256 of a CSV
    file (``table``; None for the Adult files)."""
    provenance = {"source": source, **({"columns": list(columns)} if len(columns) > 1 else {"column": columns[0]}),
                  "records": int(records), "kept": int(kept), "dropped": {r: int(dropped[r]) for r in REASONS}}
    if table is not None:
        provenance |= {"encoding": table.encoding, "delimiter": table.delimiter,
                       **({"compression": table.compression} if table.compression else {}),
                       "sha256": _sha256(table.path)}
    log.info("%s: %d records read, %d kept; dropped %d blank, %d not a number, %d outside the alphabet",
             source if isinstance(source, str) else " and ".join(source), records, kept,
             *(dropped[r] for r in REASONS))
    return provenance


def _sha256(path: str) -> str:
    """The SHA-256 of a file's bytes, read in blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(1 << 24):
            digest.update(block)
    return digest.hexdigest()


def table_rows(provenance: Mapping[str, Any]) -> list[dict]:
    """The data table of a study, one row per count: records read, kept, and dropped for each of ``REASONS``
    (columns ``TABLE_COLUMNS``)."""
    dropped = provenance["dropped"]
    return [{"what": "records read", "records": provenance["records"]},
            {"what": "kept", "records": provenance["kept"]},
            {"what": "dropped: blank cell", "records": dropped["blank"]},
            {"what": "dropped: not a number", "records": dropped["not_a_number"]},
            {"what": "dropped: outside the alphabet", "records": dropped["outside"]}]
