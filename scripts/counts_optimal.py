"""Rule counts_optimal: Figures 1-2, each panel's LP optimum without constraints and with all seven properties."""

import numpy as np

from privest import counts
from privest_studies import files, jobs


def main() -> None:
    alpha = snakemake.params.alpha
    arrays = {"alpha": np.array(alpha), "objective": np.array([p["objective"] for p in snakemake.params.panels]),
              "n": np.array([p["n"] for p in snakemake.params.panels])}
    panels = snakemake.params.panels
    progress = jobs.Progress("counts_optimal", [(p["n"] + 1) ** 2 for p in panels])
    for k, panel in enumerate(progress.each(panels, lambda p: f"LPs of {p['objective']}, n={p['n']}")):
        arrays[f"unconstrained_{k}"] = counts.optimal(panel["n"], alpha, panel["objective"])
        arrays[f"constrained_{k}"] = counts.optimal(panel["n"], alpha, panel["objective"], counts.PROPERTIES)
    files.save_npz(snakemake.output[0], **arrays)


jobs.run_or_exit(main, snakemake.log)
