"""Rule counts_optimal: Figures 1-2, each panel's LP optimum without constraints and with all seven properties, and
the property checker's result on every panel as a table (Figure 2's caption: every property holds on every panel, and
the gaps of Figure 1 are gone).

The table has one row per (panel, LP): 1 where the checker (tolerance params.tolerance) finds a property, 0 where it
does not, and `least_reported`: the largest probability with which the mechanism reports its least reported output
(0 for a gap, an output never reported)."""

import numpy as np

from privest import counts
from privest_studies import files, jobs

CHECKED = ("BasicDP", *counts.PROPERTIES)


def main() -> None:
    alpha, panels = snakemake.params.alpha, snakemake.params.panels
    arrays = {"alpha": np.array(alpha), "objective": np.array([p["objective"] for p in panels]),
              "n": np.array([p["n"] for p in panels])}
    rows = []
    progress = jobs.Progress("counts_optimal", [(p["n"] + 1) ** 2 for p in panels])
    for k, panel in enumerate(progress.each(panels, lambda p: f"LPs of {p['objective']}, n={p['n']}")):
        arrays[f"unconstrained_{k}"] = counts.optimal(panel["n"], alpha, panel["objective"])
        arrays[f"constrained_{k}"] = counts.optimal(panel["n"], alpha, panel["objective"], counts.PROPERTIES)
        for lp in ("unconstrained", "constrained"):
            P = arrays[f"{lp}_{k}"]
            checked = counts.properties(P, alpha, tol=snakemake.params.tolerance)
            rows.append({"panel": chr(97 + k), "objective": panel["objective"], "n": panel["n"], "alpha": alpha,
                         "lp": lp, **{name: int(checked[name]) for name in CHECKED},
                         "least_reported": float(P.max(axis=1).min())})
    files.save_npz(snakemake.output.mechanisms, **arrays)
    files.save_rows(rows, ["panel", "objective", "n", "alpha", "lp", *CHECKED, "least_reported"],
                    snakemake.output.table)


jobs.run_or_exit(main, snakemake.log)
