"""Rule counts_fig_optimal: Figures 1 and 2, the LP-optimal mechanisms of each panel's objective without constraints
(Figure 1: gaps and spikes) and with all seven properties (Figure 2)."""

import numpy as np

from privest import counts
from privest_studies import files, jobs, plotting

NAMES = {"L0": "L0 (wrong answer)", "L1": "L1 (absolute error)", "L2": "L2 (squared error)"}


def objective_name(objective: str) -> str:
    if objective in NAMES:
        return NAMES[objective]
    return f"{objective} (more than {objective.split(',')[1]} away)"


def gaps(P: np.ndarray) -> str:
    """The outputs never reported (zero rows), as the panel's note."""
    never = [str(j) for j in range(P.shape[0]) if P[j].max() < 1e-9]
    return f"never reports {', '.join(never)}" if never else "reports every output"


def draw(data: dict, key: str, title: str, note: str, path_pdf: str, path_png: str) -> None:
    panels = len(data["n"])
    fig, axes = plotting.figure(ncols=panels, figsize=(3.1 * panels, 3.6))
    for k, ax in enumerate(np.atleast_1d(axes)):
        P, objective, n = data[f"{key}_{k}"], str(data["objective"][k]), int(data["n"][k])
        plotting.count_mechanism_heatmap(ax, P, title=f"({chr(97 + k)}) min {objective_name(objective)}\nn = {n}")
        ax.text(0.5, -0.2, f"{objective} = {counts.loss(P, objective):.3f}; {gaps(P)}", transform=ax.transAxes,
                ha="center", va="top", fontsize=7)
    fig.suptitle(title, y=0.98)
    fig.text(0.5, -0.06, note, ha="center", va="top", fontsize=7)
    plotting.save(fig, path_pdf, path_png)


def main() -> None:
    data = files.load_npz(snakemake.input[0])
    alpha = float(data["alpha"])
    out = snakemake.output
    draw(data, "unconstrained", f"Figure 1: optimal mechanisms under BasicDP only (α = {alpha:g})",
         "Each column i is the distribution of the reported count for true count i; the LP (HiGHS, dual simplex)"
         " minimises the objective over the differentially private mechanisms.", out[0], out[1])
    properties = [counts.properties(data[f"constrained_{k}"], alpha, tol=snakemake.params.tolerance)
                  for k in range(len(data["n"]))]
    held = "all" if all(all(p.values()) for p in properties) else "NOT all"
    draw(data, "constrained", f"Figure 2: optimal mechanisms with all seven properties (α = {alpha:g})",
         f"The same objectives and n under BasicDP + RH, RM, CH, CM, F, WH, S; the checker confirms {held} properties"
         " on every panel.", out[2], out[3])


jobs.run_or_exit(main, snakemake.log)
