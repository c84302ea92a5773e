"""Rule ec_figures: one figure per dataset of the estimator-comparison study: which estimator wins where. A heatmap,
one row per estimator and one column per (protocol, eps), of each estimator's mean distance to theta over the best
one's in its column (1 = the winner, starred), with the MLE's 95% interval coverage under each column."""

from pathlib import PurePath

import numpy as np
from matplotlib.colors import LogNorm
from matplotlib.ticker import FixedLocator, FuncFormatter

from privest_studies import estimator_comparison as ec
from privest_studies import files, jobs, plotting, standard_protocols


def main() -> None:
    config = snakemake.params.config
    scale = config["scales"][config["scale"]][ec.STUDY]
    lines = files.load_table(snakemake.input.summary).to_dict("records")
    labels = {name: standard_protocols.dataset_label(name, files.load_json(path))
              for name, path in zip(ec.DATASETS, snakemake.input.alphabets, strict=True)}
    outputs = list(snakemake.output)
    for dataset in dict.fromkeys(PurePath(path).stem for path in outputs):
        columns, methods, ratio, coverage = ec.ratio_grid(lines, dataset, ec.methods(config))
        fig, ax = plotting.figure(figsize=(2.5 + 0.66 * len(columns), 2.2 + 0.36 * len(methods)))
        top = max(2.0, float(np.nanmax(ratio)))
        image = ax.imshow(ratio, cmap="viridis_r", aspect="auto", norm=LogNorm(vmin=1.0, vmax=top))
        for i in range(len(methods)):
            for j in range(len(columns)):
                if np.isfinite(ratio[i, j]):
                    text = "★" if ratio[i, j] == 1.0 else (f"{ratio[i, j]:.2f}" if ratio[i, j] < 10
                                                             else f"{ratio[i, j]:.3g}")
                    ax.text(j, i, text, ha="center", va="center", fontsize=6.5,
                            color="white" if np.log(ratio[i, j]) > 0.5 * np.log(top) else "black")
        ax.set_yticks(range(len(methods)), methods, fontsize=8)
        ax.set_xticks(range(len(columns)),
                      [f"{'geom.' if p == 'geometric' else ec.protocol_label(p)}\nε {e:g}\ncov. {c:.2f}"
                       for (p, e), c in zip(columns, coverage, strict=True)],
                      fontsize=7)
        ax.set_xlabel("protocol, ε, and the coverage of the MLE's 95% Wald intervals (share of values covered)")
        ax.set_ylabel("estimator (post-processing of the unbiased estimate, MLE, closed form)")
        colorbar = fig.colorbar(image, ax=ax, fraction=0.03, pad=0.01)
        ticks = [t for t in (1, 1.5, 2, 3, 5, 10, 30, 100, 300, 1000) if t <= top]
        colorbar.ax.yaxis.set_major_locator(FixedLocator(ticks))
        colorbar.ax.yaxis.set_minor_locator(FixedLocator([]))
        colorbar.ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
        colorbar.set_label(f"mean {ec.metric_name(dataset)} ÷ the best estimator's (log scale)", fontsize=8)
        fig.suptitle(f"{ec.TITLES[dataset]}: which estimator wins where, protocol by protocol\n"
                     f"★ = the smallest mean {ec.metric_name(dataset)} to θ in its column; each cell: the estimator's "
                     "mean over the winner's", fontsize=10)
        notes = [f"{labels[dataset]}; n = {scale['n']:,} users drawn i.i.d. from θ per run, runs per column: "
                 f"{scale['runs']}; scale: {config['scale']}",
                 "base (raw) and norm may be negative, norm-cut and power need not sum to 1: the distance is computed "
                 "on them as they are" + (" (Σ|F̂ − F| over the alphabet)" if dataset != "adult" else ""),
                 "MLE: GIBU on the protocol's reports (IBU on the geometric counts); closed form: the k-RR MLE; "
                 "cov.: share of the k values whose 95% Wald interval holds θ (secrets at the boundary: not 95%)"]
        fig.text(0.5, -0.01, "\n".join(notes), ha="center", va="top", fontsize=7.5)
        pdf, png = (p for p in outputs if PurePath(p).stem == dataset)
        plotting.save(fig, pdf, png)


jobs.run_or_exit(main, snakemake.log)
