"""The free-will study's judgements of measured EMDs: the per-run EMDs of each (mechanism set, n, method), the
verdicts of Tables 1 and 2 and the paper's qualitative findings tested on paired per-run differences
(``free_will.findings``).

A table cell is judged on the EMD ratio of the column's method to GIBU at the set's largest n **with its interval**
(``uncertainty.ratio_interval``: the delta method on the paired per-run EMDs, Student's t over the runs), against
the bands of the config's rule ``free_will.verdict`` (ours: the paper prints no number for Excellent, Good or Bad).
A cell agrees with the paper when its whole interval lies in the band of the paper's verdict, disagrees when the
whole interval lies outside it, and is undecided at this scale when it crosses a threshold (``agreement``)."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from privest_studies import tables
from privest_studies.experiment import RAW_SUFFIX
from privest_studies.uncertainty import (
    AGREE,
    AGREEMENTS,
    DISAGREE,
    NA_RATIO,
    UNDECIDED,
    Ratio,
    interval_in_band,
    ratio_interval,
    rule_text,
    worst,
)


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


def bands(rule: Sequence[Mapping]) -> dict[str, tuple[float, float]]:
    """Each verdict of the rule with its band of ratios (low, high]: the first verdict's starts at 0, the last's
    (without max_ratio) ends at infinity."""
    out, low = {}, 0.0
    for entry in rule:
        high = float(entry.get("max_ratio", float("inf")))
        out[str(entry["verdict"])] = (low, high)
        low = high
    if low != float("inf"):
        raise ValueError("the verdict rule needs a last entry without max_ratio")
    return out


def verdict(ratio: float, rule: Sequence[Mapping]) -> str:
    """The first verdict of the config's rule whose max_ratio the ratio does not exceed (an entry without max_ratio
    matches any ratio); 'NA' for a NaN ratio (the method cannot run)."""
    if not np.isfinite(ratio):
        return "NA"
    return next(v for v, (_low, high) in bands(rule).items() if ratio <= high)


def verdicts_spanned(ratio: Ratio, rule: Sequence[Mapping]) -> list[str]:
    """The verdicts whose bands the interval [low, high] touches, in the rule's order; ['NA'] when it cannot run."""
    if not ratio.available:
        return ["NA"]
    return [v for v, (low, high) in bands(rule).items() if ratio.high > low and ratio.low <= high]


def interval_verdict(ratio: Ratio, rule: Sequence[Mapping]) -> str:
    """Our verdict of one ratio with its interval: the verdict when the interval lies in one band, else 'undecided
    (Good or Bad)' or 'undecided (Excellent to Bad)', naming the bands it spans."""
    spanned = verdicts_spanned(ratio, rule)
    if len(spanned) == 1:
        return spanned[0]
    return f"undecided ({spanned[0]} or {spanned[1]})" if len(spanned) == 2 else (
        f"undecided ({spanned[0]} to {spanned[-1]})")


def agreement(paper: str, ratio: Ratio, rule: Sequence[Mapping]) -> str:
    """One ratio against the paper's verdict: ``uncertainty.interval_in_band`` on the band of the paper's verdict;
    agree when both are NA, disagree when only one is."""
    if paper == "NA" or not ratio.available:
        return AGREE if paper == "NA" and not ratio.available else DISAGREE
    if paper not in bands(rule):
        raise ValueError(f"the paper's verdict {paper!r} is not one of the rule's ({', '.join(bands(rule))})")
    return interval_in_band(ratio.low, ratio.high, bands(rule)[paper])


def ratio_to_gibu(scores: Mapping[tuple[str, int, str], Summary], mechanism_set: str, method: str,
                  level: float = 0.95) -> Ratio | None:
    """The method's mean EMD over GIBU's at the set's largest n, with its interval (``ratio_interval``, paired by
    run); NA when the method cannot run, None when it was not run on this set."""
    n = largest_n(scores, mechanism_set)
    if (mechanism_set, n, method) not in scores:
        return None
    summary = scores[(mechanism_set, n, method)]
    if not summary.available:
        return NA_RATIO
    return ratio_interval(summary.emd, scores[(mechanism_set, n, "GIBU")].emd, level)


def paper_verdict(published: str) -> str:
    """The paper's verdict without its figure reference: 'Bad (Fig. 3)' -> 'Bad'."""
    return published.split(" (")[0].strip()


def cell_judgement(cells: Sequence[Mapping], paper: str, rule: Sequence[Mapping]) -> tuple[str, str]:
    """Our verdict and its agreement with the paper for one table cell, from its lines (one per mechanism set, each
    with 'alphabet' and the ratio's 'ratio', 'ratio_low', 'ratio_high', 'runs').

    Per alphabet the worst set decides (``worst``); our verdict is one text when the alphabets agree, else each with
    its alphabet ('NA (linear) / Bad (planar)'). The cell agrees when every alphabet agrees, disagrees when one does,
    and is undecided otherwise."""
    by_alphabet: dict[str, list[Ratio]] = {}
    for c in cells:
        by_alphabet.setdefault(c["alphabet"], []).append(
            Ratio(c["ratio"], c["ratio_low"], c["ratio_high"], int(c["runs"])))
    worst_ratio = {alphabet: worst(ratios) for alphabet, ratios in by_alphabet.items()}
    ours = {alphabet: interval_verdict(r, rule) for alphabet, r in worst_ratio.items()}
    text = (next(iter(ours.values())) if len(set(ours.values())) == 1
            else " / ".join(f"{v} ({alphabet})" for alphabet, v in ours.items()))
    found = {agreement(paper_verdict(paper), r, rule) for r in worst_ratio.values()}
    return text, DISAGREE if DISAGREE in found else UNDECIDED if UNDECIDED in found else AGREE


def judge_cells(lines: Sequence[Mapping], rule: Sequence[Mapping]) -> list[dict]:
    """The lines of a table (one per row, column and mechanism set) with each cell's 'verdict' and 'agreement'
    (``cell_judgement``) under the rule."""
    cells: dict[tuple[str, str], list[Mapping]] = {}
    for line in lines:
        cells.setdefault((line["row"], line["column"]), []).append(line)
    judged = {key: cell_judgement(group, group[0]["paper"], rule) for key, group in cells.items()}
    return [{**line, "verdict": judged[line["row"], line["column"]][0],
             "agreement": judged[line["row"], line["column"]][1]} for line in lines]


def verdict_table(scores: Mapping[tuple[str, int, str], Summary], spec: Mapping, rule: Sequence[Mapping],
                  alphabets: Mapping[str, str] | None = None, level: float = 0.95) -> list[dict]:
    """The cells of Table 1 or 2 computed from measured EMDs. spec: {'columns': [{'label', 'methods'}], 'rows':
    [{'label', 'mechanism_sets', 'paper': [verdict per column, in column order]}]}; alphabets: each mechanism set's
    alphabet (linear, planar, ...).

    One line per (row, column, mechanism set): the best variant of the column's methods (e.g. projection or
    normalisation, by its ratio) and its EMD ratio to GIBU at the largest n with the interval at ``level``; each cell's
    verdict and agreement with the paper are ``judge_cells``'.
    """
    lines = []
    columns = [(column["label"], column["methods"]) for column in spec["columns"]]
    for row in spec["rows"]:
        if len(row["paper"]) != len(columns):
            raise ValueError(f"row {row['label']!r}: paper needs one verdict per column ({len(columns)})")
        for (column, methods), paper in zip(columns, row["paper"], strict=True):
            cells = []
            for mechanism_set in row["mechanism_sets"]:
                ratios = {m: ratio_to_gibu(scores, mechanism_set, m, level) for m in methods}
                ratios = {m: r for m, r in ratios.items() if r is not None}
                if not ratios:
                    continue
                finite = {m: r.value for m, r in ratios.items() if r.available}
                best = min(finite, key=finite.get) if finite else next(iter(ratios))
                r = ratios[best]
                cells.append({"mechanism_set": mechanism_set, "alphabet": (alphabets or {}).get(mechanism_set, ""),
                              "method": best, "n": largest_n(scores, mechanism_set), "runs": r.runs,
                              "ratio": r.value, "ratio_low": r.low, "ratio_high": r.high})
            if not cells:
                raise ValueError(f"table cell ({row['label']}, {column}): none of {methods} ran on "
                                 f"{row['mechanism_sets']}")
            lines += [{"row": row["label"], "column": column, **c, "paper": paper} for c in cells]
    return judge_cells(lines, rule)


def tally(lines: Sequence[Mapping]) -> dict[str, int]:
    """How many cells agree, disagree and are undecided (one count per cell, not per line)."""
    agreement_of = {(line["row"], line["column"]): line["agreement"] for line in lines}
    return {a: sum(v == a for v in agreement_of.values()) for a in AGREEMENTS}


def tally_text(lines: Sequence[Mapping]) -> str:
    """'14 agree, 2 disagree, 4 undecided (of 20 cells)'."""
    counts = tally(lines)
    return ", ".join(f"{counts[a]} {a}" for a in AGREEMENTS) + f" (of {sum(counts.values())} cells)"


def threshold_sensitivity(lines: Sequence[Mapping], rule: Sequence[Mapping], grid: Mapping[str, Sequence[float]]
                          ) -> list[dict]:
    """The cells' agreement with the paper when the rule's thresholds move: one row per pair (first, second) of the
    grid's values for the rule's first two max_ratio (grid keys: the two verdicts' names), first < second, with the
    counts of ``tally``."""
    thresholds = [entry for entry in rule if "max_ratio" in entry]
    if len(thresholds) != 2 or set(grid) != {e["verdict"] for e in thresholds}:
        raise ValueError("the threshold grid needs one list per verdict with a max_ratio, and the rule two of them")
    first, second = (e["verdict"] for e in thresholds)
    last = [entry for entry in rule if "max_ratio" not in entry]
    rows = []
    for a in grid[first]:
        for b in grid[second]:
            if a >= b:
                continue
            moved = [{"verdict": first, "max_ratio": a}, {"verdict": second, "max_ratio": b}, *last]
            rows.append({first: a, second: b, **tally(judge_cells(lines, moved)),
                         "ours": bool(a == thresholds[0]["max_ratio"] and b == thresholds[1]["max_ratio"])})
    return rows


def verdict_markdown(title: str, lines: Sequence[Mapping], rule: Sequence[Mapping],
                     sensitivity: Sequence[Mapping] = ()) -> str:
    """A rendered Table 1 or 2: each cell 'ours (ratio [interval] per set) · paper · agreement', the rule and where
    it comes from, the tally, and how many cells agree for other thresholds."""
    columns = list(dict.fromkeys(line["column"] for line in lines))
    runs = sorted({int(line["runs"]) for line in lines if np.isfinite(line["ratio"])})
    out = [f"# {title}", "",
           f"Each cell: our verdict, the EMD ratio to GIBU at the largest n (one per mechanism set) with its 95% "
           f"interval over {', '.join(map(str, runs))} runs (delta method on the paired per-run EMDs), the paper's "
           "verdict, and whether they agree. The thresholds are ours, "
           f"**{rule_text(rule)}**: the paper gives no number; they were fixed from its words (\"slightly "
           "outperforms\", \"clearly better\", \"significantly better\" or \"poor\") before any run. A cell agrees "
           "when its whole interval lies in the paper's band, disagrees when it lies wholly outside, and is "
           "undecided at this scale when it crosses a threshold.", "",
           f"**{tally_text(lines)}**", "",
           "| | " + " | ".join(columns) + " |", "|---" * (len(columns) + 1) + "|"]
    for row in dict.fromkeys(line["row"] for line in lines):
        cells = []
        for column in columns:
            mine = [line for line in lines if line["row"] == row and line["column"] == column]
            ratios = ", ".join(Ratio(c["ratio"], c["ratio_low"], c["ratio_high"], c["runs"]).text() for c in mine)
            cells.append(f"**{mine[0]['verdict']}** ({ratios}) · paper: {mine[0]['paper']} · "
                         f"{mine[0]['agreement']}")
        out.append(f"| {row} | " + " | ".join(cells) + " |")
    if sensitivity:
        first, second = list(sensitivity[0])[:2]
        out += ["", f"Cells that agree with the paper for other thresholds ({first} up to the row's ratio, "
                f"{second} up to the column's; ours in bold):", ""]
        seconds = list(dict.fromkeys(s[second] for s in sensitivity))
        out += [f"| {first} \\ {second} | " + " | ".join(f"{b:g}" for b in seconds) + " |",
                "|---" * (len(seconds) + 1) + "|"]
        for a in dict.fromkeys(s[first] for s in sensitivity):
            found = {s[second]: s for s in sensitivity if s[first] == a}
            out.append(f"| {a:g} | " + " | ".join(
                "—" if b not in found else (f"**{found[b][AGREE]}**" if found[b]["ours"] else f"{found[b][AGREE]}")
                for b in seconds) + " |")
    return "\n".join(out) + "\n"


HOLDS, FAILS = "holds", "fails"


def findings_markdown(lines: Sequence[Mapping]) -> str:
    """The findings of ``check_findings`` as a markdown page: how many hold, fail and are undecided, the rule, one
    row per comparison."""
    found = {r: sum(line["result"] == r for line in lines) for r in (HOLDS, FAILS, UNDECIDED)}
    rows = [{"check": line["check"], "test": line["test"], "set": line["mechanism_set"], "n": f"{line['n']:,}",
             "better": line["better"], "worse": line["worse"], "EMD better": f"{line['emd_better']:.4g}",
             "EMD worse": f"{line['emd_worse']:.4g}",
             "mean d ± SE": f"{line['mean_difference']:+.3g} ± {line['standard_error']:.2g}",
             "result": line["result"] if line["result"] == HOLDS else f"**{line['result']}**"} for line in lines]
    columns = ["check", "test", "set", "n", "better", "worse", "EMD better", "EMD worse", "mean d ± SE", "result"]
    return ("# The paper's qualitative findings, tested on our scores\n\n"
            f"Of {len(lines)} comparisons, {found[HOLDS]} hold, {found[FAILS]} fail and {found[UNDECIDED]} are "
            "undecided at this scale. At each set's largest n, d = EMD(better) - EMD(worse) per run (same reports). "
            "`better` (the paper: superior, outperforms, clearly better) holds when mean(d) < -z SE, fails when "
            "mean(d) > z SE (the other method is better beyond noise), and is undecided in between; `not_worse` "
            "holds when mean(d) <= z SE and fails otherwise.\n\n"
            + tables.markdown_table(rows, columns))


def paired_difference(better: Summary, worse: Summary) -> tuple[float, float]:
    """Mean and standard error over runs of EMD(better) - EMD(worse), paired by run (same reports)."""
    d = better.emd - worse.emd
    se = float(np.std(d, ddof=1) / np.sqrt(d.size)) if d.size > 1 else float("nan")
    return float(np.mean(d)), se


def finding_result(test: str, mean: float, margin: float) -> str:
    """holds, fails or undecided for a paired mean difference d = better - worse and the noise margin z SE.

    'better': holds when d < -margin, fails when d > margin, undecided in between (runs cannot tell the two apart);
    'not_worse': holds when d <= margin, fails otherwise."""
    if test == "better":
        return HOLDS if mean < -margin else FAILS if mean > margin else UNDECIDED
    if test == "not_worse":
        return HOLDS if mean <= margin else FAILS
    raise ValueError(f"a finding's test must be 'not_worse' or 'better', got {test!r}")


def check_findings(scores: Mapping[tuple[str, int, str], Summary], checks: Sequence[Mapping], z: float
                   ) -> list[dict]:
    """The qualitative findings of the paper, tested at each set's largest n on the paired differences over runs.

    Each check {'name', 'test', 'better', 'worse', 'mechanism_sets' (optional: every set that ran both)}: 'worse' is
    a method, a list of methods, or 'any' (every other method); its result is ``finding_result``'s. Pairs where
    either method cannot run (NA) are skipped.
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
                margin = z * se if np.isfinite(se) else float("inf")  # one run: nothing is beyond noise
                results.append({"check": check["name"], "test": check["test"], "mechanism_set": mechanism_set,
                                "n": n, "better": better, "worse": method, "emd_better": a.mean, "emd_worse": b.mean,
                                "mean_difference": mean, "standard_error": se, "z": z,
                                "result": finding_result(check["test"], mean, margin)})
    return results
