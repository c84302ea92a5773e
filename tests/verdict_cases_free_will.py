"""The contradicting cases of the free-will paper's checks (see verdict_cases.py): Tables 1-2 (fw_verdicts), the
findings of Figures 2-14 (fw_findings), Propositions 2-3 (fw_propositions) and eq. (11) (fw_noninformative), each on
tiny tables in the columns the study writes (privest_studies.free_will_verdicts, scripts/fw_*.py)."""

import numpy as np
import pandas as pd
from verdict_cases import Case, Outputs

from privest_studies.free_will_verdicts import FINDING_COLUMNS, RATIO_COLUMNS

RULE = [{"verdict": "Excellent", "min_ratio": 1 / 1.2, "max_ratio": 1.2, "min_ratio_added": "2026-11-27 (test)"},
        {"verdict": "Good", "max_ratio": 2.0}, {"verdict": "Bad"}]
CONFIG = {"free_will": {
    "verdict": RULE,
    "verdict_interval": {"thresholds": {"Excellent": [1.2, 1.5], "Good": [2.0, 2.5]}},
    "figures": {"fig10": {"panels": ["krr_linear"], "methods": ["[IBU]_M", "GIBU"]},
                "fig14": {"panels": ["rappor_high"], "methods": ["[RAP]_M-N", "GIBU"]}},
    "noninformative": {"theta": [0.8, 0.2]},
}, "report": {"level": 0.95}}
TABLE = "free_will/tables/table01.csv"
FINDINGS = "free_will/tables/findings.csv"
PROPOSITIONS = "free_will/tables/propositions.csv"
EQ11 = "free_will/tables/eq11_noninformative.csv"


# --- Tables 1-2 ---------------------------------------------------------------------------------------------------


def cell(column: str, method: str, ratio: float, half: float, paper: str) -> dict:
    """One line of a ratio table: one mechanism set of one cell, ratio +- half."""
    return {"row": "k-RR + k-RR", "column": column, "mechanism_set": "krr_linear", "alphabet": "linear", "n": 1000,
            "method": method, "reference": "GIBU", "runs": 5, "ratio": ratio, "ratio_low": ratio - half,
            "ratio_high": ratio + half, "level": 0.95, "paper": paper}


def table_outputs() -> Outputs:
    """A Bad cell at 5x GIBU, an Excellent one at 1.05x, a Good one at 1.5x, an NA one, and the reference."""
    lines = [cell("[IBU]_R", "[IBU]_R", 5.0, 1.0, "Bad (Fig. 3)"), cell("[INV]_M", "[INV]_M-P", 1.05, 0.1, "Excellent"),
             cell("[IBU]_M", "[IBU]_M", 1.5, 0.1, "Good (Fig. 10)"),
             cell("[INV]_R", "[INV]_R-N", np.nan, np.nan, np.nan), cell("GIBU", "GIBU", 1.0, 0.0, "Excellent")]
    return {TABLE: pd.DataFrame(lines, columns=RATIO_COLUMNS)}


def scale_ratios(outputs: Outputs, column: str | None, factor: float) -> None:
    """Every ratio of a column (all non-reference columns when None) times factor."""
    table = outputs[TABLE]
    rows = (table["method"] != "GIBU") if column is None else (table["column"] == column)
    table.loc[rows, ["ratio", "ratio_low", "ratio_high"]] *= factor


def set_cell(outputs: Outputs, column: str, ratio: float, half: float) -> None:
    table = outputs[TABLE]
    table.loc[table["column"] == column, ["ratio", "ratio_low", "ratio_high"]] = [ratio, ratio - half, ratio + half]


def verdicts_case(change: str, contradict) -> Case:
    return Case("fw_verdicts", change, table_outputs, contradict, {"table": "table01"}, CONFIG)


# --- Figures 2-14: the findings -------------------------------------------------------------------------------------


def finding(test: str, worse: str, mechanism_set: str, d: float, half: float, ratio: float, ratio_half: float
            ) -> dict:
    """One line of findings.csv: GIBU against ``worse``, d = EMD(GIBU) - EMD(worse) +- half (5 runs, t = 2.78)."""
    return {"check": f"GIBU {test} {worse}", "test": test, "mechanism_set": mechanism_set, "n": 1000,
            "better": "GIBU", "worse": worse, "runs": 5, "emd_better": 1.0, "emd_worse": 1.0 - d,
            "mean_difference": d, "standard_error": half / 2.776, "difference_low": d - half,
            "difference_high": d + half, "ratio": ratio, "ratio_low": ratio - ratio_half,
            "ratio_high": ratio + ratio_half, "level": 0.95}


def findings_outputs() -> Outputs:
    """Figure 10: GIBU better than [IBU]_M by 0.5 +- 0.1; Figure 14: [RAP]_M-N over GIBU 1.0 +- 0.1 (similar)."""
    lines = [finding("better", "[IBU]_M", "krr_linear", -0.5, 0.1, 1.5, 0.1),
             finding("similar", "[RAP]_M-N", "rappor_high", 0.0, 0.05, 1.0, 0.1)]
    return {FINDINGS: pd.DataFrame(lines, columns=FINDING_COLUMNS)}


def set_finding(outputs: Outputs, worse: str, **values: float) -> None:
    table = outputs[FINDINGS]
    for column, value in values.items():
        table.loc[table["worse"] == worse, column] = value


def findings_case(figure: str, change: str, contradict) -> Case:
    return Case("fw_findings", change, findings_outputs, contradict, {"figure": figure}, CONFIG)


# --- Propositions 2-3 ---------------------------------------------------------------------------------------------


def propositions_outputs() -> Outputs:
    """Two n of one k-RR set, the simulated MSE at 0.9 [0.85, 0.95] of the bound."""
    lines = [{"mechanism_set": "krr_linear", "proposition": 2, "method": "[INV]_M-raw", "n": n, "eps_n": 4.5,
              "bound": 2.0 / n, "floor": 0.5 / n, "runs": 20, "mse_mean": 1.8 / n, "mse_sd": 0.2 / n,
              "mse_low": 1.7 / n, "mse_high": 1.9 / n, "level": 0.95, "mse_over_bound": 0.9, "expected": 1.99 / n}
             for n in (1000, 100000)]
    return {PROPOSITIONS: pd.DataFrame(lines)}


def scale_mse(outputs: Outputs, n: int, factor: float) -> None:
    table = outputs[PROPOSITIONS]
    table.loc[table["n"] == n, ["mse_mean", "mse_low", "mse_high"]] *= factor


def widen_mse(outputs: Outputs) -> None:
    """The smallest n's interval reaches above the bound: 0.9 [0.85, 1.05]."""
    table = outputs[PROPOSITIONS]
    table.loc[table["n"] == 1000, "mse_high"] = 2.1 / 1000


# --- Eq. (11) -------------------------------------------------------------------------------------------------------

GIBU_EMD = {1000: [0.03, 0.02, 0.04, 0.025], 100000: [0.002, 0.003, 0.001, 0.0025]}


def eq11_outputs() -> Outputs:
    """[IBU]_M at 0.5 (EMD 0.3), [INV]_M NA, GIBU near theta_0 = 0.8 and closer at the larger n; 4 runs per n."""
    rows = []
    for n, emds in GIBU_EMD.items():
        for run, emd in enumerate(emds):
            rows += [{"n": n, "run": run, "method": "[IBU]_M", "theta0": 0.5, "emd": 0.3, "note": ""},
                     {"n": n, "run": run, "method": "GIBU", "theta0": 0.8 - emd, "emd": emd, "note": ""},
                     {"n": n, "run": run, "method": "[INV]_M-P", "theta0": np.nan, "emd": np.nan,
                      "note": "NA: A[n] is singular"}]
    return {EQ11: pd.DataFrame(rows)}


def set_method(outputs: Outputs, method: str, theta0, emd) -> None:
    table = outputs[EQ11]
    rows = table["method"] == method
    table.loc[rows, "theta0"] = theta0 if np.isscalar(theta0) else np.asarray(theta0)[: rows.sum()]
    table.loc[rows, "emd"] = emd if np.isscalar(emd) else np.asarray(emd)[: rows.sum()]


def eq11_case(change: str, contradict) -> Case:
    return Case("fw_noninformative", change, eq11_outputs, contradict, {}, CONFIG)


def biased_gibu(outputs: Outputs) -> None:
    """GIBU converges to 0.7, not 0.8: EMD about 0.1 at every n (still below [IBU]_M's 0.3)."""
    noise = np.tile([0.01, -0.01, 0.005, -0.005], 2)
    set_method(outputs, "GIBU", 0.7 + noise, 0.1 - noise)


CASES: list[Case] = [
    verdicts_case("GIBU's EMD multiplied by 10 (every other ratio / 10)", lambda o: scale_ratios(o, None, 0.1)),
    verdicts_case("a method at 0.12x GIBU in an Excellent cell", lambda o: set_cell(o, "[INV]_M", 0.12, 0.02)),
    verdicts_case("a Bad cell at 1.5x GIBU (Good)", lambda o: set_cell(o, "[IBU]_R", 1.5, 0.1)),
    verdicts_case("a Good cell at 2.6x GIBU (Bad)", lambda o: set_cell(o, "[IBU]_M", 2.6, 0.1)),
    verdicts_case("an NA cell (the method cannot run) with a ratio", lambda o: set_cell(o, "[INV]_R", 3.0, 0.5)),
    findings_case("fig10", "GIBU worse than [IBU]_M beyond noise",
                  lambda o: set_finding(o, "[IBU]_M", mean_difference=0.5, difference_low=0.4, difference_high=0.6)),
    findings_case("fig10", "GIBU and [IBU]_M within noise",
                  lambda o: set_finding(o, "[IBU]_M", mean_difference=-0.1, difference_low=-0.3,
                                        difference_high=0.1)),
    findings_case("fig10", "GIBU and [IBU]_M identical in every run (d = 0 exactly)",
                  lambda o: set_finding(o, "[IBU]_M", mean_difference=0.0, standard_error=0.0, difference_low=0.0,
                                        difference_high=0.0)),
    findings_case("fig14", "[RAP]_M 3x worse than GIBU in high privacy",
                  lambda o: set_finding(o, "[RAP]_M-N", ratio=3.0, ratio_low=2.8, ratio_high=3.2,
                                        mean_difference=-2.0, difference_low=-2.2, difference_high=-1.8)),
    findings_case("fig14", "[RAP]_M 3x better than GIBU in high privacy (GIBU 3x worse)",
                  lambda o: set_finding(o, "[RAP]_M-N", ratio=0.33, ratio_low=0.3, ratio_high=0.36,
                                        mean_difference=0.67, difference_low=0.6, difference_high=0.74)),
    Case("fw_propositions", "the simulated MSE 1.2x the bound at the largest n", propositions_outputs,
         lambda o: scale_mse(o, 100000, 1.2 / 0.9)),
    Case("fw_propositions", "the simulated MSE's interval crossing the bound at the smallest n",
         propositions_outputs, widen_mse),
    eq11_case("[IBU]_M moves off its uniform start", lambda o: set_method(o, "[IBU]_M", 0.6, 0.2)),
    eq11_case("[INV]_M inverts A[n]", lambda o: set_method(o, "[INV]_M-P", 0.79, 0.01)),
    eq11_case("GIBU stuck at the uniform start like [IBU]_M", lambda o: set_method(o, "GIBU", 0.5, 0.3)),
    eq11_case("GIBU converges to a wrong theta (its EMD does not fall with n)", biased_gibu),
]
