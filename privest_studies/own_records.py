"""A study's records judged on its alphabet, chunk by chunk: each kept (its secret in 0..k-1) or dropped for one of
``REASONS`` (a blank cell; a cell that is not a number on a numeric alphabet; a value outside the alphabet), with the
count of each reason and the first record it struck; and the judgement of a tally by the study's policies
(``data.missing`` for the first two reasons, the alphabet's ``outside`` for the third: ``error``, the default, stops
the study in one line naming the file and line, ``drop`` drops and counts).

``Tally`` is what ``own_data`` reads one column (or a planar alphabet's two) into; with ``joint`` it also keeps every
record's reason, so that ``own_columns`` drops a record of several columns whole when any of its cells is dropped.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from privest.alphabets import Grid
from privest_studies import own_csv
from privest_studies.regions import Box, cell_of

__all__ = ["BINNED", "NUMERIC", "REASONS", "Tally", "judge", "refused"]

NUMERIC = ("linear", "binned", "numeric", "planar")
"""The alphabets whose cells are numbers: a cell that is not one is dropped or refused (``data.missing``)."""
BINNED = ("binned", "numeric")
"""The alphabets of equal bins of [min, max]: numeric keeps the values too (its mechanisms report numbers)."""
REASONS = ("blank", "not_a_number", "outside")
"""Why a record is dropped, in the order a record's first reason is taken."""


def _numbers(raw: pd.Series) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(values as float64, blank, not a number) of a column of cells: numbers the C parser read, or strings."""
    if raw.dtype.kind in "iuf":
        values = raw.to_numpy(dtype=np.float64, na_value=np.nan)
        blank = np.isnan(values)
        return values, blank, np.zeros_like(blank)
    text = raw.astype(str) if raw.dtype.kind == "b" else raw
    blank = (text.isna() | (text.str.strip() == "")).to_numpy(dtype=bool)
    values = pd.to_numeric(text, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    return values, blank, np.isnan(values) & ~blank


def _strings(raw: pd.Series) -> tuple[pd.Series, np.ndarray]:
    """(cells as stripped strings, blank) of a column."""
    text = raw.astype("string").str.strip()
    blank = (text.isna() | (text == "")).to_numpy(dtype=bool)
    return text, blank


def _reasons(blank: np.ndarray, not_a_number: np.ndarray, outside: np.ndarray) -> np.ndarray:
    """Per record: 0 kept, else 1 + the index in ``REASONS`` of the first reason that applies."""
    return np.where(blank, 1, np.where(not_a_number, 2, np.where(outside, 3, 0))).astype(np.int8)


def _on_line(frame: pd.DataFrame, spec: Mapping[str, Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(codes, reasons, values) of a chunk on a linear, binned or numeric alphabet (codes and values meaningful where
    the reason is 0)."""
    values, blank, not_a_number = _numbers(frame.iloc[:, 0])
    with np.errstate(invalid="ignore"):
        if spec["kind"] == "linear":
            inside = (values % 1 == 0) & (values >= 0) & (values < int(spec["k"]))
            codes = np.where(inside, values, 0)
        else:
            lo, hi, bins = float(spec["min"]), float(spec["max"]), int(spec["bins"])
            inside = (values >= lo) & (values <= hi)
            codes = np.minimum(np.floor((np.where(inside, values, lo) - lo) * bins / (hi - lo)), bins - 1)
    return codes.astype(np.int64), _reasons(blank, not_a_number, ~inside), values


def _on_grid(frame: pd.DataFrame, spec: Mapping[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """(cells, reasons) of a chunk of latitudes and longitudes on a planar alphabet."""
    (lat, blank_lat, nan_lat), (lon, blank_lon, nan_lon) = _numbers(frame.iloc[:, 0]), _numbers(frame.iloc[:, 1])
    box = Box(**spec["box"])
    inside = box.contains(lat, lon)
    codes = np.zeros(len(frame), dtype=np.int64)
    codes[inside] = cell_of(Grid(int(spec["columns"]), int(spec["rows"]), float(spec["cell_km"])), box,
                            lat[inside], lon[inside])
    return codes, _reasons(blank_lat | blank_lon, nan_lat | nan_lon, ~inside)


def _on_categories(frame: pd.DataFrame, spec: Mapping[str, Any]) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(codes, reasons, the chunk's categories) of a chunk on a categorical alphabet: codes into the given
    categories, or into the chunk's own distinct values when the config gives none."""
    text, blank = _strings(frame.iloc[:, 0])
    if spec.get("categories"):
        codes = pd.Index([str(c) for c in spec["categories"]]).get_indexer(text).astype(np.int64)
        return codes, _reasons(blank, np.zeros_like(blank), (codes < 0) & ~blank), []
    codes, uniques = pd.factorize(text.mask(blank), use_na_sentinel=True)  # a cell of spaces is no category
    return codes.astype(np.int64), _reasons(blank, np.zeros_like(blank), np.zeros_like(blank)), list(uniques)


@dataclass
class Tally:
    """What the chunks gave: kept codes (with their chunk's categories), counts and first record per reason; with
    ``joint``, every record's reason as well (``reasons``: 0 kept, else 1 + its index in ``REASONS``), in file order."""

    joint: bool = False
    records: int = 0
    kept: list[np.ndarray] = field(default_factory=list)
    categories: list[list[str]] = field(default_factory=list)
    values: list[np.ndarray] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(REASONS, 0))
    first: dict[str, tuple[int, str, int, str]] = field(default_factory=dict)
    reasons: list[np.ndarray] = field(default_factory=list)

    def add(self, order: int, source: str, frame: pd.DataFrame, spec: Mapping[str, Any]) -> None:
        """Convert one chunk (its index: file line numbers) of the ``order``-th source file."""
        kind = spec["kind"]
        if kind in ("categorical", "large"):  # a large alphabet's distinct cells become items (own_items)
            codes, reasons, categories = _on_categories(frame, spec)
        elif kind == "planar":
            codes, reasons = _on_grid(frame, spec)
            categories = []
        else:
            codes, reasons, values = _on_line(frame, spec)
            categories = []
            if kind == "numeric":
                self.values.append(values[reasons == 0])
        self.records += len(frame)
        self.kept.append(codes[reasons == 0])
        if self.joint:
            self.reasons.append(reasons)
        self.categories.append(categories)
        for r, reason in enumerate(REASONS, start=1):
            bad = reasons == r
            if (n := int(bad.sum())) and reason not in self.first:
                i = int(bad.argmax())
                self.first[reason] = (order, source, int(frame.index[i]), _cells(frame.iloc[i]))
            self.counts[reason] += n

    def secrets(self, keep: np.ndarray | None = None) -> tuple[np.ndarray, list[str]]:
        """The kept codes in file order, and the sorted categories found (categorical alphabets without given ones).
        ``keep``: which of the kept records to keep still (a boolean per kept record: ``own_columns`` drops a record
        that another column drops); the categories found are then those of the records kept."""
        found = sorted(set().union(*self.categories))
        if not found:
            codes = np.concatenate([np.empty(0, dtype=np.int64), *self.kept])
            return (codes if keep is None else codes[keep]), []
        position = {c: i for i, c in enumerate(found)}
        parts = [np.array([position[c] for c in chunk], dtype=np.int64)[codes] if len(codes) else codes
                 for codes, chunk in zip(self.kept, self.categories, strict=True)]
        codes = np.concatenate(parts)
        if keep is None:
            return codes, found
        present = np.bincount(codes[keep], minlength=len(found)) > 0
        return (np.cumsum(present) - 1)[codes[keep]], [c for c, held in zip(found, present, strict=True) if held]


def _cells(row: pd.Series) -> str:
    """A record's cells as text: 'old', or ('0.02', '0.0') for a latitude and a longitude."""
    texts = ["" if pd.isna(v) else str(int(v)) if isinstance(v, float) and v.is_integer() else str(v) for v in row]
    return own_csv.shown(texts[0]) if len(texts) == 1 else "(" + ", ".join(map(own_csv.shown, texts)) + ")"


def _outside(spec: Mapping[str, Any]) -> str:
    kind = spec["kind"]
    if kind == "linear":
        return f"outside the alphabet 0..{int(spec['k']) - 1}"
    if kind in BINNED:
        return f"outside the bins' range [{float(spec['min']):g}, {float(spec['max']):g}]"
    if kind == "categorical":
        return f"not one of the {len(spec['categories'])} given categories"
    return f"outside the box {dict(spec['box'])}"


def refused(tally: Tally, data: Mapping[str, Any], spec: Mapping[str, Any]) -> list[tuple[tuple[int, str, int], str]]:
    """The reasons whose policy is ``error`` (``data.missing`` for a blank cell or one not a number, the alphabet's
    ``outside`` for a value outside it) that struck a record: ((source order, source, line) of the first such record,
    reason), earliest first."""
    policy = {"blank": data.get("missing", "error"), "not_a_number": data.get("missing", "error"),
              "outside": spec.get("outside", "error")}
    return sorted((tally.first[r][:3], r) for r in REASONS if policy[r] == "error" and tally.counts[r])


def judge(tally: Tally, data: Mapping[str, Any], spec: Mapping[str, Any], source: Any, what: str,
          outside: str = "alphabet.outside") -> None:
    """One line naming the first record ``refused`` (``what``: its column or columns), how many such there are, and
    the setting that drops them (``outside``: the key of the alphabet's policy)."""
    if errors := refused(tally, data, spec):
        (_, source, line), reason = errors[0]
        n = tally.counts[reason]
        said = f"is {_outside(spec)}" if reason == "outside" else {"blank": "is blank",
                                                                   "not_a_number": "is not a number"}[reason]
        fix = f"{outside}: drop" if reason == "outside" else "data.missing: drop"
        raise ValueError(f"{source} line {line}: {what} {tally.first[reason][3]} {said} ({n} such record"
                         f"{'s' if n != 1 else ''}; set {fix} to drop them)")
    if tally.records == 0:
        raise ValueError(f"{source}: no records")
