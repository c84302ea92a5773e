"""The checks of the count paper's items (Constrained differential privacy for count data).

Each is a function of the outputs, the config and the catalogue's arguments (see ``checks``).
"""

import math
from collections.abc import Mapping

import pandas as pd

from privest_studies.reproduction.printed import fmt
from privest_studies.reproduction.records import Comparison, Outcome, Outputs


def counts_published(outputs: Outputs, config: Mapping, where: str) -> Outcome:
    """The count paper's numbers of tables/published.csv whose `where` mentions the given text; a row whose
    `construction` names the parameter the printed number fixed agrees by construction."""
    table = outputs["constrained_counts/tables/published.csv"]
    rows = table[table["where"].str.contains(where, regex=False)]
    if rows.empty:
        raise ValueError(f"no row of constrained_counts/tables/published.csv mentions {where!r}")
    comparisons = []
    for row in rows.itertuples():
        agrees = None if pd.isna(row.agrees) or row.agrees == "" else str(row.agrees) == "True"
        construction = "" if pd.isna(row.construction) else str(row.construction)
        comparisons.append(Comparison(row.quantity, str(row.paper), str(row.ours), str(row.tolerance), agrees,
                                      construction=construction))
    return Outcome(comparisons)


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
    """Figure 5: the flowchart's mechanism reaches the LP's optimum for every set of properties checked."""
    table = outputs["constrained_counts/tables/fig05_flowchart.csv"]
    judged = table[table["agrees"].notna() & (table["agrees"].astype(str) != "")]
    agree = int((judged["agrees"].astype(str) == "True").sum())
    points = table[["n", "alpha"]].drop_duplicates().shape[0]
    return Outcome([Comparison(f"property sets where the flowchart's choice scores the LP optimum ({points} (n, "
                               "alpha) points)", "all 128", f"{agree} of {len(judged)}", "LP tolerance",
                               agree == len(judged))])


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
    is n/(n+1) (up to random variation: three binomial standard errors over all its groups)."""
    table = outputs["constrained_counts/tables/fig10_adult.csv"]
    um = table[table["mechanism"] == "UM"]
    per_n = []  # (z, n, observed, expected) of each group size
    for n, rows in um.groupby("n"):
        expected = n / (n + 1)
        groups = rows["groups"].sum()
        observed = float((rows["wrong_fraction"] * rows["groups"]).sum() / groups)
        per_n.append((abs(observed - expected) / math.sqrt(expected * (1 - expected) / groups), n, observed, expected))
    z, n, observed, expected = max(per_n)
    return Outcome([Comparison("UM's fraction of wrong answers (the n farthest from n/(n+1))", "n/(n+1)",
                               f"n = {n}: {observed:.4f} against {expected:.4f} ({z:.1f} s.e.)", "3 standard errors",
                               z <= 3)])
