"""Rule sp_figures: one figure per dataset of the standard-protocols study: EMD and squared l2 error to theta against
the number of users n (log-log), mean +- 1 s.d. over runs, GIBU over the whole mixture beside the per-protocol
estimators [INV]_R-P and [IBU]_R."""

from pathlib import PurePath

from privest_studies import files, jobs, plotting, standard_protocols


def main() -> None:
    config = snakemake.params.config
    study = config["standard_protocols"]
    runs = config["scales"][config["scale"]]["standard_protocols"]["runs"]
    table = files.load_table(snakemake.input.scores, dtypes={"note": str})
    alphabets = {name: files.load_json(path)
                 for name, path in zip(standard_protocols.DATASETS, snakemake.input.alphabets, strict=True)}
    summary = standard_protocols.summary(table.to_dict("records"), study["methods"])
    outputs = list(snakemake.output)
    for dataset in dict.fromkeys(PurePath(path).stem for path in outputs):
        rows = table[table["dataset"] == dataset]
        ns = sorted(rows["n"].unique())
        fig, axes = plotting.figure(ncols=2, figsize=(11.0, 5.0))
        notes = []
        for ax, metric in zip(axes, ("emd", "l2sq"), strict=True):
            notes += plotting.emd_bands_by_n(ax, rows, study["methods"], metric, standard_protocols.method_labels())
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xticks(ns, [f"{n:,}" for n in ns])
            ax.set_xlabel("number of users n (log scale)")
            ax.set_ylabel(standard_protocols.metric_title(metric, dataset))
            ax.set_title(standard_protocols.panel_title(metric, summary, dataset), fontsize=9)
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.885), ncol=len(labels), fontsize=8)
        fig.suptitle(f"{standard_protocols.TITLES[dataset]}: GIBU over the whole mixture of standard LDP protocols "
                     "vs per-protocol estimators\n"
                     f"n users split equally over {standard_protocols.groups_text(config)}\n"
                     "GIBU pools every protocol's reports in one MLE, which no peer library can do", fontsize=10,
                     y=0.995)
        fig.subplots_adjust(top=0.74, wspace=0.25)
        iterative = [m for m in study["methods"] if "IBU" in m and (rows["method"] == m).any()]
        capped = ", ".join(f"{m} {rows.loc[rows['method'] == m, 'capped'].mean():.0%}" for m in iterative)
        footer = [f"{standard_protocols.dataset_label(dataset, alphabets[dataset])}; n users drawn i.i.d. from θ in "
                  f"each run; {runs} runs per n, mean ± 1 s.d.; scale: {config['scale']}",
                  "[e]_R: each (protocol, ε) group estimated from its own reports, the estimates weighted by n^A/n "
                  "(free-will eqs. 4-5); unbiased estimator: Wang et al. 2017, projected onto the simplex",
                  f"{standard_protocols.stopping_text(config)}; runs stopped by the cap: {capped or 'none'}",
                  standard_protocols.hashes_text(config)]
        footer += [f"NA: {note}" for note in dict.fromkeys(notes)]
        fig.text(0.5, -0.01, "\n".join(line for line in footer if line), ha="center", va="top", fontsize=7.5)
        pdf, png = (p for p in outputs if PurePath(p).stem == dataset)
        plotting.save(fig, pdf, png)


jobs.run_or_exit(main, snakemake.log)
