"""Rule mt_figures: one figure per grid of the multi-freq-ldpy tutorials study (the multidimensional grid one per data
set): the tutorials' MSE against eps (log y) and the EMD, mean over runs, one colour per protocol, the peer's
unbiased estimator (Norm-Mul) solid and GIBU dashed."""

from pathlib import PurePath

from matplotlib.lines import Line2D

from privest_studies import files, jobs, plotting
from privest_studies import multi_freq_ldpy_tutorials as mt


def main() -> None:
    config = snakemake.params.config
    runs = config["scales"][config["scale"]][mt.STUDY]["runs"]
    table = files.load_table(snakemake.input.summary)
    alphabet = files.load_json(snakemake.input.alphabet)
    outputs = list(snakemake.output)
    for name, (grid, dataset) in mt.panels(config).items():
        lines = table[(table["grid"] == grid) & (table["dataset"] == dataset)]
        fig, axes = plotting.figure(ncols=2, figsize=(12.0, 5.2))
        protocols = [p for p in mt.order(config, grid) if (lines["protocol"] == p).any()]
        colours = {p: f"C{i % 10}" for i, p in enumerate(protocols)}
        for ax, metric in zip(axes, ("mse", "emd"), strict=True):
            for protocol in protocols:
                for method, style in zip(mt.METHODS, ("-", "--"), strict=True):
                    line = lines[(lines["protocol"] == protocol) & (lines["method"] == method)].sort_values("eps")
                    ax.plot(line["eps"], line[f"{metric}_mean"], linestyle=style, marker="o" if style == "-" else "x",
                            markersize=3.5, color=colours[protocol], linewidth=1.3)
            ax.set_yscale("log")
            ax.set_xticks(sorted(lines["eps"].unique()))
            ax.set_xlabel(mt.eps_label(grid))
            ax.set_ylabel(mt.metric_label(metric, grid))
            ax.set_title(f"{'MSE (the tutorial’s figure)' if metric == 'mse' else 'EMD'}\n"
                         f"{mt.gibu_ratio_text(lines.to_dict('records'), metric)}", fontsize=8.5)
        handles = [Line2D([], [], color=colours[p], linewidth=2, label=mt.protocol_label(p)) for p in protocols]
        handles += [Line2D([], [], color="0.3", linestyle=style, marker=marker, label=mt.METHOD_LABELS[method])
                    for method, style, marker in zip(mt.METHODS, ("-", "--"), ("o", "x"), strict=True)]
        fig.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.90), ncol=min(len(handles), 8),
                   fontsize=8)
        where = (alphabet["label"] if grid != "multidim" else
                 mt.multidim_label(dataset, config))
        fig.suptitle(f"multi-freq-ldpy's tutorial grid, {mt.TITLES[grid]}, rerun in privest: the peer's estimator and "
                     f"GIBU on the same reports\n{where}", fontsize=10, y=0.995)
        fig.subplots_adjust(top=0.74, wspace=0.25)
        rule = config[mt.STUDY]["ibu"]
        capped = int(lines.loc[lines["method"] == "GIBU", "capped_runs"].sum())
        footer = [f"Mean over {mt.runs_text(runs)} (the tutorials' seeds; scale: {config['scale']}); every person "
                  "reports once a run. Norm-Mul: the unbiased estimate with negatives set to 0, rescaled to sum 1 "
                  "(the peer's MI, privest.consistency 'norm-mul').",
                  f"GIBU: the MLE on the protocol's exact report likelihood{mt.GIBU_NOTE[grid]}; SQUAREM, stop at "
                  f"ΔL < {rule['delta']:g} or {rule['max_iter']:,} updates; runs stopped by the cap: {capped}."]
        fig.text(0.5, -0.01, "\n".join(footer), ha="center", va="top", fontsize=7.5)
        pdf, png = (p for p in outputs if PurePath(p).stem == name)
        plotting.save(fig, pdf, png)


jobs.run_or_exit(main, snakemake.log)
