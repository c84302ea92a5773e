"""The checks of the count paper's items (Constrained differential privacy for count data).

Each is a function of the outputs, the config and the catalogue's arguments (see ``checks``). The scripts write
numbers only (ours, the paper's where it prints one, and what its claim compares them with); every verdict is decided
here, with the tolerances stated here or in the catalogue's arguments. A claim on the repetitions of an experiment
(Figures 10-13) is judged on the paired per-repetition difference with its two-sided interval at config report.level
(Student t on repetitions - 1 degrees of freedom).
"""

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from privest_studies import uncertainty
from privest_studies.reproduction.printed import as_printed, as_printed_tolerance, fmt
from privest_studies.reproduction.records import Comparison, Outcome, Outputs

# The size of each kind of number's tolerance in tables/published.csv (its `tolerance` column): an exact comparison,
# a closed form against its formula (double precision), an LP solution (HiGHS's feasibility tolerance is 1e-7), a
# bisection with the checker (50 halvings of (0, 1), then the checker's own tolerance).
_TOLERANCES = {"exact": 0.0, "closed form": 1e-12, "LP": 1e-6, "bisection": 1e-6}
_FLOWCHART_SLACK = 10  # Figure 5: two LP scores agree within 10 times the checker's tolerance (config)


def published_verdict(value: float, relation: str, reference: float, high: float, tolerance: str
                      ) -> tuple[bool | None, str]:
    """One row of tables/published.csv judged: (agrees, the rule in words); agrees is None for a row only shown."""
    if relation == "shown":
        return None, "not judged"
    if relation == "rounds to":
        return as_printed(value, f"{reference:g}"), as_printed_tolerance(f"{reference:g}")
    if tolerance not in _TOLERANCES:
        raise ValueError(f"constrained_counts/tables/published.csv: unknown tolerance {tolerance!r} (known: "
                         f"{', '.join(_TOLERANCES)}, printed digits)")
    tol = _TOLERANCES[tolerance]
    rules = {
        "equals": (abs(value - reference) <= tol, f"|ours - {fmt(reference, 6)}| <= {tol:g} ({tolerance})"),
        "below": (value < reference - tol, f"< {fmt(reference, 6)}"),
        "above": (value > reference + tol, f"> {fmt(reference, 6)}"),
        "between": (reference - tol <= value <= high + tol, f"in [{fmt(reference, 4)}, {fmt(high, 4)}]"),
        "inside": (reference + tol < value < high - tol, f"in ({fmt(reference, 4)}, {fmt(high, 4)})"),
    }
    if relation not in rules:
        raise ValueError(f"constrained_counts/tables/published.csv: unknown relation {relation!r} (known: "
                         f"{', '.join(rules)}, rounds to, shown)")
    agrees, rule = rules[relation]
    return bool(agrees), rule


def counts_published(outputs: Outputs, config: Mapping, where: str) -> Outcome:
    """The count paper's numbers of tables/published.csv whose `where` mentions the given text, each judged by its
    relation (``published_verdict``); a row whose `construction` names the parameter the printed number fixed agrees
    by construction."""
    table = outputs["constrained_counts/tables/published.csv"]
    rows = table[table["where"].str.contains(where, regex=False)]
    if rows.empty:
        raise ValueError(f"no row of constrained_counts/tables/published.csv mentions {where!r}")
    comparisons = []
    for row in rows.itertuples():
        agrees, rule = published_verdict(float(row.value), str(row.relation), float(row.reference),
                                         float(row.reference_high), str(row.tolerance))
        construction = "" if pd.isna(row.construction) else str(row.construction)
        comparisons.append(Comparison(row.quantity, str(row.paper), str(row.ours), rule, agrees,
                                      construction=construction))
    return Outcome(comparisons)


def optimal_properties(outputs: Outputs, config: Mapping) -> Outcome:
    """Figure 2: on every panel's LP with all seven properties the property checker confirms BasicDP and the seven
    properties, and no output is a gap (each is reported with more than the checker's tolerance for some input)."""
    table = outputs["constrained_counts/tables/fig02_properties.csv"]
    constrained = table[table["lp"] == "constrained"]
    if constrained.empty:
        raise ValueError("constrained_counts/tables/fig02_properties.csv holds no constrained panel")
    names = [c for c in table.columns if c not in ("panel", "objective", "n", "alpha", "lp", "least_reported")]
    cells = constrained[names].to_numpy()
    found = int((cells == 1).sum())
    tolerance = float(config["constrained_counts"]["tolerance"])
    least = float(constrained["least_reported"].min())
    comparisons = [
        Comparison(f"properties the checker finds on the {len(constrained)} panels ({', '.join(names)})",
                   f"all {cells.size}", f"{found} of {cells.size}", "every one", found == cells.size),
        Comparison("the least reported output's largest probability, over the panels (0: a gap)", "> 0 (no gaps)",
                   fmt(least, 4), f"> {tolerance:g} (the checker's tolerance)", least > tolerance),
    ]
    comparisons += [Comparison(f"panel ({row.panel}) {row.objective}, n {row.n}: {name}", "holds", "fails", "checker",
                               False) for row in constrained.itertuples() for name in names
                    if getattr(row, name) != 1]
    return Outcome(comparisons)


def _selected(table: pd.DataFrame, where: Mapping[str, Any], path: str) -> pd.DataFrame:
    """The rows of a table whose columns hold the given values (a list: any of them; 'max' and 'min' name a column's
    largest and smallest value); one line naming the column when none does."""
    for column, wanted in where.items():
        values = table[column]
        if isinstance(wanted, list):
            chosen = values.isin(wanted)
        else:
            target = _level(values, wanted)
            chosen = values == target if isinstance(target, str) else np.isclose(values.astype(float), float(target))
        if not chosen.any():
            raise ValueError(f"{path}: no row has {column} = {wanted!r} (values: {sorted(values.unique())})")
        table = table[chosen]
    return table


def _level(values: pd.Series, wanted: Any) -> Any:
    """A value of the compared column: 'max' and 'min' its largest and smallest."""
    return values.max() if wanted == "max" else values.min() if wanted == "min" else wanted


def _paired(table: pd.DataFrame, value: str, by: str, first: Any, second: Any) -> tuple[pd.Series, pd.Series, int]:
    """Per repetition, the mean of ``value`` over the points (every other column) where ``by`` is first and where it
    is second, on the points both have; and the number of points."""
    keys = [c for c in table.columns if c not in (value, by)]
    wide = table.pivot_table(index=keys, columns=by, values=value, aggfunc="mean")
    a, b = _level(table[by], first), _level(table[by], second)
    for level in (a, b):
        if level not in wide.columns:
            raise ValueError(f"no row has {by} = {level!r} (values: {sorted(wide.columns)})")
    both = wide[[a, b]].dropna()
    means = both.groupby(level="repetition").mean()
    return means[a], means[b], len(both) // max(len(means), 1)


def _groups(table: pd.DataFrame, each: Sequence[str]) -> list[tuple[str, pd.DataFrame]]:
    """The table split by the columns of ``each`` (one group, unnamed, when empty), each with its name."""
    if not each:
        return [("", table)]
    return [(", ".join(f"{c} {v:g}" if isinstance(v, float) else f"{c} {v}" for c, v in zip(each, key, strict=True)),
             rows) for key, rows in table.groupby(list(each))]


def _interval_comparison(quantity: str, paper: str, difference: uncertainty.Difference, band: tuple[float, float],
                         rule: str) -> Comparison:
    """A paired difference judged against a band (``uncertainty.interval_in_band``): agrees inside, differs wholly
    outside, undecided across an end."""
    found = uncertainty.interval_in_band(difference.low, difference.high, band)
    ours = f"{difference.text()} ({difference.runs} repetitions)"
    if found == uncertainty.UNDECIDED:
        return Comparison(quantity, paper, ours, rule, None, undecided=True)
    return Comparison(quantity, paper, ours, rule, found == uncertainty.AGREE)


def _difference_claims(outputs: Outputs, config: Mapping, table: str, value: str, by: str, first: Any, second: Any,
                       claim: str, where: Mapping[str, Any] | None, each: Sequence[str], paper: str,
                       band: tuple[float, float], rule: str) -> Outcome:
    """One comparison per group of ``each``: the paired per-repetition difference of ``value`` where ``by`` is
    ``first`` minus where it is ``second`` (``_paired``), its interval at config report.level against ``band``."""
    path = f"constrained_counts/tables/{table}.csv"
    rows = _selected(outputs[path], where or {}, path)
    level = float(config["report"]["level"])
    comparisons = []
    for name, group in _groups(rows, each):
        a, b, points = _paired(group, value, by, first, second)
        difference = uncertainty.difference_interval(a.to_numpy(), b.to_numpy(), level)
        quantity = (f"{claim}{f' ({name})' if name else ''}: {value} where {by} is {first} minus where it is "
                    f"{second}, mean of {points} points per repetition")
        comparisons.append(_interval_comparison(quantity, paper, difference, band, f"{level:.0%} {rule}"))
    return Outcome(comparisons)


def counts_ordering(outputs: Outputs, config: Mapping, table: str, value: str, smaller: Any, larger: Any,
                    claim: str, by: str = "mechanism", where: Mapping[str, Any] | None = None,
                    each: Sequence[str] = ()) -> Outcome:
    """A directional claim of Figures 10-13 ("EM is more accurate than GM", "the RMSE grows with n"): ``value`` where
    ``by`` is ``smaller`` is below its value where ``by`` is ``larger`` ('max' and 'min' name the column's extremes),
    on the rows ``where`` selects, averaged per repetition over the other points, one comparison per group of
    ``each``. Judged on the paired per-repetition difference larger - smaller: agrees when its two-sided interval at
    config report.level lies above 0, differs when it lies at or below 0, undecided when it holds 0."""
    return _difference_claims(outputs, config, table, value, by, larger, smaller, claim, where, each, "> 0",
                              (0.0, math.inf), "paired t interval above 0")


def counts_close(outputs: Outputs, config: Mapping, table: str, value: str, first: Any, second: Any, margin: float,
                 claim: str, by: str = "mechanism", where: Mapping[str, Any] | None = None,
                 each: Sequence[str] = ()) -> Outcome:
    """A two-sided claim of Figure 10 ("WM tracks UM quite closely"): ``value`` where ``by`` is ``first`` and where it
    is ``second`` differ by at most ``margin`` either way (the catalogue's reading of the words, fixed before the
    first comparison), on the paired per-repetition difference as in ``counts_ordering``: agrees when its interval at
    config report.level lies inside (-margin, margin], differs when it lies wholly outside, undecided when it crosses
    an end."""
    return _difference_claims(outputs, config, table, value, by, first, second, claim, where, each,
                              f"within +-{margin:g}", (-margin, margin),
                              f"paired t interval inside (-{margin:g}, {margin:g}]")


def properties_table(outputs: Outputs, config: Mapping) -> Outcome:
    """Figure 6: the property table computed by the checker against every entry the paper prints."""
    table = outputs["constrained_counts/tables/fig06_properties.csv"].set_index("property")
    mechanisms = [c for c in table.columns if f"{c} paper" in table.columns]
    cells = [(p, m, table.loc[p, m], table.loc[p, f"{m} paper"]) for p in table.index for m in mechanisms
             if isinstance(table.loc[p, f"{m} paper"], str) and table.loc[p, f"{m} paper"]]
    same = sum(ours == paper for _, _, ours, paper in cells)
    comparisons = [Comparison("entries of the property table", f"{len(cells)} printed", f"{same} the same",
                              "every entry", same == len(cells))]
    comparisons += [Comparison(f"{m} {p}", paper, f"{ours} ({table.loc[p, f'{m} (holds/points)']} grid points)",
                               "exact", False) for p, m, ours, paper in cells if ours != paper]
    return Outcome(comparisons)


def flowchart(outputs: Outputs, config: Mapping) -> Outcome:
    """Figure 5: the flowchart's mechanism scores the LP's optimum (within _FLOWCHART_SLACK times the checker's
    tolerance, either way) for every set of properties checked."""
    table = outputs["constrained_counts/tables/fig05_flowchart.csv"]
    slack = _FLOWCHART_SLACK * float(config["constrained_counts"]["tolerance"])
    gaps = (table["choice_score"] - table["lp_score"]).abs()
    agree = int((gaps <= slack).sum())
    points = table[["n", "alpha"]].drop_duplicates().shape[0]
    comparisons = [Comparison(f"property sets where the flowchart's choice scores the LP optimum ({points} (n, "
                              "alpha) points)", f"all {len(table)}", f"{agree} of {len(table)} (largest |choice - LP| "
                              f"{fmt(float(gaps.max()), 2)})", f"|choice - LP| <= {slack:g}", agree == len(table))]
    worst = table.loc[gaps.idxmax()]
    if gaps.max() > slack:
        comparisons.append(Comparison(
            f"the farthest: n {worst['n']}, alpha {worst['alpha']:g}, {worst['properties']}",
            f"{worst['choice']} is optimal", f"{worst['choice']} {worst['choice_score']:.6f}, LP "
            f"{worst['lp_score']:.6f}", f"|choice - LP| <= {slack:g}", False))
    return Outcome(comparisons)


def counts_objectives(outputs: Outputs, config: Mapping, tolerance: float, close: float) -> Outcome:
    """Figure 8: (a) WH alone or with row properties costs what GM costs from n = 2a/(1-a) on, any column property
    costs more; (b) at the largest alpha every combination with WH costs what EM costs."""
    a = outputs["constrained_counts/tables/fig08a_objectives.csv"]
    alpha = float(a["alpha"].iloc[0])
    past = a[a["n"] >= 2 * alpha / (1 - alpha)].pivot_table(index="n", columns="mechanism", values="score")
    rows_only = [c for c in past.columns if c.startswith("WH") and "C" not in c]
    columns = [c for c in past.columns if c.startswith("WH") and "C" in c]
    gap_rows = float((past[rows_only].sub(past["GM"], axis=0)).abs().max().max())
    gap_columns = float((past[columns].sub(past["GM"], axis=0)).min().min())
    b = outputs["constrained_counts/tables/fig08b_objectives.csv"]
    top = b[b["alpha"] == b["alpha"].max()].set_index("mechanism")["score"]
    gap_em = float((top[[c for c in top.index if c.startswith("WH")]] - top["EM"]).abs().max())
    return Outcome([
        Comparison(f"(a) alpha {alpha:g}, n >= 2a/(1-a): largest |score - GM's| of WH, WH+RH, WH+RM", "0 (equal)",
                   fmt(gap_rows, 2), f"<= {tolerance:g}", gap_rows <= tolerance),
        Comparison(f"(a) alpha {alpha:g}, n >= 2a/(1-a): smallest score - GM's with a column property", "> 0",
                   fmt(gap_columns, 3), f"> {tolerance:g}", gap_columns > tolerance),
        Comparison(f"(b) alpha {b['alpha'].max():g}: largest |score - EM's| of the WH "
                   "combinations", "0 (identical)", fmt(gap_em, 2), f"<= {close:g}", gap_em <= close),
    ])


def um_chance(outputs: Outputs, config: Mapping) -> Outcome:
    """Figure 10: UM answers correctly with probability 1/(n+1) whatever the data, so its fraction of wrong answers
    is n/(n+1): at every group size n, the exact (Clopper-Pearson) interval of the wrong answers over all UM's groups
    holds n/(n+1), the k group sizes together at config report.level (each at 1 - (1 - level)/k, Bonferroni)."""
    table = outputs["constrained_counts/tables/fig10_adult.csv"]
    um = table[table["mechanism"] == "UM"]
    if um.empty:
        raise ValueError("constrained_counts/tables/fig10_adult.csv holds no row of UM")
    level = float(config["report"]["level"])
    sizes = um.groupby("n")
    each = 1 - (1 - level) / sizes.ngroups
    per_n = []  # (distance outside the interval, n, observed, expected, low, high) of each group size
    for n, rows in sizes:
        expected, groups = n / (n + 1), int(rows["groups"].sum())
        wrong = round(float((rows["wrong_fraction"] * rows["groups"]).sum()))
        interval = stats.binomtest(wrong, groups).proportion_ci(each, method="exact")
        outside = max(interval.low - expected, expected - interval.high, 0.0)
        per_n.append((outside, abs(wrong / groups - expected), n, wrong / groups, expected, interval.low,
                      interval.high))
    outside, _, n, observed, expected, low, high = max(per_n)
    return Outcome([Comparison(
        f"UM's fraction of wrong answers at each of {len(per_n)} group sizes (the n farthest from n/(n+1))",
        "n/(n+1)", f"n = {n}: {observed:.4f} [{low:.4f}, {high:.4f}] against {expected:.4f}",
        f"n/(n+1) inside every exact interval, {level:.0%} together (Bonferroni over the group sizes)",
        outside == 0.0, key="UM's fraction of wrong answers")])


def counts_scores(outputs: Outputs, config: Mapping, tolerance: float, close: float) -> Outcome:
    """Figure 9 (section V-A): WM's L0 score meets GM's from GM's weak-honesty threshold n = 2a/(1-a) on and stays
    above it below (LP optima: equal within ``tolerance``); on a panel whose threshold lies beyond its largest n, EM
    is weakly honest (its diagonal at least 1/(n+1)) and WM's cost "remains the same as" EM's (within ``close``, the
    catalogue's reading of Figure 8(b)'s "identical to the cost of EM"); on the first panel (the smallest alpha) EM
    costs more than GM, and its cost decreases with n (no step rises by more than ``tolerance``, and it falls from the
    first n to the last). The rules first written for the last two (``tolerance``, and a fall at every step) are shown
    beside them, not judged."""
    table = outputs["constrained_counts/tables/fig09_scores.csv"]
    scores = table.pivot_table(index=["alpha", "n"], columns="mechanism", values="score")
    points = table.drop_duplicates(["alpha", "n"]).set_index(["alpha", "n"])
    alpha_of, n_of = points.index.get_level_values("alpha"), points.index.get_level_values("n")
    above = (n_of >= points["threshold"] - 1e-9).to_numpy()
    gap = (scores["WM"] - scores["GM"]).reindex(points.index).to_numpy()
    comparisons = [
        Comparison("n >= 2a/(1-a), every panel: largest |WM's score - GM's|", "0 (WM converges on GM)",
                   fmt(float(np.abs(gap[above]).max()), 2) if above.any() else "no such n", f"<= {tolerance:g}",
                   bool(above.any()) and float(np.abs(gap[above]).max()) <= tolerance),
    ]
    if (~above).any():
        comparisons.append(Comparison("n < 2a/(1-a), every panel: smallest WM's score - GM's", "> 0 (not yet)",
                                      fmt(float(gap[~above].min()), 3), f"> {tolerance:g}",
                                      float(gap[~above].min()) > tolerance))
    beyond = [a for a in sorted(set(alpha_of)) if (points.loc[a, "threshold"] > points.loc[a].index.max()).all()]
    for a in beyond:
        panel = points.loc[a]
        margin = float((panel["em_diagonal"] - 1 / (panel.index.to_numpy() + 1)).min())
        em_gap = float((scores.loc[a, "WM"] - scores.loc[a, "EM"]).abs().max())
        quantity = f"alpha {a:g}: largest |WM's score - EM's|"
        comparisons += [
            Comparison(f"alpha {a:g} (threshold {panel['threshold'].iloc[0]:.4g} beyond n {panel.index.max()}): "
                       "smallest EM diagonal - 1/(n+1)", ">= 0 (EM has weak honesty)", fmt(margin, 3),
                       f">= -{tolerance:g}", margin >= -tolerance),
            Comparison(quantity, "0 (WM costs what EM costs)", fmt(em_gap, 2), f"<= {close:g}", em_gap <= close),
            Comparison(f"{quantity}, under the rule first written (LP equality)", "0",
                       f"{fmt(em_gap, 2)}: {'holds' if em_gap <= tolerance else 'fails'}",
                       f"not judged: <= {tolerance:g}", None),
        ]
    first = scores.loc[min(alpha_of)]
    excess, steps = (first["EM"] - first["GM"]), np.diff(first["EM"].to_numpy())
    fall = float(first["EM"].iloc[-1] - first["EM"].iloc[0])
    comparisons += [
        Comparison(f"alpha {min(alpha_of):g}: smallest EM's score - GM's", "> 0 (EM has a higher cost)",
                   fmt(float(excess.min()), 3), f"> {tolerance:g}", float(excess.min()) > tolerance),
        Comparison(f"alpha {min(alpha_of):g}: EM's score, largest rise from one n to the next; change from the first "
                   "n to the last", "decreasing", f"{fmt(float(steps.max()), 3)}; {fmt(fall, 3)}",
                   f"rise <= {tolerance:g}; change < 0", bool(steps.max() <= tolerance and fall < 0)),
        Comparison(f"alpha {min(alpha_of):g}: EM's score, under the rule first written (falls at every step)",
                   "decreasing", f"largest rise {fmt(float(steps.max()), 3)}: "
                   f"{'holds' if steps.max() < 0 else 'fails'}", "not judged: every step < 0", None),
    ]
    return Outcome(comparisons)
