"""The free-will study's judgements of measured EMDs: the per-run EMDs of each (mechanism set, n, method), the
verdicts of Tables 1 and 2 (the EMD ratio to GIBU at the largest n against the config's rule ``free_will.verdict``),
and the paper's qualitative findings tested on paired per-run differences (``free_will.findings``)."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from privest_studies import tables
from privest_studies.experiment import RAW_SUFFIX


@dataclass(frozen=True)
class Summary:
    """Per-run EMDs of one (mechanism set, n, method), in run order."""

    emd: np.ndarray

    @property
    def available(self) -> bool:
        return bool(np.isfinite(self.emd).any())

    @property
    def mean(self) -> float:
        return float(np.mean(self.emd))


def emd_by_run(rows: Sequence[Mapping]) -> dict[tuple[str, int, str], Summary]:
    """(mechanism_set, n, method) -> the EMDs of its runs, from tidy score rows (raw methods left out)."""
    table: dict[tuple[str, int, str], dict[int, float]] = {}
    for row in rows:
        if str(row["method"]).endswith(RAW_SUFFIX):
            continue
        key = (str(row["mechanism_set"]), int(row["n"]), str(row["method"]))
        table.setdefault(key, {})[int(row["run"])] = float(row["emd"])
    return {key: Summary(np.array([runs[r] for r in sorted(runs)])) for key, runs in table.items()}


def largest_n(scores: Mapping[tuple[str, int, str], Summary], mechanism_set: str) -> int:
    ns = [n for (s, n, _m) in scores if s == mechanism_set]
    if not ns:
        raise ValueError(f"no scores for mechanism set {mechanism_set!r}")
    return max(ns)


def verdict(ratio: float, rule: Sequence[Mapping]) -> str:
    """The first verdict of the config's rule whose max_ratio the ratio does not exceed (an entry without max_ratio
    matches any ratio); 'NA' for a NaN ratio (the method cannot run)."""
    if not np.isfinite(ratio):
        return "NA"
    for entry in rule:
        if "max_ratio" not in entry or ratio <= float(entry["max_ratio"]):
            return str(entry["verdict"])
    raise ValueError("the verdict rule needs a last entry without max_ratio")


def ratio_to_gibu(scores: Mapping[tuple[str, int, str], Summary], mechanism_set: str, method: str) -> float | None:
    """Mean EMD of the method over that of GIBU at the set's largest n; NaN when the method cannot run (NA), None
    when the method was not run on this set."""
    n = largest_n(scores, mechanism_set)
    if (mechanism_set, n, method) not in scores:
        return None
    summary = scores[(mechanism_set, n, method)]
    if not summary.available:
        return float("nan")
    return summary.mean / scores[(mechanism_set, n, "GIBU")].mean


def cell_verdict(cells: Sequence[Mapping], rule: Sequence[Mapping], alphabets: Mapping[str, str]) -> str:
    """The verdict of one table cell from its sets' ratios: per alphabet, that of the worst set (largest ratio) among
    the sets where the method ran, 'NA' when it ran on none; one verdict when the alphabets agree, else each with its
    alphabet, e.g. 'NA (linear) / Bad (planar)', so that the cell hides neither."""
    by_alphabet: dict[str, list[float]] = {}
    for c in cells:
        by_alphabet.setdefault(alphabets.get(c["mechanism_set"], ""), []).append(c["ratio"])
    verdicts = {alphabet: verdict(max(finite), rule) if (finite := [r for r in ratios if np.isfinite(r)]) else "NA"
                for alphabet, ratios in by_alphabet.items()}
    if len(set(verdicts.values())) == 1:
        return next(iter(verdicts.values()))
    return " / ".join(f"{v} ({alphabet})" for alphabet, v in verdicts.items())


def verdict_table(scores: Mapping[tuple[str, int, str], Summary], spec: Mapping, rule: Sequence[Mapping],
                  alphabets: Mapping[str, str] | None = None) -> list[dict]:
    """The cells of Table 1 or 2 computed from measured EMDs. spec: {'columns': [{'label', 'methods'}], 'rows':
    [{'label', 'mechanism_sets', 'paper': [verdict per column, in column order]}]}; alphabets: each mechanism set's
    alphabet (linear, planar, ...).

    One line per (row, column, mechanism set): the best variant of the column's methods (e.g. projection or
    normalisation) and its EMD ratio to GIBU at the largest n; the cell's verdict is ``cell_verdict``: per alphabet
    that of the worst set where the method ran ('NA' where it ran on none), both shown when the alphabets differ.
    """
    lines = []
    columns = [(column["label"], column["methods"]) for column in spec["columns"]]
    for row in spec["rows"]:
        if len(row["paper"]) != len(columns):
            raise ValueError(f"row {row['label']!r}: paper needs one verdict per column ({len(columns)})")
        for (column, methods), paper in zip(columns, row["paper"], strict=True):
            cells = []
            for mechanism_set in row["mechanism_sets"]:
                ratios = {m: ratio_to_gibu(scores, mechanism_set, m) for m in methods}
                ratios = {m: r for m, r in ratios.items() if r is not None}
                if not ratios:
                    continue
                finite = {m: r for m, r in ratios.items() if np.isfinite(r)}
                best = min(finite, key=finite.get) if finite else next(iter(ratios))
                cells.append({"mechanism_set": mechanism_set, "method": best, "ratio": ratios[best],
                              "n": largest_n(scores, mechanism_set)})
            if not cells:
                raise ValueError(f"table cell ({row['label']}, {column}): none of {methods} ran on "
                                 f"{row['mechanism_sets']}")
            ours = cell_verdict(cells, rule, alphabets or {})
            lines += [{"row": row["label"], "column": column, **c, "verdict": ours, "paper": paper} for c in cells]
    return lines


def verdict_markdown(title: str, lines: Sequence[Mapping]) -> str:
    """A rendered Table 1 or 2: each cell 'ours (ratios) / paper'."""
    columns = list(dict.fromkeys(line["column"] for line in lines))
    out = [f"# {title}", "", "Each cell: our verdict (EMD ratio to GIBU at the largest n, one per mechanism set) | "
           "the paper's verdict.", "", "| | " + " | ".join(columns) + " |", "|---" * (len(columns) + 1) + "|"]
    for row in dict.fromkeys(line["row"] for line in lines):
        cells = []
        for column in columns:
            mine = [line for line in lines if line["row"] == row and line["column"] == column]
            ratios = ", ".join("NA" if not np.isfinite(c["ratio"]) else f"{c['ratio']:.2f}" for c in mine)
            cells.append(f"**{mine[0]['verdict']}** ({ratios}) · paper: {mine[0]['paper']}")
        out.append(f"| {row} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def findings_markdown(lines: Sequence[Mapping]) -> str:
    """The findings of ``check_findings`` as a markdown page: how many pass, the rule, one row per comparison."""
    passed = sum(line["passed"] for line in lines)
    rows = [{"check": line["check"], "set": line["mechanism_set"], "n": f"{line['n']:,}", "better": line["better"],
             "worse": line["worse"], "EMD better": f"{line['emd_better']:.4g}",
             "EMD worse": f"{line['emd_worse']:.4g}",
             "mean d ± SE": f"{line['mean_difference']:+.3g} ± {line['standard_error']:.2g}",
             "passed": "yes" if line["passed"] else "**NO**"} for line in lines]
    columns = ["check", "set", "n", "better", "worse", "EMD better", "EMD worse", "mean d ± SE", "passed"]
    return ("# The paper's qualitative findings, tested on our scores\n\n"
            f"{passed} of {len(lines)} comparisons pass. At each set's largest n, d = EMD(better) - EMD(worse) per run "
            "(same reports); not_worse passes when mean(d) <= z SE, better when mean(d) < -z SE.\n\n"
            + tables.markdown_table(rows, columns))


def paired_difference(better: Summary, worse: Summary) -> tuple[float, float]:
    """Mean and standard error over runs of EMD(better) - EMD(worse), paired by run (same reports)."""
    d = better.emd - worse.emd
    se = float(np.std(d, ddof=1) / np.sqrt(d.size)) if d.size > 1 else float("nan")
    return float(np.mean(d)), se


def check_findings(scores: Mapping[tuple[str, int, str], Summary], checks: Sequence[Mapping], z: float
                   ) -> list[dict]:
    """The qualitative findings of the paper, tested at each set's largest n on the paired differences over runs.

    Each check {'name', 'test', 'better', 'worse', 'mechanism_sets' (optional: every set that ran both)}: 'worse' is
    a method, a list of methods, or 'any' (every other method). test 'not_worse': mean(better - worse) <= z SE (the
    better is not worse by more than noise); test 'better': mean(better - worse) < -z SE (strictly better beyond
    noise). Pairs where either method cannot run (NA) are skipped.
    """
    results = []
    sets = sorted({s for (s, _n, _m) in scores})
    for check in checks:
        if check["test"] not in ("not_worse", "better"):
            raise ValueError(f"check {check['name']!r}: test must be 'not_worse' or 'better', got {check['test']!r}")
        for mechanism_set in check.get("mechanism_sets", sets):
            n = largest_n(scores, mechanism_set)
            methods = sorted(m for (s, nn, m) in scores if s == mechanism_set and nn == n)
            better = check["better"]
            worse = ([m for m in methods if m != better] if check["worse"] == "any"
                     else [check["worse"]] if isinstance(check["worse"], str) else list(check["worse"]))
            for method in worse:
                if method not in methods or better not in methods:
                    continue
                a, b = scores[(mechanism_set, n, better)], scores[(mechanism_set, n, method)]
                if not (a.available and b.available):
                    continue
                mean, se = paired_difference(a, b)
                margin = z * se if np.isfinite(se) else 0.0
                passed = mean <= margin if check["test"] == "not_worse" else mean < -margin
                results.append({"check": check["name"], "test": check["test"], "mechanism_set": mechanism_set,
                                "n": n, "better": better, "worse": method, "emd_better": a.mean, "emd_worse": b.mean,
                                "mean_difference": mean, "standard_error": se, "z": z, "passed": bool(passed)})
    return results
