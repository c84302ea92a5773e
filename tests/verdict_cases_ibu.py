"""The contradicting cases of the IBU consistency paper's checks (see verdict_cases.py)."""

import numpy as np
import pandas as pd
from verdict_cases import Case

SCORES = "ibu_consistency/tables/scores.csv"
CONFIG = {
    "report": {"level": 0.95, "similar": {"ratio": 1.5}, "concave_probability": 0.99, "emd_relative": 0.25},
    "ibu_consistency": {"boxplots": {"fig09a": "ages_geometric"},
                        "fig08": {"eps": 1.0, "published_region": "manhattan"}},
}


def scores(means: dict[float, dict[str, float]], runs: int = 12, noise: float = 0.02) -> pd.DataFrame:
    """Per-run EMDs of the IBU study's methods on experiment ages_geometric: each eps's methods at the given means,
    with a noise common to the methods of a run (the same reports) and a small one of each method's own."""
    rng = np.random.default_rng(7)
    rows = []
    for eps, by_method in means.items():
        common = rng.normal(0.0, noise, runs)
        for method, mean in by_method.items():
            own = rng.normal(0.0, noise / 4, runs)
            rows += [{"experiment": "ages_geometric", "eps": eps, "run": run, "method": method,
                      "emd": mean * (1.0 + common[run] + own[run])} for run in range(runs)]
    return pd.DataFrame(rows)


def scale_method(outputs: dict, method: str, factor: float, eps: float | None = None) -> None:
    """Multiply one method's EMDs (at one eps, or all) by ``factor``."""
    table = outputs[SCORES]
    rows = (table["method"] == method) & (True if eps is None else np.isclose(table["eps"], eps))
    table.loc[rows, "emd"] *= factor


def set_cell(outputs: dict, path: str, column: str, value, row: int = 0) -> None:
    outputs[path].loc[outputs[path].index[row], column] = value


def set_column(outputs: dict, path: str, column: str, values: list) -> None:
    outputs[path][column] = values


BETTER = {0.05: {"IBU": 1.0, "INV-P": 2.0, "INV-N": 2.6}, 0.5: {"IBU": 0.5, "INV-P": 0.55, "INV-N": 0.6}}
SIMILAR = {1.0: {"IBU": 1.0, "INV-P": 1.05, "INV-N": 1.1}, 5.0: {"IBU": 0.004, "INV-P": 0.0042, "INV-N": 0.0044}}


def fig08():
    emd = pd.DataFrame({"method": ["noisy", "INV-P", "INV-N", "IBU"], "emd_km": [0.76, 0.59, 0.78, 0.17],
                        "published_emd_km": [0.7658, 0.5862, 0.7832, 0.16995]})
    return {"ibu_consistency/tables/fig08_emd.csv": emd,
            "data/checkins_planar_provenance.json": {"region": "manhattan", "requested": "auto", "rows_kept": 98060},
            "data/checkins_planar_alphabet.json": {"region": "manhattan", "columns": 14, "rows": 20, "cell_km": 0.5}}


def fig04():
    return {"ibu_consistency/tables/fig04_rappor.csv": pd.DataFrame(
        {"k": 10, "eps": 1.0, "n": [25, 50, 100], "runs": 2000, "bound": [0.995, 0.999, 1.0],
         "strictly_concave": [1.0, 1.0, 1.0]})}


def fig06():
    return {"ibu_consistency/tables/fig06_fixed_points.csv": pd.DataFrame(
        {"start": [0, 1, 2], "below_max": [1e-11, 2e-11, 1e-12], "emd_to_theta_km": [0.09, 0.14, 0.11],
         "max_abs_difference_to_start0": [0.0, 0.05, 0.03]})}


def surfaces():
    return {"ibu_consistency/tables/surfaces_concavity.csv": pd.DataFrame(
        {"figure": "fig03", "panel": ["a", "b"], "observations": ["{2}", "{2, 1}"],
         "strictly_concave": [False, True], "mle_unique": [False, True]})}


def section7_6():
    return {"ibu_consistency/tables/section7_6.csv": pd.DataFrame([
        {"mechanism": "k-RR", "eps": 2.0, "k": 100, "bound": "upper", "published_C": 277.28, "formula_C": 277.2813,
         "exact_C": 274.5, "simulated_C": 274.8, "simulated_se_C": 0.3, "runs": 2000},
        {"mechanism": "truncated geometric", "eps": 0.05, "k": 100, "bound": "lower", "published_C": 7818.5,
         "formula_C": 7818.546, "exact_C": 842452.6, "simulated_C": 843000.0, "simulated_se_C": 1300.0,
         "runs": 2000}])}


def likely():
    return {"ibu_consistency/tables/section8_likely.csv": pd.DataFrame(
        {"case": ["linear", "linear"], "mechanism": "geometric", "alphabet_size": 10000, "likely_size": 120,
         "algorithm": ["IBU", "SQUAREM-IBU"], "max_abs_difference": [2e-12, 5e-11], "speedup": [8.0, 1.6]})}


CASES = [
    Case("adult_persons", "one person fewer than the paper's 48,842",
         lambda: {"data/ages_provenance.json": {"rows_kept": 48842}},
         lambda o: o["data/ages_provenance.json"].update(rows_kept=48841), {"published": 48842}),
    Case("planar_checkins", "the Manhattan box 2% short of the paper's count",
         lambda: {"data/checkins_planar_provenance.json": {"region": "manhattan", "requested": "auto",
                                                            "rows_kept": 98060},
                  "data/checkins_planar_alphabet.json": {"region": "manhattan", "columns": 14, "rows": 20,
                                                         "cell_km": 0.5}},
         lambda o: o["data/checkins_planar_provenance.json"].update(rows_kept=96000),
         {"published": 98060, "region": "manhattan", "relative": 0.01}),
    Case("fig08_emd", "IBU's EMD three times the paper's", fig08,
         lambda o: set_cell(o, "ibu_consistency/tables/fig08_emd.csv", "emd_km", 0.51, row=3),
         {"published_checkins": 98060}, CONFIG),
    Case("fig08_emd", "INV-N and INV-P swap ranks (values within the tolerance)", fig08,
         lambda o: (set_cell(o, "ibu_consistency/tables/fig08_emd.csv", "emd_km", 0.70, row=1),
                    set_cell(o, "ibu_consistency/tables/fig08_emd.csv", "emd_km", 0.69, row=2)),
         {"published_checkins": 98060}, CONFIG),
    Case("ranking", "INV-N closer than INV-P beyond noise", lambda: {SCORES: scores(BETTER)},
         lambda o: scale_method(o, "INV-P", 1.6), {"experiment": "ages_geometric", "eps": 0.05,
                                                   "order": ["IBU", "INV-P", "INV-N"], "claim": "IBU best"}, CONFIG),
    Case("ranking", "INV-P and INV-N equal on average (noise decides)", lambda: {SCORES: scores(BETTER)},
         lambda o: scale_method(o, "INV-P", 1.3), {"experiment": "ages_geometric", "eps": 0.05,
                                                   "order": ["IBU", "INV-P", "INV-N"], "claim": "IBU best"}, CONFIG),
    Case("ibu_better", "IBU worse than both at the largest eps", lambda: {SCORES: scores(BETTER)},
         lambda o: scale_method(o, "IBU", 1.5, eps=0.5), {"figure": "fig09"}, CONFIG),
    Case("ibu_better", "IBU no better than INV-P at the smallest eps", lambda: {SCORES: scores(BETTER)},
         lambda o: scale_method(o, "IBU", 2.0, eps=0.05), {"figure": "fig09"}, CONFIG),
    Case("similar", "INV-N 2.5x IBU at eps 5, on EMDs of a few thousandths (the old floor let it pass)",
         lambda: {SCORES: scores(SIMILAR)}, lambda o: scale_method(o, "INV-N", 2.5 / 1.1, eps=5.0),
         {"figure": "fig09", "claim": "not substantial"}, CONFIG),
    Case("similar", "INV-N 1.8x IBU at eps 1", lambda: {SCORES: scores(SIMILAR)},
         lambda o: scale_method(o, "INV-N", 1.8 / 1.1, eps=1.0), {"figure": "fig09", "claim": "not substantial"},
         CONFIG),
    Case("ibu_emd", "shown only: the paper prints no number", lambda: {SCORES: scores(SIMILAR)},
         lambda o: scale_method(o, "IBU", 10.0), {"experiments": ["ages_geometric"], "eps": 1.0}, CONFIG,
         shown_only=True),
    Case("surfaces", "panel (a) strictly concave, where the paper finds a flat direction", surfaces,
         lambda o: set_cell(o, "ibu_consistency/tables/surfaces_concavity.csv", "strictly_concave", True),
         {"figure": "fig03", "expected": {"a": {"strictly_concave": False}, "b": {"strictly_concave": True}}}),
    Case("rappor_concavity", "strictly concave in 97% of the runs at n = 50", fig04,
         lambda o: set_cell(o, "ibu_consistency/tables/fig04_rappor.csv", "strictly_concave", 0.97, row=1),
         {"k": 10, "eps": 1.0, "n_from": 25}, CONFIG),
    Case("rappor_concavity", "the bound at n = 25 only 0.9", fig04,
         lambda o: set_cell(o, "ibu_consistency/tables/fig04_rappor.csv", "bound", 0.9),
         {"k": 10, "eps": 1.0, "n_from": 25}, CONFIG),
    Case("fixed_points", "every start reaches the same fixed point", fig06,
         lambda o: set_column(o, "ibu_consistency/tables/fig06_fixed_points.csv", "max_abs_difference_to_start0",
                              [0.0, 1e-6, 1e-5]), {"tolerance": 1e-8}),
    Case("fixed_points", "one fixed point 1e-3 below the maximum log-likelihood", fig06,
         lambda o: set_cell(o, "ibu_consistency/tables/fig06_fixed_points.csv", "below_max", 1e-3, row=2),
         {"tolerance": 1e-8}),
    Case("section7_6", "k-RR's exact constant above the printed upper bound", section7_6,
         lambda o: set_cell(o, "ibu_consistency/tables/section7_6.csv", "published_C", 227.28), {}, CONFIG),
    Case("section7_6", "the geometric mechanism's exact constant below its lower bound", section7_6,
         lambda o: (set_cell(o, "ibu_consistency/tables/section7_6.csv", "exact_C", 7000.0, row=1),
                    set_cell(o, "ibu_consistency/tables/section7_6.csv", "simulated_C", 7001.0, row=1),
                    set_cell(o, "ibu_consistency/tables/section7_6.csv", "simulated_se_C", 10.0, row=1)), {},
         CONFIG),
    Case("section7_6", "our simulation 4 standard errors from the exact constant", section7_6,
         lambda o: set_cell(o, "ibu_consistency/tables/section7_6.csv", "simulated_C", 275.7), {}, CONFIG),
    Case("likely", "the likely subset's estimate 1e-3 from the whole alphabet's", likely,
         lambda o: set_column(o, "ibu_consistency/tables/section8_likely.csv", "max_abs_difference", [1e-3, 2e-3]),
         {"tolerance": 1e-6}),
]
