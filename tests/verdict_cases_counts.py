"""The contradicting cases of the count paper's checks (see verdict_cases.py): tiny tables of the columns the count
scripts write, on which the paper's claim holds, and the change a sceptical reader would make to contradict it."""

import numpy as np
import pandas as pd
from verdict_cases import Case

COUNTS = "constrained_counts/tables"
CONFIG = {"constrained_counts": {"tolerance": 1.0e-7}, "report": {"level": 0.95}}
PUBLISHED_COLUMNS = ["where", "quantity", "paper", "ours", "value", "relation", "reference", "reference_high",
                     "tolerance", "construction"]


def published(*rows: dict) -> dict:
    """tables/published.csv holding the given rows (absent columns NaN or empty)."""
    table = pd.DataFrame([{"where": "Here", "quantity": f"q{k}", "paper": "p", "ours": "o", "reference": np.nan,
                           "reference_high": np.nan, "tolerance": "exact", "construction": np.nan} | row
                          for k, row in enumerate(rows)], columns=PUBLISHED_COLUMNS)
    return {f"{COUNTS}/published.csv": table}


def set_value(outputs: dict, path: str, column: str, value, row: int = 0) -> None:
    outputs[path].loc[outputs[path].index[row], column] = value


def published_case(change: str, row: dict, contradicted: float) -> Case:
    """counts_published on one row of the given relation: its value moved to ``contradicted``."""
    return Case("counts_published", change, lambda: published(row),
                lambda o: set_value(o, f"{COUNTS}/published.csv", "value", contradicted), args={"where": "Here"})


PUBLISHED_CASES = [
    published_case("a printed number no longer rounds to the paper's digits",
                   {"value": 6.3333, "relation": "rounds to", "reference": 6.33, "tolerance": "printed digits"}, 6.36),
    published_case("a closed form off its formula by more than 1e-12",
                   {"value": 1e-16, "relation": "equals", "reference": 0.0, "tolerance": "closed form"}, 1e-9),
    published_case("an LP optimum off GM's score by more than 1e-6",
                   {"value": 2e-16, "relation": "equals", "reference": 0.0, "tolerance": "LP"}, 1e-5),
    published_case("the checker finds weak honesty from another n than Lemma 2's",
                   {"value": 7, "relation": "equals", "reference": 7}, 8),
    published_case("P(1 | 1) above the largest other P(j | 1): GM column honest after all",
                   {"value": -0.42, "relation": "below", "reference": 0.0}, 0.01),
    published_case("P(0 | 0) - P(1 | 1) at 0: GM fair after all",
                   {"value": 0.47, "relation": "above", "reference": 0.0}, 0.0),
    published_case("WM's true-answer probability below EM's",
                   {"value": 0.2256, "relation": "between", "reference": 0.2237, "reference_high": 0.2381}, 0.22),
    published_case("WM's true-answer probability above GM's",
                   {"value": 0.2256, "relation": "between", "reference": 0.2237, "reference_high": 0.2381}, 0.24),
    published_case("WM column monotone on the whole grid (Figure 6 prints a dash)",
                   {"value": 0.4, "relation": "inside", "reference": 0.0, "reference_high": 1.0}, 1.0),
    published_case("WM column monotone nowhere on the grid (Figure 6 prints a dash)",
                   {"value": 0.4, "relation": "inside", "reference": 0.0, "reference_high": 1.0}, 0.0),
]


def properties() -> dict:
    """tables/fig06_properties.csv: two properties, one mechanism, both entries as the paper prints them."""
    return {f"{COUNTS}/fig06_properties.csv": pd.DataFrame(
        {"property": ["RH", "CM"], "GM": ["Y", "—"], "GM paper": ["Y", "—"], "GM (holds/points)": ["20/20", "8/20"]})}


def flowchart() -> dict:
    """tables/fig05_flowchart.csv: two property sets at one (n, alpha), the choice scoring the LP optimum."""
    return {f"{COUNTS}/fig05_flowchart.csv": pd.DataFrame(
        {"n": [4, 4], "alpha": [0.5, 0.5], "properties": ["(none)", "F"], "choice": ["GM", "EM"],
         "lp_score": [0.6666666667, 0.75], "choice_score": [0.6666666667, 0.7500000001]})}


def objectives() -> dict:
    """tables/fig08a and fig08b: (a) past n = 2a/(1-a) the row-only combinations cost GM's, a column one more;
    (b) at the largest alpha every WH combination costs EM's."""
    a = pd.DataFrame([{"alpha": 0.76, "n": n, "mechanism": m, "score": s} for n in (7, 8)
                      for m, s in (("GM", 0.8636), ("WH", 0.8636), ("WH+RM", 0.8636), ("WH+CM", 0.87))])
    b = pd.DataFrame([{"alpha": alpha, "n": 10, "mechanism": m, "score": s} for alpha, em in ((0.5, 0.7), (0.99, 0.99))
                      for m, s in (("EM", em), ("WH", em - (0.02 if alpha < 0.9 else 0.0)), ("WH+CM", em))])
    return {f"{COUNTS}/fig08a_objectives.csv": a, f"{COUNTS}/fig08b_objectives.csv": b}


def shift_score(outputs: dict, panel: str, mechanism: str, by: float) -> None:
    table = outputs[f"{COUNTS}/fig08{panel}_objectives.csv"]
    rows = table["mechanism"] == mechanism
    if panel == "b":
        rows &= table["alpha"] == table["alpha"].max()
    table.loc[rows, "score"] += by


def adult(shift: dict | None = None) -> dict:
    """tables/fig10_adult.csv at alpha 0.9: three repetitions of two targets and two group sizes; UM near n/(n+1),
    GM above it, WM just below it, EM lowest (a common noise per repetition and a small one of each row)."""
    rng = np.random.default_rng(3)
    level = {"GM": 0.03, "UM": 0.0, "WM": -0.01, "EM": -0.03}
    rows = []
    for repetition in range(3):
        common = rng.normal(0.0, 0.002)
        for target in ("income", "young"):
            for n in (4, 10):
                for mechanism, offset in level.items():
                    rows.append({"alpha": 0.9, "target": target, "n": n, "mechanism": mechanism,
                                 "repetition": repetition, "groups": 4000,
                                 "wrong_fraction": n / (n + 1) + offset + common + rng.normal(0.0, 0.001)})
    return {f"{COUNTS}/fig10_adult.csv": pd.DataFrame(rows)}


def move_mechanism(outputs: dict, table: str, mechanism: str, by: float, column: str = "wrong_fraction",
                   **where) -> None:
    """Add ``by`` to one mechanism's values (on the rows ``where`` selects)."""
    frame = outputs[f"{COUNTS}/{table}.csv"]
    rows = frame["mechanism"] == mechanism
    for key, value in where.items():
        rows &= np.isclose(frame[key], value)
    frame.loc[rows, column] += by


def synthetic() -> dict:
    """tables/fig13_synthetic.csv: RMSE at two alphas, two p, two n over three repetitions sharing their population
    (a common noise): EM lowest, UM highest, every RMSE growing with n and with alpha."""
    rng = np.random.default_rng(5)
    base = {"EM": 1.0, "WM": 1.2, "GM": 1.4, "UM": 2.0}
    rows = []
    for repetition in range(3):
        common = rng.normal(0.0, 0.01)
        for alpha in (0.7, 0.9):
            for p in (0.1, 0.5):
                for n in (4, 10):
                    for mechanism, value in base.items():
                        rows.append({"alpha": alpha, "n": n, "p": p, "mechanism": mechanism, "repetition": repetition,
                                     "metric": "RMSE", "value": value * n / 4 * alpha + common
                                     + rng.normal(0.0, 0.005)})
    return {f"{COUNTS}/fig13_synthetic.csv": pd.DataFrame(rows)}


ADULT = {"table": "fig10_adult", "value": "wrong_fraction", "each": ["target"]}
RMSE = {"table": "fig13_synthetic", "value": "value", "where": {"metric": "RMSE"}}


def optimal() -> dict:
    """tables/fig02_properties.csv: two panels, every property found on the constrained LPs, no gap."""
    names = ["BasicDP", "RH", "RM", "CH", "CM", "F", "WH", "S"]
    rows = [{"panel": panel, "objective": objective, "n": n, "alpha": 0.85, "lp": lp,
             **dict.fromkeys(names, 1 if lp == "constrained" else 0), "least_reported": 0.2 if lp == "constrained"
             else 0.0} for panel, objective, n in (("a", "L2", 4), ("b", "L1", 7))
            for lp in ("unconstrained", "constrained")]
    return {f"{COUNTS}/fig02_properties.csv": pd.DataFrame(rows)}


def scores() -> dict:
    """tables/fig09_scores.csv: two panels, alpha 0.5 (threshold 2: WM = GM throughout, EM above and falling) and
    0.99 (threshold 198 beyond n: WM = EM above GM, EM weakly honest)."""
    rows = []
    for alpha, threshold in ((0.5, 2.0), (0.99, 198.0)):
        gm = 2 * alpha / (1 + alpha)
        for n in (2, 4, 6):
            em = gm + 0.1 / n
            wm = gm if n >= threshold else em
            rows += [{"alpha": alpha, "n": n, "mechanism": m, "score": s, "threshold": threshold,
                      "em_diagonal": 1 / (n + 1) + 0.01} for m, s in (("GM", gm), ("WM", wm), ("EM", em), ("UM", 1.0))]
    return {f"{COUNTS}/fig09_scores.csv": pd.DataFrame(rows)}


def set_score(outputs: dict, alpha: float, n: int, mechanism: str, value: float, column: str = "score") -> None:
    table = outputs[f"{COUNTS}/fig09_scores.csv"]
    rows = np.isclose(table["alpha"], alpha) & (table["n"] == n)
    if column == "score":
        rows &= table["mechanism"] == mechanism
    table.loc[rows, column] = value


CASES: list[Case] = [
    *PUBLISHED_CASES,
    Case("properties_table", "one of the checker's entries differs from the paper's",
         properties, lambda o: set_value(o, f"{COUNTS}/fig06_properties.csv", "GM", "N", row=1)),
    Case("flowchart", "the flowchart's choice scores above the LP optimum",
         flowchart, lambda o: set_value(o, f"{COUNTS}/fig05_flowchart.csv", "choice_score", 0.76, row=1),
         config=CONFIG),
    Case("flowchart", "the flowchart's choice scores below the LP optimum (it lacks a property)",
         flowchart, lambda o: set_value(o, f"{COUNTS}/fig05_flowchart.csv", "choice_score", 0.74, row=1),
         config=CONFIG),
    Case("counts_objectives", "(a) WH alone costs more than GM past the threshold",
         objectives, lambda o: shift_score(o, "a", "WH", 0.01), args={"tolerance": 1e-6, "close": 1e-3}),
    Case("counts_objectives", "(a) a column property costs what GM costs",
         objectives, lambda o: shift_score(o, "a", "WH+CM", -0.0064), args={"tolerance": 1e-6, "close": 1e-3}),
    Case("counts_objectives", "(b) a WH combination costs less than EM at the largest alpha",
         objectives, lambda o: shift_score(o, "b", "WH", -0.01), args={"tolerance": 1e-6, "close": 1e-3}),
    Case("um_chance", "UM right far more often than 1/(n+1)",
         adult, lambda o: move_mechanism(o, "fig10_adult", "UM", -0.05), config=CONFIG),
    Case("optimal_properties", "the checker finds a panel's constrained LP not column monotone",
         optimal, lambda o: set_value(o, f"{COUNTS}/fig02_properties.csv", "CM", 0, row=3), config=CONFIG),
    Case("optimal_properties", "a constrained panel never reports an output (a gap)",
         optimal, lambda o: set_value(o, f"{COUNTS}/fig02_properties.csv", "least_reported", 0.0, row=1),
         config=CONFIG),
    Case("counts_ordering", "Figure 10: GM as good as UM on one target",
         adult, lambda o: _move_target(o, "GM", "young", -0.03),
         args={**ADULT, "smaller": "UM", "larger": "GM", "claim": "GM worse"}, config=CONFIG),
    Case("counts_ordering", "Figure 10: EM worse than WM on every target",
         adult, lambda o: move_mechanism(o, "fig10_adult", "EM", 0.04),
         args={**ADULT, "smaller": "EM", "larger": "WM", "claim": "EM best"}, config=CONFIG),
    Case("counts_ordering", "Figure 13: GM's RMSE falls from the smallest n to the largest",
         synthetic, lambda o: _shrink_largest_n(o, "GM"),
         args={**RMSE, "by": "n", "each": ["mechanism"], "smaller": "min", "larger": "max", "claim": "RMSE grows"},
         config=CONFIG),
    Case("counts_ordering", "Figure 13: EM's RMSE above GM's at the highest alpha for one p",
         synthetic, lambda o: move_mechanism(o, "fig13_synthetic", "EM", 1.0, column="value", alpha=0.9, p=0.1),
         args={**RMSE, "where": {"metric": "RMSE", "alpha": "max"}, "each": ["p"], "smaller": "EM", "larger": "GM",
               "claim": "EM lower"}, config=CONFIG),
    Case("counts_close", "Figure 10: WM well below UM (not tracking it)",
         adult, lambda o: move_mechanism(o, "fig10_adult", "WM", -0.04),
         args={**ADULT, "first": "WM", "second": "UM", "margin": 0.02, "claim": "WM tracks UM"}, config=CONFIG),
    Case("counts_close", "Figure 10: WM well above UM (not tracking it)",
         adult, lambda o: move_mechanism(o, "fig10_adult", "WM", 0.04),
         args={**ADULT, "first": "WM", "second": "UM", "margin": 0.02, "claim": "WM tracks UM"}, config=CONFIG),
    Case("counts_scores", "Figure 9: WM still above GM past the threshold",
         scores, lambda o: set_score(o, 0.5, 4, "WM", 0.7), args={"tolerance": 1e-6, "close": 1e-3}),
    Case("counts_scores", "Figure 9: WM below EM where GM is not weakly honest",
         scores, lambda o: set_score(o, 0.99, 4, "WM", 0.99), args={"tolerance": 1e-6, "close": 1e-3}),
    Case("counts_scores", "Figure 9: EM not weakly honest on the panel beyond the threshold",
         scores, lambda o: set_score(o, 0.99, 6, "", 0.1, column="em_diagonal"),
         args={"tolerance": 1e-6, "close": 1e-3}),
    Case("counts_scores", "Figure 9: EM's cost rising with n on the first panel",
         scores, lambda o: set_score(o, 0.5, 6, "EM", 0.72), args={"tolerance": 1e-6, "close": 1e-3}),
]


def _move_target(outputs: dict, mechanism: str, target: str, by: float) -> None:
    """Add ``by`` to one mechanism's wrong fractions on one target of Figure 10."""
    frame = outputs[f"{COUNTS}/fig10_adult.csv"]
    frame.loc[(frame["mechanism"] == mechanism) & (frame["target"] == target), "wrong_fraction"] += by


def _shrink_largest_n(outputs: dict, mechanism: str) -> None:
    """One mechanism's RMSE at the largest n set just below its value at the smallest (per repetition, alpha, p)."""
    frame = outputs[f"{COUNTS}/fig13_synthetic.csv"]
    mine = frame["mechanism"] == mechanism
    small = frame[mine & (frame["n"] == frame["n"].min())].set_index(["alpha", "p", "repetition"])["value"]
    large = mine & (frame["n"] == frame["n"].max())
    keys = pd.MultiIndex.from_frame(frame.loc[large, ["alpha", "p", "repetition"]])
    frame.loc[large, "value"] = small.reindex(keys).to_numpy() - 0.001
