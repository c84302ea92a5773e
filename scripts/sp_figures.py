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
    labels = {name: standard_protocols.dataset_label(name, files.load_json(path))
              for name, path in zip(standard_protocols.DATASETS, snakemake.input.alphabets, strict=True)}
    outputs = list(snakemake.output)
    for dataset in dict.fromkeys(PurePath(path).stem for path in outputs):
        rows = table[table["dataset"] == dataset]
        ns = sorted(rows["n"].unique())
        fig, axes = plotting.figure(ncols=2, figsize=(10.5, 4.3))
        for ax, metric in zip(axes, ("emd", "l2sq"), strict=True):
            notes = plotting.emd_bands_by_n(ax, rows, study["methods"], metric, standard_protocols.method_labels())
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xticks(ns, [f"{n:,}" for n in ns])
            ax.set_xlabel("number of users n (log scale)")
            ax.set_ylabel(standard_protocols.METRIC_TITLES[metric])
        axes[0].set_title("earth mover's distance")
        axes[1].set_title("squared ℓ2 error")
        axes[0].legend(loc="lower left", fontsize=7.5)
        fig.suptitle(f"{standard_protocols.TITLES[dataset]}: GIBU over the whole mixture of standard LDP protocols "
                     f"vs per-protocol estimators\nn users split equally over {standard_protocols.groups_text(config)}"
                     " — pooling every protocol's reports in one MLE is what no peer library can do", fontsize=9.5)
        iterative = [m for m in study["methods"] if "IBU" in m and (rows["method"] == m).any()]
        capped = ", ".join(f"{m} {rows.loc[rows['method'] == m, 'capped'].mean():.0%}" for m in iterative)
        footer = [f"{labels[dataset]}; n users drawn i.i.d. from θ in each run; {runs} runs per n, mean ± 1 s.d.; "
                  f"scale: {config['scale']}",
                  f"{standard_protocols.stopping_text(config)}; runs stopped by the cap: {capped or 'none'}",
                  standard_protocols.hashes_text(config)]
        footer += [f"NA: {note}" for note in notes]
        fig.text(0.5, -0.01, "\n".join(line for line in footer if line), ha="center", va="top", fontsize=7.5)
        pdf, png = (p for p in outputs if PurePath(p).stem == dataset)
        plotting.save(fig, pdf, png)


jobs.run_or_exit(main, snakemake.log)
