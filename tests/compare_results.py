"""Compare two result trees of the pipeline (e.g. before and after a refactor, same seeds), file by file.

    python tests/compare_results.py OLD_RESULTS NEW_RESULTS [--report compare.md] [--pair OLD_NAME=NEW_NAME ...]

Every file is classed as:
- identical: the same bytes;
- same numbers, other storage: the bytes differ but every number is the same (CSV tables with the same rows and the
  same values in every column they share; npz archives whose arrays are equal, keys renamed or length-1 axes added
  allowed; JSON equal as objects; PNGs with the same pixels; PDFs equal but for their dates and IDs);
- numbers changed: the largest absolute difference, and where;
- text changed: a short diff;
- only in OLD, only in NEW (``--pair old=new`` matches a renamed file).
It reports, never judges: the exit status is 0 unless the arguments are wrong.
"""

import argparse
import difflib
import io
import json
import re
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

IDENTICAL, SAME_NUMBERS, NUMBERS_CHANGED, TEXT_CHANGED = ("identical", "same numbers, other storage",
                                                          "numbers changed", "text changed")
ONLY_OLD, ONLY_NEW = "only in OLD", "only in NEW"
CLASSES = (IDENTICAL, SAME_NUMBERS, NUMBERS_CHANGED, TEXT_CHANGED, ONLY_OLD, ONLY_NEW)
SKIPPED = (".snakemake", "logs")
PDF_VOLATILE = re.compile(rb"/(CreationDate|ModDate) \(D:[^)]*\)|/ID \[<[0-9a-fA-F]+> <[0-9a-fA-F]+>\]")


@dataclass
class Outcome:
    """What the comparison of one file found."""

    path: str
    kind: str
    detail: str = ""
    max_abs: float = 0.0


def files_of(root: Path) -> set[str]:
    """The files under ``root`` (as relative POSIX paths), without Snakemake's and the logs' folders and temp files."""
    return {p.relative_to(root).as_posix() for p in root.rglob("*")
            if p.is_file() and not p.name.startswith(".") and p.relative_to(root).parts[0] not in SKIPPED}


def _max_abs(a: np.ndarray, b: np.ndarray) -> float:
    """The largest absolute difference of two equal-shape arrays (NaN where one side is NaN and the other not)."""
    numeric = "biufc"
    if a.dtype.kind not in numeric or b.dtype.kind not in numeric:
        return 0.0 if a.dtype.kind == b.dtype.kind and np.array_equal(a, b) else float("inf")
    if a.dtype.kind in "fc" or b.dtype.kind in "fc":
        a, b = a.astype(np.float64), b.astype(np.float64)
        both_nan = np.isnan(a) & np.isnan(b)
        diff = np.abs(np.where(both_nan, 0.0, a - b))
        return float(np.nan if np.isnan(diff).any() else diff.max(initial=0.0))
    return 0.0 if np.array_equal(a, b) else float("inf")


def compare_arrays(old: dict[str, np.ndarray], new: dict[str, np.ndarray]) -> tuple[str, float, str]:
    """Compare two dicts of arrays: each old array is matched with the new array of the same key, else with one of
    another key that has the same values (a rename); a length-1 axis may be added or dropped."""
    unmatched, notes, worst = dict(new), [], 0.0
    for key, a in old.items():
        candidates = [key] if key in unmatched else []
        candidates += [k for k in unmatched if k != key and unmatched[k].size == a.size]
        found = None
        for k in candidates:
            b = unmatched[k]
            if np.squeeze(b).shape != np.squeeze(a).shape:
                continue
            difference = _max_abs(np.squeeze(a), np.squeeze(b))
            if k == key or difference == 0.0:
                found = (k, difference)
                break
        if found is None:
            notes.append(f"{key}: no array of that shape in NEW")
            worst = float("inf")
            continue
        k, difference = found
        unmatched.pop(k)
        if k != key:
            notes.append(f"{key} -> {k}")
        if difference != 0.0:
            notes.append(f"{key}: max |diff| {difference:.3g}")
            worst = max(worst, difference) if not np.isnan(difference) else float("nan")
    if unmatched:
        notes.append("added: " + ", ".join(sorted(unmatched)))
    return (SAME_NUMBERS if worst == 0.0 else NUMBERS_CHANGED), worst, "; ".join(notes)


def compare_csv(old: Path, new: Path) -> tuple[str, float, str]:
    """Compare two CSV tables on the columns they share, row by row (then sorted by the text columns)."""
    import pandas as pd

    a, b = pd.read_csv(old, keep_default_na=False, na_values=["nan", "NaN"]), pd.read_csv(
        new, keep_default_na=False, na_values=["nan", "NaN"])
    shared = [c for c in a.columns if c in b.columns]
    notes = []
    if set(a.columns) != set(b.columns):
        notes.append(f"columns added {sorted(set(b.columns) - set(a.columns))}, removed "
                     f"{sorted(set(a.columns) - set(b.columns))}")
    if len(a) != len(b):
        return NUMBERS_CHANGED, float("inf"), f"{len(a)} rows in OLD, {len(b)} in NEW"
    a, b = a[shared], b[shared]
    text = [c for c in shared if a[c].dtype == object]
    worst, changed = 0.0, []
    for attempt in (False, True):
        if attempt and text:
            a, b = a.sort_values(text, kind="stable").reset_index(drop=True), b.sort_values(
                text, kind="stable").reset_index(drop=True)
        worst, changed = 0.0, []
        for c in shared:
            x, y = a[c].to_numpy(), b[c].to_numpy()
            if x.dtype.kind in "biuf" and y.dtype.kind in "biuf":
                difference = _max_abs(x, y)
            else:
                difference = 0.0 if np.array_equal(x.astype(str), y.astype(str)) else float("inf")
            if difference != 0.0:
                changed.append(f"{c} (max |diff| {difference:.3g})")
                worst = max(worst, difference)
        if not changed:
            break
    if changed:
        notes.append("changed: " + ", ".join(changed))
        return NUMBERS_CHANGED, worst, "; ".join(notes)
    return SAME_NUMBERS, 0.0, "; ".join(notes) or "same values, other bytes"


def compare_pdf(old: bytes, new: bytes) -> tuple[str, float, str]:
    """PDFs that differ only in their creation and modification dates and document IDs hold the same figure."""
    if PDF_VOLATILE.sub(b"", old) == PDF_VOLATILE.sub(b"", new):
        return SAME_NUMBERS, 0.0, "differs in its dates or IDs only"
    return NUMBERS_CHANGED, float("nan"), "the drawing differs (vector coordinates of the figure)"


def compare_png(old: Path, new: Path) -> tuple[str, float, str]:
    """PNGs with the same decoded pixels show the same picture."""
    from PIL import Image

    a, b = np.asarray(Image.open(old)), np.asarray(Image.open(new))
    if a.shape == b.shape and np.array_equal(a, b):
        return SAME_NUMBERS, 0.0, "same pixels, other encoding"
    changed = "a different size" if a.shape != b.shape else f"{int(np.any(a != b, axis=-1).sum())} pixels differ"
    return NUMBERS_CHANGED, float("nan"), changed


def compare_text(old: bytes, new: bytes, name: str) -> tuple[str, float, str]:
    """A unified diff of the first lines that differ."""
    diff = difflib.unified_diff(old.decode(errors="replace").splitlines(), new.decode(errors="replace").splitlines(),
                                "OLD/" + name, "NEW/" + name, lineterm="", n=0)
    return TEXT_CHANGED, 0.0, "\n".join(line[:200] for line in list(diff)[:20])


def compare_file(old: Path, new: Path, name: str) -> Outcome:
    """Class one pair of files (see the module's docstring)."""
    a, b = old.read_bytes(), new.read_bytes()
    if a == b:
        return Outcome(name, IDENTICAL)
    suffix = new.suffix.lower()
    if suffix == ".npz":
        with np.load(io.BytesIO(a)) as x, np.load(io.BytesIO(b)) as y:
            kind, worst, detail = compare_arrays({k: x[k] for k in x.files}, {k: y[k] for k in y.files})
    elif suffix == ".csv":
        kind, worst, detail = compare_csv(old, new)
    elif suffix == ".json":
        same = json.loads(a) == json.loads(b)
        kind, worst, detail = (SAME_NUMBERS, 0.0, "equal objects") if same else compare_text(a, b, name)
    elif suffix == ".png":
        kind, worst, detail = compare_png(old, new)
    elif suffix == ".pdf":
        kind, worst, detail = compare_pdf(a, b)
    elif zipfile.is_zipfile(io.BytesIO(a)):
        kind, worst, detail = NUMBERS_CHANGED, float("nan"), "binary archive differs"
    else:
        kind, worst, detail = compare_text(a, b, name)
    return Outcome(name, kind, detail, worst)


def compare_trees(old_root: Path, new_root: Path, pairs: dict[str, str] | None = None) -> list[Outcome]:
    """Every file of both trees, compared; ``pairs`` maps an OLD path to the NEW path of the same file renamed."""
    pairs = dict(pairs or {})
    old, new = files_of(old_root), files_of(new_root)
    outcomes = []
    for name in sorted(old):
        target = pairs.get(name, name)
        if target in new:
            outcome = compare_file(old_root / name, new_root / target, name)
            if target != name:
                outcome.detail = f"renamed {target}; " + outcome.detail
            outcomes.append(outcome)
        else:
            outcomes.append(Outcome(name, ONLY_OLD))
    outcomes += [Outcome(name, ONLY_NEW) for name in sorted(new - {pairs.get(n, n) for n in old})]
    return outcomes


def summary(outcomes: list[Outcome]) -> str:
    """One line per class with its count."""
    return "\n".join(f"{kind:>28}: {sum(o.kind == kind for o in outcomes)}" for kind in CLASSES)


def markdown(outcomes: list[Outcome], old_root: Path, new_root: Path) -> str:
    """The report: the counts, then a section per class (identical files counted, not listed)."""
    lines = [f"# Results compared: `{old_root}` (OLD) against `{new_root}` (NEW)", "", "| class | files |", "|---|---|"]
    lines += [f"| {kind} | {sum(o.kind == kind for o in outcomes)} |" for kind in CLASSES]
    for kind in CLASSES[1:]:
        mine = [o for o in outcomes if o.kind == kind]
        if not mine:
            continue
        lines += ["", f"## {kind} ({len(mine)})", ""]
        for o in mine:
            if kind == TEXT_CHANGED:
                lines += [f"- `{o.path}`", "", "```diff", o.detail, "```", ""]
            else:
                lines.append(f"- `{o.path}`" + (f": {o.detail}" if o.detail else ""))
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--report", type=Path, help="write the markdown report here")
    parser.add_argument("--pair", action="append", default=[], metavar="OLD=NEW",
                        help="a file renamed between the trees (paths relative to each root)")
    args = parser.parse_args(argv)
    for root in (args.old, args.new):
        if not root.is_dir():
            parser.error(f"{root} is not a directory")
    pairs = dict(p.split("=", 1) for p in args.pair)
    outcomes = compare_trees(args.old, args.new, pairs)
    print(summary(outcomes))
    for o in outcomes:
        if o.kind in (NUMBERS_CHANGED, ONLY_OLD, ONLY_NEW):
            print(f"{o.kind}: {o.path}" + (f": {o.detail}" if o.detail else ""))
    if args.report:
        args.report.write_text(markdown(outcomes, args.old, args.new))
    return 0


if __name__ == "__main__":
    sys.exit(main())
