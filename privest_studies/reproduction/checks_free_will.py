"""The checks of the free-will paper's items: Tables 1 and 2 cell by cell, the findings of Figures 2-14, Propositions
2 and 3, and eq. (11)'s non-informative example.

Each is a function of the outputs, the config and the catalogue's arguments (see ``checks``). The study writes
numbers (``privest_studies.free_will_verdicts``: ratios to GIBU, paired differences, simulated errors, each with its
interval at the config's level, Student's t on runs - 1 degrees of freedom); every verdict is decided here.

Rules written after results existed are shown beside the verdict under the rule first written (not judged):
- the Excellent band of Tables 1-2 was (0, 1.2] until issue 45 gave it a lower end (config free_will.verdict,
  ``min_ratio_added``): a method far better than GIBU is not "slightly" worse than it;
- the findings were judged with z = 2 standard errors (``FIRST_FINDINGS_RULE``), and Figure 14's "similar" as "GIBU
  not worse than [RAP]_M", until issue 45 (2026-11-27) made them t intervals at the config's level, "similar" both
  ways.
"""

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from privest_studies import uncertainty
from privest_studies.reproduction.records import Comparison, Outcome, Outputs
from privest_studies.uncertainty import Ratio, interval_in_band, worst

BELOW = "below"
"""The name of the region under the first band's min_ratio (a method clearly better than GIBU)."""


FIRST_FINDINGS_Z = 2.0
FIRST_FINDINGS_RULE = "the first rule (z = 2 standard errors, config free_will.findings.z until 2026-11-27)"


# --- Tables 1 and 2: bands, a cell's verdict and its agreement with the paper ----------------------------------------


def bands(rule: Sequence[Mapping]) -> dict[str, tuple[float, float]]:
    """Each verdict of the rule with its band of ratios (low, high]: the first verdict's starts at its min_ratio (0
    without one), each next one at the previous max_ratio, the last's (without max_ratio) ends at infinity."""
    out, low = {}, float(rule[0].get("min_ratio", 0.0))
    for entry in rule:
        high = float(entry.get("max_ratio", float("inf")))
        out[str(entry["verdict"])] = (low, high)
        low = high
    if low != float("inf"):
        raise ValueError("the verdict rule needs a last entry without max_ratio")
    return out


def first_rule(rule: Sequence[Mapping]) -> list[dict]:
    """The rule as first written: without the lower ends added later (entries with ``min_ratio_added``)."""
    return [{key: value for key, value in entry.items() if key not in ("min_ratio", "min_ratio_added")}
            if "min_ratio_added" in entry else dict(entry) for entry in rule]


def rule_text(rule: Sequence[Mapping]) -> str:
    """'0.833 < Excellent <= 1.2 < Good <= 2 < Bad' (the first bound left out when the first band starts at 0)."""
    low = float(rule[0].get("min_ratio", 0.0))
    return (f"{low:.3g} < " if low > 0 else "") + uncertainty.rule_text(rule)


def verdicts_spanned(ratio: Ratio, rule: Sequence[Mapping]) -> list[str]:
    """The verdicts whose bands the interval [low, high] touches, in the rule's order (``BELOW`` first when it
    reaches under the first band); ['NA'] when the method cannot run."""
    if not ratio.available:
        return ["NA"]
    found = bands(rule)
    start = next(iter(found.values()))[0]
    below = [BELOW] if start > 0 and ratio.low <= start else []
    return below + [v for v, (low, high) in found.items() if ratio.high > low and ratio.low <= high]


def interval_verdict(ratio: Ratio, rule: Sequence[Mapping]) -> str:
    """Our verdict of one ratio with its interval: the verdict when the interval lies in one band, else 'undecided
    (Good or Bad)' or 'undecided (Excellent to Bad)', naming the bands it spans; 'below Excellent' under the first
    band."""
    spanned = [f"below {rule[0]['verdict']}" if v == BELOW else v for v in verdicts_spanned(ratio, rule)]
    if len(spanned) == 1:
        return spanned[0]
    return f"undecided ({spanned[0]} or {spanned[1]})" if len(spanned) == 2 else (
        f"undecided ({spanned[0]} to {spanned[-1]})")


def agreement(paper: str, ratio: Ratio, rule: Sequence[Mapping]) -> str:
    """One ratio against the paper's verdict: ``uncertainty.interval_in_band`` on the band of the paper's verdict;
    agree when both are NA, disagree when only one is."""
    if paper == "NA" or not ratio.available:
        return uncertainty.AGREE if paper == "NA" and not ratio.available else uncertainty.DISAGREE
    if paper not in bands(rule):
        raise ValueError(f"the paper's verdict {paper!r} is not one of the rule's ({', '.join(bands(rule))})")
    return interval_in_band(ratio.low, ratio.high, bands(rule)[paper])


def paper_verdict(published: str) -> str:
    """The paper's verdict without its figure reference: 'Bad (Fig. 3)' -> 'Bad'."""
    return published.split(" (")[0].strip()


def line_ratio(line: Mapping) -> Ratio:
    return Ratio(float(line["ratio"]), float(line["ratio_low"]), float(line["ratio_high"]), int(line["runs"]))


def is_reference(lines: Sequence[Mapping]) -> bool:
    """A cell of the reference over itself (GIBU's column): shown as the reference, neither judged nor counted."""
    return all(line["method"] == line["reference"] for line in lines)


def cell_judgement(lines: Sequence[Mapping], paper: str, rule: Sequence[Mapping]) -> tuple[str, str]:
    """Our verdict and its agreement with the paper for one table cell, from its lines (one per mechanism set, each
    with 'alphabet' and the ratio's 'ratio', 'ratio_low', 'ratio_high', 'runs').

    Per alphabet the worst set decides (``worst``); our verdict is one text when the alphabets agree, else each with
    its alphabet ('NA (linear) / Bad (planar)'). The cell agrees when every alphabet agrees, disagrees when one does,
    and is undecided otherwise."""
    by_alphabet: dict[str, list[Ratio]] = {}
    for line in lines:
        by_alphabet.setdefault(str(line["alphabet"]), []).append(line_ratio(line))
    worst_ratio = {alphabet: worst(ratios) for alphabet, ratios in by_alphabet.items()}
    ours = {alphabet: interval_verdict(r, rule) for alphabet, r in worst_ratio.items()}
    text = (next(iter(ours.values())) if len(set(ours.values())) == 1
            else " / ".join(f"{v} ({alphabet})" for alphabet, v in ours.items()))
    found = {agreement(paper_verdict(paper), r, rule) for r in worst_ratio.values()}
    return text, next(a for a in (uncertainty.DISAGREE, uncertainty.UNDECIDED, uncertainty.AGREE)
                      if a in found or a == uncertainty.AGREE)


def table_cells(rows: pd.DataFrame) -> dict[tuple[str, str], list[dict]]:
    """(row, column) -> its lines (one per mechanism set), in the table's order; the paper's NA read as 'NA'."""
    lines = rows.fillna({"paper": "NA", "alphabet": ""}).to_dict("records")
    cells: dict[tuple[str, str], list[dict]] = {}
    for line in lines:
        cells.setdefault((line["row"], line["column"]), []).append(line)
    return cells


def tally(cells: Mapping[tuple[str, str], Sequence[Mapping]], rule: Sequence[Mapping]) -> dict[str, int]:
    """How many judged cells (the reference left out) agree, disagree and are undecided under the rule."""
    found = [cell_judgement(lines, lines[0]["paper"], rule)[1] for lines in cells.values() if not is_reference(lines)]
    return {a: found.count(a) for a in uncertainty.AGREEMENTS}


def threshold_sensitivity(cells: Mapping[tuple[str, str], Sequence[Mapping]], rule: Sequence[Mapping],
                          grid: Mapping[str, Sequence[float]]) -> list[dict]:
    """The judged cells' agreement with the paper when the rule's thresholds move: one row per pair (first, second)
    of the grid's values for the rule's two max_ratio (grid keys: the two verdicts' names), first < second, with the
    counts of ``tally`` (the first band's min_ratio kept)."""
    thresholds = [entry for entry in rule if "max_ratio" in entry]
    if len(thresholds) != 2 or set(grid) != {e["verdict"] for e in thresholds}:
        raise ValueError("the threshold grid needs one list per verdict with a max_ratio, and the rule two of them")
    first, second = (dict(e) for e in thresholds)
    last = [entry for entry in rule if "max_ratio" not in entry]
    rows = []
    for a in grid[first["verdict"]]:
        for b in grid[second["verdict"]]:
            if a >= b:
                continue
            moved = [{**first, "max_ratio": a}, {**second, "max_ratio": b}, *last]
            rows.append({first["verdict"]: a, second["verdict"]: b, **tally(cells, moved),
                         "ours": bool(a == first["max_ratio"] and b == second["max_ratio"])})
    return rows


TABLE_NAMES = {"table01": "Table 1", "table02": "Table 2"}


def fw_verdicts(outputs: Outputs, config: Mapping, table: str) -> Outcome:
    """Tables 1-2, cell by cell (tables/<table>.csv: each cell's EMD ratio to GIBU per mechanism set with its
    interval): our verdict (config free_will.verdict) against the paper's, agree, disagree or undecided
    (``cell_judgement``); under the first rule too where its agreement differs (not judged); the GIBU column as the
    reference (neither judged nor counted); and how many cells agree for the other thresholds of the grid (not
    judged)."""
    spec = config["free_will"]
    rule, first = spec["verdict"], first_rule(spec["verdict"])
    cells = table_cells(outputs[f"free_will/tables/{table}.csv"])
    levels = {float(line["level"]) for lines in cells.values() for line in lines}
    tolerance = (f"whole {'/'.join(f'{x:.0%}' for x in sorted(levels))} interval (Student t on runs - 1 df) in the "
                 f"paper's band ({rule_text(rule)}; ours)")
    changed = next((entry["min_ratio_added"] for entry in rule if "min_ratio_added" in entry), "")
    comparisons = []
    for (row, column), lines in cells.items():
        ratios = ", ".join(line_ratio(line).text() for line in lines)
        paper = lines[0]["paper"]
        if is_reference(lines):
            comparisons.append(Comparison(f"{row}, {column}", paper, f"reference ({ratios})",
                                          f"reference: {lines[0]['reference']} over itself, neither judged nor "
                                          "counted", None))
            continue
        verdict, agreed = cell_judgement(lines, paper, rule)
        ours = f"{verdict} ({ratios})"
        if changed:
            old_verdict, old_agreed = cell_judgement(lines, paper, first)
            if old_agreed != agreed:
                ours += (f"; under the first rule ({rule_text(first)}; the lower end was added {changed}): "
                         f"{old_verdict}, {old_agreed} (not judged)")
        undecided = agreed == uncertainty.UNDECIDED
        comparisons.append(Comparison(f"{row}, {column}", paper, ours, tolerance,
                                      None if undecided else agreed == uncertainty.AGREE, undecided=undecided))
    counts = tally(cells, rule)
    judged = sum(counts.values())
    grid = threshold_sensitivity(cells, rule, spec["verdict_interval"]["thresholds"])
    agreeing = [g[uncertainty.AGREE] for g in grid]
    comparisons.append(Comparison(
        f"cells that agree for the other thresholds of the grid ({len(grid)} pairs around ours)",
        "no thresholds printed", f"{min(agreeing)} to {max(agreeing)} of {judged} (ours: {counts[uncertainty.AGREE]})",
        "not judged", None))
    name = TABLE_NAMES.get(table, table)
    references = sorted({lines[0]["column"] for lines in cells.values() if is_reference(lines)})
    return Outcome(comparisons, tally=f"{name}: " + ", ".join(f"{counts[a]} {a}" for a in uncertainty.AGREEMENTS)
                   + f" (of {judged} judged cells" + "".join(f"; the {c} column is the reference" for c in references)
                   + ")")


# --- Figures 2-14: the findings -----------------------------------------------------------------------------------


def excellent_band(rule: Sequence[Mapping]) -> tuple[float, float]:
    """The band of the rule's first verdict (Excellent): the paper's "similar" and "slightly"."""
    return next(iter(bands(rule).values()))


def finding_result(line: Mapping, rule: Sequence[Mapping]) -> str:
    """agree (the finding holds), disagree (it fails) or undecided for one line of tables/findings.csv.

    'better': the interval of d = EMD(better) - EMD(worse) wholly below 0 (``uncertainty.below_zero``); fails at or
    above.
    'similar': the interval of EMD(worse) / EMD(better) inside the Excellent band (both ways); fails wholly outside."""
    if line["test"] == "better":
        return uncertainty.below_zero(float(line["difference_low"]), float(line["difference_high"]))
    if line["test"] == "similar":
        return interval_in_band(float(line["ratio_low"]), float(line["ratio_high"]), excellent_band(rule))
    raise ValueError(f"a finding's test must be 'better' or 'similar', got {line['test']!r}")


def first_finding_result(line: Mapping) -> str:
    """The result under ``FIRST_FINDINGS_RULE``: 'better' held below -2 SE, failed above +2 SE; 'similar' was 'not
    worse': held at or below +2 SE, failed above."""
    mean, margin = float(line["mean_difference"]), FIRST_FINDINGS_Z * float(line["standard_error"])
    if not np.isfinite(margin):
        margin = np.inf
    if line["test"] == "better":
        return uncertainty.AGREE if mean < -margin else uncertainty.DISAGREE if mean > margin else uncertainty.UNDECIDED
    return uncertainty.AGREE if mean <= margin else uncertainty.DISAGREE


RESULT_WORDS = {uncertainty.AGREE: "holds", uncertainty.DISAGREE: "fails", uncertainty.UNDECIDED: "undecided"}


def finding_text(line: Mapping) -> str:
    """'[IBU]_M on krr_linear: d = -0.012 [-0.02, -0.004], ratio 1.45 [1.2, 1.7]'."""
    d = uncertainty.Difference(float(line["mean_difference"]), float(line["difference_low"]),
                               float(line["difference_high"]), float(line["standard_error"]), int(line["runs"]),
                               float(line["level"]))
    return (f"{line['worse']} on {line['mechanism_set']}: d = {d.text()}, ratio "
            f"{line_ratio(line).text()}")


def fw_findings(outputs: Outputs, config: Mapping, figure: str) -> Outcome:
    """A free-will figure's claims (tables/findings.csv) restricted to its mechanism sets and methods, each as strong
    as the paper's words (config free_will.findings), at the largest n: differs when one comparison fails, undecided
    when none fails and one cannot be told from noise at this scale (its interval crosses the threshold). Where the
    first rule (``FIRST_FINDINGS_RULE``) would have said otherwise, the row says so (not judged)."""
    spec = config["free_will"]["figures"][figure]
    rule = config["free_will"]["verdict"]
    table = outputs["free_will/tables/findings.csv"]
    rows = table[table["mechanism_set"].isin(spec["panels"]) & table["better"].isin(spec["methods"])
                 & table["worse"].isin(spec["methods"])]
    comparisons = []
    for check, group in rows.groupby("check", sort=False):
        lines = group.to_dict("records")
        results = [finding_result(line, rule) for line in lines]
        firsts = [first_finding_result(line) for line in lines]
        held = results.count(uncertainty.AGREE)
        ours = f"holds in {held} of {len(lines)}" + "".join(
            f"; {RESULT_WORDS[r]} for {finding_text(line)}" for line, r in zip(lines, results, strict=True)
            if r != uncertainty.AGREE)
        moved = [f"{RESULT_WORDS[old]} for {line['worse']} on {line['mechanism_set']}"
                 for line, new, old in zip(lines, results, firsts, strict=True) if new != old]
        if moved:
            ours += f" (under {FIRST_FINDINGS_RULE}: " + "; ".join(moved) + ", not judged)"
        test, better = lines[0]["test"], lines[0]["better"]
        level = f"{float(lines[0]['level']):.0%}"
        low, high = excellent_band(rule)
        tolerance = (f"better: the {level} t interval (runs - 1 df) of the paired mean difference d = EMD({better}) "
                     "- EMD(other) wholly below 0, at the largest n" if test == "better" else
                     f"similar (both ways): the {level} interval of EMD(other) / EMD({better}) inside the Excellent "
                     f"band ({low:.3g}, {high:g}], at the largest n")
        failed = uncertainty.DISAGREE in results
        undecided = uncertainty.UNDECIDED in results and not failed
        comparisons.append(Comparison(check, "holds", ours, tolerance, None if undecided else not failed,
                                      undecided=undecided))
    return Outcome(comparisons)


# --- Propositions 2 and 3 -----------------------------------------------------------------------------------------


def fw_propositions(outputs: Outputs, config: Mapping) -> Outcome:
    """Propositions 2 and 3 (tables/propositions.csv): E||theta_hat - theta||^2 of the raw estimate is at most the
    closed-form bound at every n. Per mechanism set and n, the simulated mean squared error's interval (Student t on
    runs - 1 df) against the bound: agrees when it lies wholly at or below, differs when wholly above, undecided when
    it crosses. The exact expectation (``free_will_verdicts.expected_mse``, from the estimate's variance) is shown
    beside, not judged: with mixed eps the bound is strict, but often by less than a percent."""
    table = outputs["free_will/tables/propositions.csv"]
    comparisons = []
    for mechanism_set, group in table.groupby("mechanism_set", sort=False):
        lines = group.sort_values("n").to_dict("records")
        results = [interval_in_band(float(x["mse_low"]), float(x["mse_high"]), (-np.inf, float(x["bound"])))
                   for x in lines]
        first = lines[0]
        ours = "; ".join(
            f"n = {int(x['n']):,}: MSE / bound {x['mse_mean'] / x['bound']:.3f} [{x['mse_low'] / x['bound']:.3f}, "
            f"{x['mse_high'] / x['bound']:.3f}] ({RESULT_WORDS[r]})" for x, r in zip(lines, results, strict=True))
        ours += f"; exact expectation / bound {first['expected'] / first['bound']:.4f} (not judged)"
        failed = uncertainty.DISAGREE in results
        undecided = uncertainty.UNDECIDED in results and not failed
        comparisons.append(Comparison(
            f"{mechanism_set}: {first['method']} (Proposition {int(first['proposition'])}), E||theta_hat - theta||^2 "
            f"at most the bound ({int(first['runs'])} runs per n)", "holds at every n", ours,
            f"the simulated mean's {float(first['level']):.0%} interval (Student t on runs - 1 df) wholly at or below "
            "the bound at every n", None if undecided else not failed, undecided=undecided))
    return Outcome(comparisons)


# --- Eq. (11): the non-informative average mechanism ---------------------------------------------------------------

UNIFORM_TOLERANCE = 1e-9
"""How far from its uniform start [IBU]_M's estimate may be and still count as not moved (float rounding)."""


def fw_noninformative(outputs: Outputs, config: Mapping) -> Outcome:
    """Eq. (11) (tables/eq11_noninformative.csv, one row per n, run and method): half the users on A, half on A'.
    [IBU]_M stays at its uniform start (every estimate within ``UNIFORM_TOLERANCE``); [INV]_M cannot invert A[n]
    (NA at every n); GIBU recovers theta: its EMD at the largest n below [IBU]_M's (the paired difference's
    interval wholly below 0), and falling with n (its mean EMD's interval at the largest n wholly below the one at
    the smallest n)."""
    spec = config["free_will"]
    level = float(config["report"]["level"])
    theta = np.asarray(spec["noninformative"]["theta"], dtype=float)
    table = outputs["free_will/tables/eq11_noninformative.csv"]
    comparisons = []

    ibu = table[table["method"] == "[IBU]_M"]
    distance = float(np.max(np.abs(ibu["theta0"].to_numpy(dtype=float) - 1 / len(theta)))) if len(ibu) else np.inf
    comparisons.append(Comparison(
        "[IBU]_M's estimate of theta_0 stays at its uniform start", f"{1 / len(theta):g} at every n",
        f"largest distance {distance:.2g} over {len(ibu)} estimates", f"at most {UNIFORM_TOLERANCE:g} (float rounding)",
        bool(distance <= UNIFORM_TOLERANCE)))

    inv = table[table["method"] == "[INV]_M-P"]
    estimated = sorted({int(n) for n in inv.loc[np.isfinite(inv["theta0"].to_numpy(dtype=float)), "n"]})
    singular = not estimated and not inv.empty
    comparisons.append(Comparison(
        "[INV]_M cannot invert A[n]", "NA at every n",
        f"NA in all {len(inv)} runs" if singular else
        f"an estimate at n = {', '.join(f'{n:,}' for n in estimated)}" if estimated else "not run",
        "no finite estimate", singular))

    def runs(method: str, n: int) -> np.ndarray:
        rows = table[(table["method"] == method) & (table["n"] == n)].sort_values("run")
        return rows["emd"].to_numpy(dtype=float)

    ns = sorted(int(n) for n in set(table.loc[table["method"] == "GIBU", "n"]))
    largest, smallest = ns[-1], ns[0]
    d = uncertainty.difference_interval(runs("GIBU", largest), runs("[IBU]_M", largest), level)
    beaten = uncertainty.below_zero(d.low, d.high)
    comparisons.append(Comparison(
        f"GIBU recovers theta where [IBU]_M cannot: EMD(GIBU) - EMD([IBU]_M) at n = {largest:,} ({d.runs} runs)",
        "below 0", f"d = {d.text()}", f"the paired mean difference's {level:.0%} t interval (runs - 1 df) wholly "
        "below 0", None if beaten == uncertainty.UNDECIDED else beaten == uncertainty.AGREE,
        undecided=beaten == uncertainty.UNDECIDED))
    if len(ns) > 1:
        big, small = (uncertainty.difference_interval(emd, np.zeros_like(emd), level)
                      for emd in (runs("GIBU", largest), runs("GIBU", smallest)))
        falls = (uncertainty.AGREE if big.high < small.low else uncertainty.DISAGREE if big.low > small.high
                 else uncertainty.UNDECIDED)
        comparisons.append(Comparison(
            f"GIBU's EMD falls with n: n = {smallest:,} against n = {largest:,}", "falls",
            f"{small.mean:.3g} [{small.low:.3g}, {small.high:.3g}] -> {big.mean:.3g} [{big.low:.3g}, {big.high:.3g}]",
            f"the mean EMD's {level:.0%} t interval (runs - 1 df) at the largest n wholly below the one at the "
            "smallest n (independent runs)", None if falls == uncertainty.UNDECIDED else falls == uncertainty.AGREE,
            undecided=falls == uncertainty.UNDECIDED))
    return Outcome(comparisons)
