"""The checks of the studies beyond the papers that state a question and a decision rule before their results: the
SW+EMS or geometric+IBU study (issue 50, ``privest_studies.sw_vs_geometric``), judged on the paired differences its
summary rule writes."""

from collections.abc import Mapping

import numpy as np

from privest_studies import uncertainty
from privest_studies.reproduction.records import Comparison, Outcome, Outputs

PAIRED = "sw_vs_geometric/tables/paired.csv"


def sw_or_geometric(outputs: Outputs, config: Mapping, column: str) -> Outcome:
    """'SW+EMS estimates the column's distribution closer than geometric+IBU at every eps': per eps the paired per-run
    difference d = EMD(SW+EMS) - EMD(geometric+IBU) with its t interval at the report's level
    (``uncertainty.difference_interval``, written by rule svg_summary). Agrees when every eps's interval lies below 0;
    differs when one lies at or above 0 (geometric+IBU as close or closer there beyond noise); undecided otherwise
    (an interval holds 0: more runs could turn it either way)."""
    table = outputs[PAIRED]
    rows = table[table["column"] == column].sort_values("eps")
    found = [(float(r.eps), uncertainty.below_zero(float(r.low), float(r.high)), r) for r in rows.itertuples()]
    disagree = [eps for eps, verdict, _ in found if verdict == uncertainty.DISAGREE]
    agrees = bool(found) and all(verdict == uncertainty.AGREE for _, verdict, _ in found)
    undecided = not agrees and not disagree
    level = float(rows["level"].iloc[0]) if len(rows) else float(config["report"]["level"])
    unit = str(rows["unit"].iloc[0]) if len(rows) else ""
    ours = "; ".join(f"eps {eps:g}: d {r.difference:+.3g} [{r.low:+.3g}, {r.high:+.3g}] {unit} "
                     f"(SW+EMS {r.first_mean:.3g}, geometric+IBU {r.second_mean:.3g})" for eps, _, r in found)
    runs = int(np.min(rows["runs"])) if len(rows) else 0
    return Outcome([Comparison(
        f"{column}: EMD(SW+EMS) - EMD(geometric+IBU), paired over {runs} runs",
        "the rule's answer 'SW+EMS' (closer at every eps)", ours or "no eps ran",
        f"{level:.0%} intervals below 0 at every eps; differs where one lies at or above 0",
        None if undecided else agrees, undecided=undecided, key=f"{column}: SW+EMS against geometric+IBU")])
