"""Rule counts_fig07: Figure 7, GM, WM and EM for a small group as heatmaps (one colour scale), with WM (CM) beside
them (decisions.md, section 7: the paper's WM is the one without CM)."""

import numpy as np

from privest import counts
from privest_studies import files, jobs, plotting


def main() -> None:
    n, alpha = snakemake.params.n, snakemake.params.alpha
    bank = files.load_npz(snakemake.input[0])
    mechanisms = {name: bank[counts.mechanism_key(name, n, alpha)] for name in ("GM", "WM", "EM", "WM (CM)")}
    vmax = max(P.max() for P in mechanisms.values())
    fig, axes = plotting.figure(ncols=4, figsize=(15.0, 3.6))
    for ax, (name, P) in zip(axes, mechanisms.items(), strict=True):
        image = plotting.count_mechanism_heatmap(ax, P, vmax=vmax,
                                                 title=f"{name}: P(true answer) = {np.diag(P).mean():.3f}")
        ax.text(0.5, -0.2, f"L0 score {counts.loss(P):.4f}", transform=ax.transAxes, ha="center", va="top",
                fontsize=7)
    fig.colorbar(image, ax=list(axes), shrink=0.8, label="probability")
    fig.suptitle(f"Figure 7: GM, WM and EM (and WM (CM), not in the paper) for n = {n}, α = {alpha:.4g}"
                 f" (ε = {-np.log(alpha):.4f})", y=1.02)
    printed = snakemake.params.published
    fig.text(0.45, -0.06, "P(true answer) = the mean diagonal, i.e. for uniformly distributed inputs; the paper"
             f" prints {printed['GM']} for GM and {printed['EM']} for EM. WM: L0 optimum under WH + RM, as the"
             " paper's figures build it; WM (CM) adds CM, as its section V-A says (Decisions, section 7).",
             ha="center", va="top", fontsize=7)
    plotting.save(fig, *snakemake.output)


jobs.run_or_exit(main, snakemake.log)
