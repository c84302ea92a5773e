"""The checks of the IBU consistency paper's items (and the Adult row count, which the count paper prints too).

Each is a function of the outputs, the config and the catalogue's arguments (see ``checks``).
"""

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from privest_studies import regions, uncertainty
from privest_studies.reproduction.printed import as_printed, as_printed_tolerance, fmt
from privest_studies.reproduction.records import Comparison, Outcome, Outputs

ESTIMATORS = ("IBU", "INV-N", "INV-P")  # the IBU study's methods (scores.csv also scores the noisy reports)


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
    """The methods' mean EMD over runs at one eps, in the order the paper states (best first)."""
    table = _mean_emd(outputs["ibu_consistency/tables/scores.csv"], experiment)
    at = table[np.isclose(table["eps"], float(eps))].set_index("method")
    means = [at.loc[m, "mean"] for m in order]
    ours = ", ".join(f"{m} {fmt(x, 3)}" for m, x in zip(order, means, strict=True))
    runs = int(at["count"].min())
    return Outcome([Comparison(f"{claim} (mean EMD over {runs} runs, eps {float(eps):g})", " < ".join(order), ours,
                               "strict order of the means", bool(np.all(np.diff(means) > 0)))])


def _panels(config: Mapping, figure: str) -> list[str]:
    return [name for panel, name in config["ibu_consistency"]["boxplots"].items() if panel.startswith(figure)]


def ibu_better(outputs: Outputs, config: Mapping, figure: str) -> Outcome:
    """'IBU outperforms INV-N and INV-P, especially when eps is small' (section 7.3), per panel: IBU's mean EMD is
    below both at the smallest eps, and not above either by more than two standard errors at any eps."""
    scores = outputs["ibu_consistency/tables/scores.csv"]
    comparisons = []
    for experiment in _panels(config, figure):
        table = _mean_emd(scores, experiment)
        ibu = table[table["method"] == "IBU"].set_index("eps")
        others = table[table["method"] != "IBU"]
        worse = [(row.eps, row.method) for row in others.itertuples()
                 if ibu.loc[row.eps, "mean"] > row.mean + 2 * math.hypot(ibu.loc[row.eps, "se"], row.se)]
        smallest = table["eps"].min()
        best_at_smallest = ibu.loc[smallest, "mean"] < others[others["eps"] == smallest]["mean"].min()
        ours = (f"IBU best at eps {smallest:g}: {'yes' if best_at_smallest else 'no'}; worse beyond noise at "
                + (", ".join(f"{m} eps {e:g}" for e, m in worse) or "no eps"))
        comparisons.append(Comparison(f"{experiment}: IBU against INV-N and INV-P", "IBU outperforms both", ours,
                                      "best at the smallest eps; never worse by more than 2 s.e.",
                                      bool(best_at_smallest and not worse)))
    return Outcome(comparisons)


def comparable(scores: pd.DataFrame, ratio_limit: float, z: float, floor: float, level: float = 0.95
               ) -> pd.DataFrame:
    """Per eps of one experiment: are the estimators' EMDs comparable? The best and worst mean EMD, their ratio with
    its interval (``uncertainty.ratio_interval``, paired by run), and the mean and standard error of the paired
    per-run difference d = EMD(worst) - EMD(best) (same reports).

    'judgement': agree (comparable) when d <= max(z SE, floor) (run-to-run noise cannot tell them apart, or the
    difference is too small to matter, in the alphabet's unit) or the whole ratio interval is <= ratio_limit;
    disagree when d is beyond both and the whole interval is above ratio_limit; undecided when the interval crosses
    ratio_limit."""
    by_run = scores.pivot_table(index=["eps", "run"], columns="method", values="emd")
    rows = []
    for eps, runs in by_run.groupby(level="eps"):
        means = runs.mean().sort_values()
        best, worst = means.index[0], means.index[-1]
        d = (runs[worst] - runs[best]).to_numpy()
        se = float(np.std(d, ddof=1) / np.sqrt(d.size)) if d.size > 1 else float("nan")
        ratio = uncertainty.ratio_interval(runs[worst].to_numpy(), runs[best].to_numpy(), level)
        margin = max(z * se if np.isfinite(se) else 0.0, floor)
        judgement = (uncertainty.AGREE if d.mean() <= margin
                     else uncertainty.interval_in_band(ratio.low, ratio.high, (0.0, ratio_limit)))
        rows.append({"eps": float(eps), "best": best, "worst": worst, "ratio": ratio.value, "ratio_low": ratio.low,
                     "ratio_high": ratio.high, "difference": float(d.mean()), "se": se, "judgement": judgement})
    return pd.DataFrame(rows)


def similar(outputs: Outputs, config: Mapping, figure: str, claim: str) -> Outcome:
    """'The differences are not substantial' (k-RR, section 7.4; RAPPOR, 7.5), per panel: at every eps the methods'
    EMDs are ``comparable`` under config report.similar (worst/best ratio with its 95% interval, paired difference
    against z standard errors, absolute floor). Differs when one eps is not comparable, undecided when none is but
    one eps's interval crosses the ratio limit; shows that eps, or the largest ratio when every eps is comparable."""
    rule = config["report"]["similar"]
    stated = (f"at every eps: worst/best mean EMD <= {rule['ratio']:g} (its whole 95% interval), or their paired "
              f"difference <= max({rule['z']:g} SE, {rule['floor']:g})")
    comparisons = []
    for experiment in _panels(config, figure):
        scores = outputs["ibu_consistency/tables/scores.csv"]
        scores = scores[(scores["experiment"] == experiment) & scores["method"].isin(ESTIMATORS)]
        if scores.empty:
            raise ValueError(f"no experiment {experiment!r} in ibu_consistency/tables/scores.csv")
        table = comparable(scores, rule["ratio"], rule["z"], rule["floor"])
        found = {j: table[table["judgement"] == j] for j in uncertainty.AGREEMENTS}
        shown = next((found[j] for j in (uncertainty.DISAGREE, uncertainty.UNDECIDED) if not found[j].empty), table)
        row = shown.sort_values("ratio").iloc[-1]
        words = {uncertainty.AGREE: "comparable", uncertainty.DISAGREE: "not comparable",
                 uncertainty.UNDECIDED: "undecided"}
        ours = (f"{words[row['judgement']]} at eps {row['eps']:g}: {row['worst']} over {row['best']} ratio "
                f"{row['ratio']:.2f} [{row['ratio_low']:.2f}, {row['ratio_high']:.2f}], d = {row['difference']:.3g} "
                f"± {row['se']:.2g}" + "".join(f" ({len(found[j])} of {len(table)} eps {words[j]})"
                                               for j in (uncertainty.DISAGREE, uncertainty.UNDECIDED)
                                               if not found[j].empty))
        undecided = found[uncertainty.DISAGREE].empty and not found[uncertainty.UNDECIDED].empty
        comparisons.append(Comparison(f"{experiment}: worst against best mean EMD per eps", claim, ours, stated,
                                      None if undecided else found[uncertainty.DISAGREE].empty, undecided=undecided))
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
    """Figure 4 (NOTES 8): at eps = 1 and |X| = 10 the log-likelihood of RAPPOR is strictly concave with probability
    about one for n >= 25: the bound's value at n_from, and the smallest simulated fraction from n_from on."""
    table = outputs["ibu_consistency/tables/fig04_rappor.csv"]
    rows = table[(table["k"] == k) & np.isclose(table["eps"], eps) & (table["n"] >= n_from)]
    least = config["report"]["concave_probability"]
    bound = float(rows.sort_values("n")["bound"].iloc[0])
    simulated = float(rows["strictly_concave"].min())
    quantity = f"|X| = {k}, eps {eps:g}, n >= {n_from}: probability of strict concavity"
    runs = int(rows["runs"].iloc[0])
    return Outcome([
        Comparison(f"{quantity} (the bound at n = {n_from})", "about 1", fmt(bound), f">= {least:g}",
                   bound >= least),
        Comparison(f"{quantity} (simulated, smallest over n, {runs} runs)", "about 1", fmt(simulated),
                   f">= {least:g}", simulated >= least),
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
    """Section 7.6 (NOTES 8): each printed constant C of the bound C/n against the paper's own formula, and whether
    the bound holds for the exact and simulated errors of INV on the Adult ages."""
    table = outputs["ibu_consistency/tables/section7_6.csv"]
    comparisons = []
    for row in table.itertuples():
        printed = f"{row.published_C:g}"
        what = f"{row.mechanism}, eps {row.eps:g}, k = {row.k}: {row.bound} bound C/n"
        comparisons.append(Comparison(f"{what}, printed C against its own formula", printed, f"{row.formula_C:.2f}",
                                      as_printed_tolerance(printed), as_printed(row.formula_C, printed)))
        relation = "<=" if row.bound == "upper" else ">="
        comparisons.append(Comparison(
            f"{what}: exact n E||INV - theta||^2 {relation} C (simulated: {row.runs} runs)", "holds",
            f"exact {fmt(row.exact_C)}, simulated {fmt(row.simulated_C)} ± {fmt(row.simulated_se_C, 2)}",
            "the formula's C; simulation within 3 s.e. of exact", bool(row.bound_holds and row.simulated_within_3se)))
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
            bool(best["max_abs_difference"] <= tolerance)))
    return Outcome(comparisons)
