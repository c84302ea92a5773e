"""The contradicting cases of the checks of the studies beyond the papers that judge a decision rule (see
verdict_cases.py): sw_or_geometric on the paired differences of the SW+EMS or geometric+IBU study."""

import pandas as pd
from verdict_cases import Case

PAIRED = "sw_vs_geometric/tables/paired.csv"
CONFIG = {"report": {"level": 0.95}}


def paired() -> pd.DataFrame:
    """Two eps of the ages, each interval of d = EMD(SW+EMS) - EMD(geometric+IBU) below 0 (SW+EMS closer)."""
    return pd.DataFrame([
        {"column": "ages", "unit": "years", "eps": eps, "first": "SW+EMS", "second": "geometric+IBU", "runs": 20,
         "level": 0.95, "difference": d, "low": d - 0.1, "high": d + 0.1, "first_mean": 1.0, "second_mean": 1.0 - d}
        for eps, d in ((1.0, -0.5), (4.0, -0.3))])


def shift(outputs: dict, eps: float, by: float) -> None:
    """Move one eps's difference and its interval by ``by``."""
    table = outputs[PAIRED]
    rows = table["eps"] == eps
    for name in ("difference", "low", "high"):
        table.loc[rows, name] += by


CASES = [
    Case("sw_or_geometric", "geometric+IBU closer beyond noise at eps 4", lambda: {PAIRED: paired()},
         lambda o: shift(o, 4.0, 0.6), {"column": "ages"}, CONFIG),
    Case("sw_or_geometric", "the interval at eps 1 holds 0", lambda: {PAIRED: paired()},
         lambda o: shift(o, 1.0, 0.45), {"column": "ages"}, CONFIG),
]
