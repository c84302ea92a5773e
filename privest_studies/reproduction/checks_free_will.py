"""The checks of the free-will paper's items: Tables 1 and 2 cell by cell, and the findings of Figures 2-14.

Each is a function of the outputs, the config and the catalogue's arguments (see ``checks``).
"""

from collections.abc import Mapping

import numpy as np
import pandas as pd

from privest_studies import uncertainty
from privest_studies.reproduction.records import Comparison, Outcome, Outputs


def fw_findings(outputs: Outputs, config: Mapping, figure: str) -> Outcome:
    """A free-will figure's claims (tables/findings.csv) restricted to its mechanism sets and methods, each as strong
    as the paper's words (config free_will.findings): differs when one comparison fails, undecided when none fails
    and one cannot be told from noise at this scale."""
    spec = config["free_will"]["figures"][figure]
    table = outputs["free_will/tables/findings.csv"]
    rows = table[table["mechanism_set"].isin(spec["panels"]) & table["better"].isin(spec["methods"])
                 & table["worse"].isin(spec["methods"])]
    comparisons = []
    for check, group in rows.groupby("check", sort=False):
        failed, open_ = group[group["result"] == "fails"], group[group["result"] == "undecided"]
        ours = f"holds in {len(group) - len(failed) - len(open_)} of {len(group)}" + "".join(
            f"; {r.result} for {r.worse} on {r.mechanism_set} (z = {r.mean_difference / r.standard_error:.1f})"
            for r in pd.concat([failed, open_]).itertuples())
        undecided = failed.empty and not open_.empty
        test = group["test"].iloc[0]
        rule = ("mean difference below -z SE" if test == "better" else "mean difference at most z SE")
        comparisons.append(Comparison(check, "holds", ours, f"{test}: {rule}, z = {group['z'].iloc[0]:g}, at the "
                                      "largest n", None if undecided else failed.empty, undecided=undecided))
    return Outcome(comparisons)


def fw_verdicts(outputs: Outputs, config: Mapping, table: str) -> Outcome:
    """Tables 1-2, cell by cell: our verdict (config free_will.verdict on the EMD ratio to GIBU with its 95%
    interval) against the paper's, agree, disagree or undecided (free_will_verdicts), and how many cells agree for
    the other thresholds of the grid (not judged)."""
    rows = outputs[f"free_will/tables/{table}.csv"]  # one per (row, column, mechanism set): one agreement per cell
    rule = uncertainty.rule_text(config["free_will"]["verdict"])
    rows = rows.fillna({"paper": "NA", "verdict": "NA"})
    comparisons, tally = [], dict.fromkeys(uncertainty.AGREEMENTS, 0)
    for (row, column), lines in rows.groupby(["row", "column"], sort=False):
        ratios = ", ".join("NA" if not np.isfinite(r.ratio) else
                           f"{r.ratio:.2f} [{r.ratio_low:.2f}, {r.ratio_high:.2f}]" for r in lines.itertuples())
        first = lines.iloc[0]
        tally[first["agreement"]] += 1
        undecided = first["agreement"] == uncertainty.UNDECIDED
        comparisons.append(Comparison(f"{row}, {column}", first["paper"], f"{first['verdict']} ({ratios})",
                                      f"whole 95% interval in the paper's band ({rule}; ours)",
                                      None if undecided else first["agreement"] == uncertainty.AGREE,
                                      undecided=undecided))
    cells = sum(tally.values())
    grid = outputs[f"free_will/tables/{table}_thresholds.csv"]
    agreeing = grid[uncertainty.AGREE]
    comparisons.append(Comparison(
        f"cells that agree for the other thresholds of the grid ({len(grid)} pairs around ours)",
        "no thresholds printed", f"{agreeing.min()} to {agreeing.max()} of {cells} (ours: {tally[uncertainty.AGREE]})",
        "not judged", None))
    name = {"table01": "Table 1", "table02": "Table 2"}.get(table, table)
    return Outcome(comparisons, tally=f"{name}: " + ", ".join(f"{tally[a]} {a}" for a in uncertainty.AGREEMENTS)
                   + f" (of {cells} cells)")
