"""The checks of the IBU consistency paper's items (and the Adult row count, which the count paper prints too).

Each is a function of the outputs, the config and the catalogue's arguments (see ``checks``).
"""

import itertools
from collections.abc import Mapping

import numpy as np
import pandas as pd
from scipy import stats

from privest_studies import regions, uncertainty
from privest_studies.reproduction.printed import as_printed, as_printed_tolerance, fmt
from privest_studies.reproduction.records import Comparison, Outcome, Outputs

ESTIMATORS = ("IBU", "INV-N", "INV-P")  # the IBU study's methods (scores.csv also scores the noisy reports)


def _level(config: Mapping) -> float:
    """The level of every interval and test of the report (config report.level)."""
    return float(config["report"]["level"])


def _runs_by_method(scores: pd.DataFrame, experiment: str) -> pd.DataFrame:
    """The EMD of each estimator per (eps, run) of one experiment of the IBU study: one column per method, paired by
    run (the same reports)."""
    rows = scores[(scores["experiment"] == experiment) & scores["method"].isin(ESTIMATORS)]
    if rows.empty:
        raise ValueError(f"no experiment {experiment!r} in ibu_consistency/tables/scores.csv")
    return rows.pivot_table(index=["eps", "run"], columns="method", values="emd")


def _at_eps(by_run: pd.DataFrame, eps: float) -> pd.DataFrame:
    """The runs of one eps of ``_runs_by_method``."""
    found = [e for e in by_run.index.get_level_values("eps").unique() if np.isclose(e, eps)]
    if not found:
        raise ValueError(f"no eps {eps:g} in ibu_consistency/tables/scores.csv")
    return by_run.xs(found[0], level="eps")


def _mean_emd(scores: pd.DataFrame, experiment: str) -> pd.DataFrame:
    """Mean EMD, its standard error and the runs of each (eps, estimator) of one experiment of the IBU study."""
    rows = scores[(scores["experiment"] == experiment) & scores["method"].isin(ESTIMATORS)]
    if rows.empty:
        raise ValueError(f"no experiment {experiment!r} in ibu_consistency/tables/scores.csv")
    grouped = rows.groupby(["eps", "method"])["emd"]
    table = grouped.agg(["mean", "std", "count"]).reset_index()
    table["se"] = table["std"].fillna(0.0) / np.sqrt(table["count"])
    return table


def adult_persons(outputs: Outputs, config: Mapping, published: int) -> Outcome:
    """The Adult persons kept (adult.data + adult.test) against the count the paper prints (section 7.1)."""
    ours = int(outputs["data/ages_provenance.json"]["rows_kept"])
    return Outcome([Comparison("Adult persons (adult.data + adult.test)", f"{published:,}", f"{ours:,}", "exact",
                               ours == published)])


def planar_checkins(outputs: Outputs, config: Mapping, published: int, region: str, relative: float) -> Outcome:
    """The check-ins in the planar box against the paper's count for its region; unavailable when the region used
    is another one (config data.planar_region: auto falls back when the full SNAP file is missing)."""
    provenance = outputs["data/checkins_planar_provenance.json"]
    used = regions.region_name(outputs["data/checkins_planar_alphabet.json"])
    ours = int(provenance["rows_kept"])
    quantity = f"check-ins in the {regions.region_title(region)} box"
    if provenance["region"] != region:
        why = (f"the paper's {regions.region_title(region)} box needs the full SNAP Gowalla file, which was not "
               f"available (config data.planar_region: {provenance['requested']}); {used} stands in")
        return Outcome([Comparison(quantity, f"{published:,}", f"{ours:,} in {used}", "not comparable: other region",
                                   None)], why)
    return Outcome([Comparison(quantity, f"{published:,}", f"{ours:,}", f"relative {relative:g}",
                               abs(ours - published) <= relative * published)])


def fig08_emd(outputs: Outputs, config: Mapping, published_checkins: int) -> Outcome:
    """Figure 8's EMDs (run 0) beside the paper's, and the methods' ranking. Values are judged only on the paper's
    region, with the relative tolerance of config report.emd_relative; the ranking is judged everywhere."""
    table = outputs["ibu_consistency/tables/fig08_emd.csv"]
    spec = config["ibu_consistency"]["fig08"]
    same_region = outputs["data/checkins_planar_provenance.json"]["region"] == spec["published_region"]
    relative = config["report"]["emd_relative"]
    comparisons = []
    for row in table.itertuples():
        agrees = abs(row.emd_km - row.published_emd_km) <= relative * row.published_emd_km if same_region else None
        comparisons.append(Comparison(f"EMD of {row.method} (km, eps {spec['eps']:g}, run 0)",
                                      f"{row.published_emd_km:g}", fmt(row.emd_km),
                                      f"relative {relative:g}" if same_region else "not judged: other region",
                                      agrees))
    paper = " < ".join(table.sort_values("published_emd_km")["method"])
    ours = " < ".join(table.sort_values("emd_km")["method"])
    comparisons.append(Comparison("methods from best to worst", paper, ours, "same order", paper == ours))
    why = "" if same_region else planar_checkins(outputs, config, published_checkins, spec["published_region"],
                                                 1.0).unavailable
    return Outcome(comparisons, why)


def ranking(outputs: Outputs, config: Mapping, experiment: str, eps: float, order: list[str], claim: str) -> Outcome:
    """The methods in the order the paper states (best first) at one eps: for each neighbouring pair (a, b), the
    paired per-run difference EMD(a) - EMD(b) with its interval at the report's level (Student t on runs - 1 degrees
    of freedom) lies below 0 (agrees), above 0 (differs) or across it (undecided)."""
    runs = _at_eps(_runs_by_method(outputs["ibu_consistency/tables/scores.csv"], experiment), float(eps))
    level = _level(config)
    comparisons = []
    for better, worse in itertools.pairwise(order):
        d = uncertainty.difference_interval(runs[better].to_numpy(), runs[worse].to_numpy(), level)
        found = uncertainty.below_zero(d.low, d.high)
        comparisons.append(Comparison(
            f"{claim}: {better} closer than {worse} (eps {float(eps):g}, {d.runs} paired runs)", f"{better} < {worse}",
            f"mean EMD {fmt(runs[better].mean(), 3)} and {fmt(runs[worse].mean(), 3)}; difference {d.text()}",
            f"the difference's {level:.0%} interval below 0", None if found == uncertainty.UNDECIDED
            else found == uncertainty.AGREE, undecided=found == uncertainty.UNDECIDED,
            key=f"{experiment}: {better} closer than {worse}"))
    return Outcome(comparisons)


def _panels(config: Mapping, figure: str) -> list[str]:
    return [name for panel, name in config["ibu_consistency"]["boxplots"].items() if panel.startswith(figure)]


def ibu_better(outputs: Outputs, config: Mapping, figure: str) -> Outcome:
    """'IBU outperforms INV-N and INV-P, especially when eps is small' (section 7.3), per panel, on the paired per-run
    differences d = EMD(IBU) - EMD(other) with their intervals at the report's level: at the smallest eps both
    intervals lie below 0, and at no eps does one lie above 0. Differs when IBU is worse beyond noise somewhere or
    better at the smallest eps is contradicted; undecided when the smallest eps cannot tell."""
    scores, level = outputs["ibu_consistency/tables/scores.csv"], _level(config)
    comparisons = []
    for experiment in _panels(config, figure):
        by_run = _runs_by_method(scores, experiment)
        found = {}  # (eps, other) -> (difference, agreement)
        for eps, runs in by_run.groupby(level="eps"):
            for other in (m for m in ESTIMATORS if m != "IBU"):
                d = uncertainty.difference_interval(runs["IBU"].to_numpy(), runs[other].to_numpy(), level)
                found[float(eps), other] = (d, uncertainty.below_zero(d.low, d.high))
        smallest = min(eps for eps, _ in found)
        at_smallest = {found[smallest, other][1] for other in ESTIMATORS if other != "IBU"}
        worse = [(eps, other) for (eps, other), (d, _) in found.items() if d.low > 0]
        agrees = not worse and at_smallest == {uncertainty.AGREE}
        undecided = not worse and uncertainty.DISAGREE not in at_smallest and not agrees
        ours = (f"at eps {smallest:g}: " + ", ".join(f"{other} {found[smallest, other][0].text()}"
                                                     for other in ESTIMATORS if other != "IBU")
                + "; IBU worse beyond noise at " + (", ".join(f"{m} eps {e:g}" for e, m in worse) or "no eps"))
        comparisons.append(Comparison(
            f"{experiment}: EMD(IBU) - EMD(INV-N, INV-P), paired over {min(d.runs for d, _ in found.values())} runs",
            "IBU outperforms both", ours,
            f"{level:.0%} intervals below 0 at the smallest eps; above 0 at no eps", None if undecided else agrees,
            undecided=undecided, key=f"{experiment}: IBU against INV-N and INV-P"))
    return Outcome(comparisons)


def comparable(scores: pd.DataFrame, ratio_limit: float, level: float) -> pd.DataFrame:
    """Per eps of one experiment: are the estimators' EMDs comparable? The best and the worst mean EMD and their
    ratio with its interval at ``level`` (``uncertainty.ratio_interval``, paired by run: the same reports), judged
    against the band (0, ratio_limit] (``uncertainty.interval_in_band``: agree when the whole interval lies inside,
    disagree when it lies wholly above, undecided when it crosses the limit). Also, for the rule history of
    ``similar``, the mean and standard error of the paired per-run difference d = EMD(worst) - EMD(best)."""
    by_run = scores.pivot_table(index=["eps", "run"], columns="method", values="emd")
    rows = []
    for eps, runs in by_run.groupby(level="eps"):
        means = runs.mean().sort_values()
        best, worst = means.index[0], means.index[-1]
        d = (runs[worst] - runs[best]).to_numpy()
        se = float(np.std(d, ddof=1) / np.sqrt(d.size)) if d.size > 1 else float("nan")
        ratio = uncertainty.ratio_interval(runs[worst].to_numpy(), runs[best].to_numpy(), level)
        rows.append({"eps": float(eps), "best": best, "worst": worst, "ratio": ratio.value, "ratio_low": ratio.low,
                     "ratio_high": ratio.high, "difference": float(d.mean()), "se": se,
                     "judgement": uncertainty.interval_in_band(ratio.low, ratio.high, (0.0, ratio_limit))})
    return pd.DataFrame(rows)


SIMILAR_HISTORY = (
    "the rule of 6afda08 (2026-11-21, before any comparison) was the worst/best mean EMD <= 1.5 at every eps; "
    "601ebe2 (2026-11-23, after results existed) widened it by 'or their paired difference <= max(2 SE, 0.01)'; "
    "issue 45 (2026-11-27) went back to the first rule, judged on the ratio's interval")
"""Where the rule of ``similar`` comes from (git history), as the report states it."""


def _widened_rule(table: pd.DataFrame, ratio_limit: float) -> bool:
    """The verdict of 601ebe2's widened rule (kept to show beside the first): comparable at every eps when the
    difference is within max(2 SE, 0.01) or the ratio's interval lies below the limit."""
    return all(row.difference <= max(2.0 * row.se if np.isfinite(row.se) else 0.0, 0.01)
               or row.ratio_high <= ratio_limit for row in table.itertuples())


def similar(outputs: Outputs, config: Mapping, figure: str, claim: str) -> Outcome:
    """'The differences are not substantial' (k-RR, section 7.4; RAPPOR, 7.5), per panel: at every eps the worst
    method's mean EMD within config report.similar.ratio of the best's (``comparable``: the ratio's interval at the
    report's level, paired by run). Differs when one eps's whole interval lies above the limit, undecided when none
    does but one crosses it; shows that eps, or the largest ratio when every eps is comparable. Beside it, not
    judged: the first rule's verdict on the point ratios, and the widened rule's (``SIMILAR_HISTORY``)."""
    ratio_limit, level = float(config["report"]["similar"]["ratio"]), _level(config)
    stated = f"at every eps: worst/best mean EMD <= {ratio_limit:g}, its whole {level:.0%} interval (paired runs)"
    comparisons = []
    for experiment in _panels(config, figure):
        scores = outputs["ibu_consistency/tables/scores.csv"]
        scores = scores[(scores["experiment"] == experiment) & scores["method"].isin(ESTIMATORS)]
        if scores.empty:
            raise ValueError(f"no experiment {experiment!r} in ibu_consistency/tables/scores.csv")
        table = comparable(scores, ratio_limit, level)
        found = {j: table[table["judgement"] == j] for j in uncertainty.AGREEMENTS}
        shown = next((found[j] for j in (uncertainty.DISAGREE, uncertainty.UNDECIDED) if not found[j].empty), table)
        row = shown.sort_values("ratio").iloc[-1]
        words = {uncertainty.AGREE: "comparable", uncertainty.DISAGREE: "not comparable",
                 uncertainty.UNDECIDED: "undecided"}
        ours = (f"{words[row['judgement']]} at eps {row['eps']:g}: {row['worst']} over {row['best']} ratio "
                f"{row['ratio']:.2f} [{row['ratio_low']:.2f}, {row['ratio_high']:.2f}]"
                + "".join(f" ({len(found[j])} of {len(table)} eps {words[j]})"
                          for j in (uncertainty.DISAGREE, uncertainty.UNDECIDED) if not found[j].empty))
        undecided = found[uncertainty.DISAGREE].empty and not found[uncertainty.UNDECIDED].empty
        comparisons.append(Comparison(f"{experiment}: worst against best mean EMD per eps", claim, ours, stated,
                                      None if undecided else found[uncertainty.DISAGREE].empty, undecided=undecided))
        largest = table.sort_values("ratio").iloc[-1]
        words_of = {True: "comparable", False: "not comparable"}
        first, widened = bool((table["ratio"] <= ratio_limit).all()), _widened_rule(table, ratio_limit)
        comparisons.append(Comparison(
            f"{experiment}: under the first rule as written (point ratios) and under 601ebe2's widened rule", claim,
            f"first rule: {words_of[first]} (largest ratio {largest['ratio']:.2f} at eps {largest['eps']:g}); "
            f"widened rule: {words_of[widened]}",
            f"not judged: {SIMILAR_HISTORY}", None, key=f"{experiment}: the rule's history"))
    return Outcome(comparisons)


def ibu_emd(outputs: Outputs, config: Mapping, experiments: list[str], eps: float) -> Outcome:
    """IBU's mean EMD at one eps, shown (the paper prints no number to judge it against)."""
    comparisons = []
    for experiment in experiments:
        table = _mean_emd(outputs["ibu_consistency/tables/scores.csv"], experiment)
        at = table[np.isclose(table["eps"], float(eps)) & (table["method"] == "IBU")].iloc[0]
        comparisons.append(Comparison(f"{experiment}: IBU's mean EMD at eps {float(eps):g} ({int(at['count'])} runs)",
                                      "no number printed", fmt(at["mean"], 3), "not judged", None))
    return Outcome(comparisons)


def surfaces(outputs: Outputs, config: Mapping, figure: str, expected: Mapping[str, Mapping[str, bool]]) -> Outcome:
    """Figures 3 and 5: strict concavity and MLE uniqueness of each panel as the paper's text states them."""
    table = outputs["ibu_consistency/tables/surfaces_concavity.csv"]
    comparisons = []
    for panel, claims in expected.items():
        row = table[(table["figure"] == figure) & (table["panel"] == panel)].iloc[0]
        for column, claim in claims.items():
            words = column.replace("_", " ").replace("mle", "MLE")
            comparisons.append(Comparison(f"({panel}) observations {row['observations']}: {words}",
                                          "yes" if claim else "no", "yes" if bool(row[column]) else "no", "exact",
                                          bool(row[column]) == claim))
    return Outcome(comparisons)


def rappor_concavity(outputs: Outputs, config: Mapping, k: int, eps: float, n_from: int) -> Outcome:
    """Figure 4 (decisions.md, section 8): at eps = 1 and |X| = 10 the log-likelihood of RAPPOR is strictly concave with
    probability about one for n >= 25 (at least config report.concave_probability): the bound's value at n_from, and at
    every n from n_from on the simulated fraction's exact (Clopper-Pearson) interval at the report's level, which agrees
    when it lies at or above the least probability, differs when it lies below, and is undecided across it."""
    table = outputs["ibu_consistency/tables/fig04_rappor.csv"]
    rows = table[(table["k"] == k) & np.isclose(table["eps"], eps) & (table["n"] >= n_from)].sort_values("n")
    if rows.empty:
        raise ValueError(f"no row of ibu_consistency/tables/fig04_rappor.csv with k = {k}, eps {eps:g}, n >= {n_from}")
    least, level = float(config["report"]["concave_probability"]), _level(config)
    bound = float(rows["bound"].iloc[0])
    quantity = f"|X| = {k}, eps {eps:g}, n >= {n_from}: probability of strict concavity"
    found = []  # (agreement, n, fraction, low, high) per n
    for row in rows.itertuples():
        concave = round(float(row.strictly_concave) * int(row.runs))
        interval = stats.binomtest(concave, int(row.runs)).proportion_ci(level, method="exact")
        agreement = (uncertainty.AGREE if interval.low >= least else uncertainty.DISAGREE if interval.high < least
                     else uncertainty.UNDECIDED)
        found.append((agreement, int(row.n), concave / int(row.runs), interval.low, interval.high))
    verdicts = {f[0] for f in found}
    shown = min(found, key=lambda f: (f[2], f[1]))
    undecided = uncertainty.DISAGREE not in verdicts and uncertainty.UNDECIDED in verdicts
    return Outcome([
        Comparison(f"{quantity} (the bound at n = {n_from})", "about 1", fmt(bound), f">= {least:g}",
                   bound >= least),
        Comparison(f"{quantity} (simulated, {int(rows['runs'].min())} runs at each of {len(found)} n)", "about 1",
                   f"smallest {fmt(shown[2])} at n = {shown[1]} [{fmt(shown[3])}, {fmt(shown[4])}]",
                   f"the {level:.0%} exact interval at every n >= {least:g}",
                   None if undecided else uncertainty.DISAGREE not in verdicts, undecided=undecided,
                   key=f"{quantity} (simulated)"),
    ])


def fixed_points(outputs: Outputs, config: Mapping, tolerance: float) -> Outcome:
    """Figure 6: IBU from different starts reaches different fixed points, all with the maximum log-likelihood, none
    of them theta (section 6.4)."""
    table = outputs["ibu_consistency/tables/fig06_fixed_points.csv"]
    distinct = int((table["max_abs_difference_to_start0"] > 1e-3).sum()) + 1
    return Outcome([
        Comparison("fixed points reached from different starts", "three different MLEs shown",
                   f"{distinct} different (of {len(table)} starts; difference > 1e-3)", ">= 3 different",
                   distinct >= 3),
        Comparison("largest log-likelihood below the maximum", "all are MLEs", fmt(table["below_max"].max(), 2),
                   f"<= {tolerance:g}", bool(table["below_max"].max() <= tolerance)),
        Comparison("EMD of the fixed points to theta (km)", "not theta (> 0)",
                   f"{fmt(table['emd_to_theta_km'].min(), 3)} to {fmt(table['emd_to_theta_km'].max(), 3)}", "> 0",
                   bool(table["emd_to_theta_km"].min() > 0)),
    ])


def section7_6(outputs: Outputs, config: Mapping) -> Outcome:
    """Section 7.6 (decisions.md, section 8): each printed constant C of the bound C/n against the paper's own formula;
    whether the exact error of INV on the Adult ages keeps the formula's bound and the printed one (an upper bound is
    violated when the exact constant lies above it, a lower one when below); and our simulation against the exact
    constant (the exact value inside the simulated mean's interval at the report's level, Student t on runs - 1 degrees
    of freedom)."""
    table = outputs["ibu_consistency/tables/section7_6.csv"]
    level = _level(config)
    comparisons = []
    for row in table.itertuples():
        printed = f"{row.published_C:g}"
        what = f"{row.mechanism}, eps {row.eps:g}, k = {row.k}: {row.bound} bound C/n"
        relation = "<=" if row.bound == "upper" else ">="

        def keeps(bound: float, exact: float = row.exact_C, upper: bool = row.bound == "upper") -> bool:
            return bool(exact <= bound if upper else exact >= bound)

        comparisons.append(Comparison(f"{what}, printed C against its own formula", printed, f"{row.formula_C:.2f}",
                                      as_printed_tolerance(printed), as_printed(row.formula_C, printed)))
        comparisons.append(Comparison(f"{what}: exact n E||INV - theta||^2 {relation} the formula's C",
                                      f"{relation} {row.formula_C:.2f}", f"exact {fmt(row.exact_C)}", "exact",
                                      keeps(row.formula_C)))
        comparisons.append(Comparison(f"{what}: exact n E||INV - theta||^2 {relation} the printed C",
                                      f"{relation} {printed}", f"exact {fmt(row.exact_C)}", "exact",
                                      keeps(row.published_C)))
        half = uncertainty.t_quantile(level, int(row.runs)) * row.simulated_se_C
        low, high = row.simulated_C - half, row.simulated_C + half
        comparisons.append(Comparison(
            f"{what}: our simulation of n E||INV - theta||^2 ({row.runs} runs) against the exact value",
            "(ours only)", f"simulated {fmt(row.simulated_C)} [{fmt(low)}, {fmt(high)}], exact {fmt(row.exact_C)}",
            f"the exact value inside the {level:.0%} interval", bool(low <= row.exact_C <= high),
            key=f"{what}: our simulation against the exact value"))
    return Outcome(comparisons)


def likely(outputs: Outputs, config: Mapping, tolerance: float) -> Outcome:
    """Section 8: IBU on the likely subset reaches the whole alphabet's MLE (the lemma of 8.1), and faster."""
    table = outputs["ibu_consistency/tables/section8_likely.csv"]
    comparisons = []
    for case, rows in table.groupby("case", sort=False):
        best = rows.sort_values("max_abs_difference").iloc[0]
        comparisons.append(Comparison(
            f"{case} ({best['mechanism']}, |X| = {best['alphabet_size']:,} -> {best['likely_size']}): largest "
            f"difference between the two estimates ({best['algorithm']})", "the same MLE",
            f"{fmt(best['max_abs_difference'], 2)}; {best['speedup']:.1f}x faster", f"<= {tolerance:g}",
            bool(best["max_abs_difference"] <= tolerance), key=f"{case}: the two estimates' largest difference"))
    return Outcome(comparisons)
