"""Do two runs of a study agree within noise? Their per-run scores side by side, cell by cell, with each cell's
difference of means and its interval (Welch), for two runs made with different random draws (e.g. other samplers:
the same distribution of reports, other reports), where ``tests/compare_results.py`` (byte by byte) can only say
that every number changed.

    python benchmarks/compare_scores.py OLD/scores.csv NEW/scores.csv [--score emd] [--level 0.95] [--out FILE.md]

A cell is one (dataset, n, method) of the scores tables (the columns both files have of study, dataset, n, method,
eps), its runs the rows with a finite score. Per cell: the runs and mean score on each side, the difference
new - old with its Welch interval at ``level``, and the difference in units of the old mean. A cell "differs" when
its interval leaves out 0. With many cells some differ by chance alone (about (1 - level) of them when both runs
draw from the same distribution): the summary gives that expected count and the cells that still differ after
Holm's correction for the number of cells (family-wise level ``level``). It reports, never judges: the exit status
is 0 unless the arguments are wrong.
"""

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

KEYS = ("study", "dataset", "n", "eps", "method")


def cells(old: pd.DataFrame, new: pd.DataFrame, score: str, level: float) -> pd.DataFrame:
    """One row per cell present on both sides: runs, means, the difference, its Welch interval and p-value."""
    keys = [key for key in KEYS if key in old.columns and key in new.columns]
    rows = []
    for cell, before in old.groupby(keys, sort=True):
        after = new
        for key, value in zip(keys, cell if isinstance(cell, tuple) else (cell,), strict=True):
            after = after[after[key] == value]
        a = before[score].to_numpy(float)
        b = after[score].to_numpy(float)
        a, b = a[np.isfinite(a)], b[np.isfinite(b)]
        if a.size < 2 or b.size < 2:
            continue
        difference = b.mean() - a.mean()
        if a.var() == 0 and b.var() == 0:  # no spread on either side: the difference is exact
            low = high = difference
            p = 1.0 if difference == 0 else 0.0
        else:  # Welch's test, scipy's
            welch = stats.ttest_ind(b, a, equal_var=False)
            low, high = welch.confidence_interval(level)
            p = float(welch.pvalue)
        rows.append(dict(zip(keys, cell if isinstance(cell, tuple) else (cell,), strict=True))
                    | {"runs_old": a.size, "runs_new": b.size, "mean_old": a.mean(), "mean_new": b.mean(),
                       "difference": difference, "low": low, "high": high, "p": p,
                       "relative": difference / a.mean() if a.mean() else float("nan")})
    table = pd.DataFrame(rows)
    if table.empty:
        return table
    table["differs"] = (table["low"] > 0) | (table["high"] < 0)
    table["differs_holm"] = _holm(table["p"].to_numpy(), 1 - level)
    return table


def _holm(p: np.ndarray, alpha: float) -> np.ndarray:
    """Holm's step-down test: which of the hypotheses (no difference) are rejected at family-wise level alpha."""
    order = np.argsort(p)
    rejected = np.zeros(p.size, dtype=bool)
    for rank, index in enumerate(order):
        if p[index] > alpha / (p.size - rank):
            break
        rejected[index] = True
    return rejected


def markdown(table: pd.DataFrame, score: str, level: float, old: str, new: str) -> str:
    if table.empty:
        return "No cell has at least two finite runs on both sides.\n"
    keys = [key for key in KEYS if key in table.columns]
    lines = [f"Mean {score} per cell, old ({old}) against new ({new}); the difference new - old with its "
             f"{level:.0%} Welch interval.", "",
             "| " + " | ".join(keys) + " | runs | old | new | new - old | interval | of old |",
             "|" + "---|" * len(keys) + "---:|---:|---:|---:|---|---:|"]
    for row in table.itertuples(index=False):
        mark = " **differs**" if row.differs else ""
        lines.append("| " + " | ".join(str(getattr(row, key)) for key in keys)
                     + f" | {row.runs_old}/{row.runs_new} | {row.mean_old:.4g} | {row.mean_new:.4g} | "
                       f"{row.difference:+.3g} | [{row.low:+.3g}, {row.high:+.3g}]{mark} | {row.relative:+.1%} |")
    differ, held = int(table["differs"].sum()), int(table["differs_holm"].sum())
    lines += ["", f"{len(table)} cells; {differ} differ at {level:.0%} (about {(1 - level) * len(table):.1f} expected "
                  f"by chance alone if both runs draw from one distribution); {held} still differ after Holm's "
                  f"correction for {len(table)} cells. Largest |new - old| / old: "
                  f"{table['relative'].abs().max():.1%}.", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--score", default="emd")
    parser.add_argument("--level", type=float, default=0.95)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    if not 0 < args.level < 1:
        parser.error(f"--level must be in (0, 1), got {args.level}")
    frames = []
    for path in (args.old, args.new):
        if not path.is_file():
            parser.error(f"{path}: no such file")
        frame = pd.read_csv(path)
        if args.score not in frame.columns:
            parser.error(f"{path}: no column {args.score!r} (columns: {', '.join(frame.columns)})")
        frames.append(frame)
    text = markdown(cells(*frames, args.score, args.level), args.score, args.level, str(args.old), str(args.new))
    if args.out:
        args.out.write_text(text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
