"""Rule ld_figures: one figure per dataset of the large-domains study: against eps, a row per n, the mean absolute
and the largest error of the top items' frequencies (log y) and the precision and recall of the top items found,
mean over runs; one colour per protocol, the unbiased estimate solid, the candidate MLE dashed, a heavy-hitter
protocol's own list dotted."""

from pathlib import PurePath

from matplotlib.lines import Line2D

from privest_studies import files, jobs, plotting
from privest_studies import large_domains as ld

METRICS = {"mae": "mean |error|, top {top} (share of users)",
           "max_error": "largest |error|, top {top} (share of users)", "precision": "precision of the top {top} found",
           "recall": "recall of the top {top} found"}
STYLES = {ld.UNBIASED: ("-", "o"), ld.MLE: ("--", "x"), ld.FOUND: (":", "s")}
LABELS = {ld.UNBIASED: "unbiased estimate (Sketch.estimate)", ld.MLE: "candidate MLE (GIBU, candidates + other)",
          ld.FOUND: "heavy-hitter protocol's own list"}


def main() -> None:
    config = snakemake.params.config
    study = config[ld.STUDY]
    runs = config["scales"][config["scale"]][ld.STUDY]["runs"]
    table = files.load_table(snakemake.input.summary)
    outputs = list(snakemake.output)
    for dataset in ld.DATASETS:
        lines = table[table["dataset"] == dataset]
        sizes = sorted(lines["n"].unique())
        fig, axes = plotting.figure(nrows=len(sizes), ncols=4, figsize=(15.0, 3.4 * len(sizes) + 1.6), squeeze=False)
        protocols = [p for p in ld.protocols_of(config) if (lines["protocol"] == p).any()]
        colours = {p: f"C{i % 10}" for i, p in enumerate(protocols)}
        total = int(table.loc[table["dataset"] == dataset, "n"].max())
        for row, n in zip(axes, sizes, strict=True):
            for ax, metric in zip(row, METRICS, strict=True):
                for protocol in protocols:
                    for method, (style, marker) in STYLES.items():
                        line = lines[(lines["protocol"] == protocol) & (lines["method"] == method)
                                     & (lines["n"] == n)].sort_values("eps")
                        if len(line):
                            ax.plot(line["eps"], line[f"{metric}_mean"], linestyle=style, marker=marker,
                                    markersize=4, color=colours[protocol], linewidth=1.3)
                if metric in ("mae", "max_error"):
                    ax.set_yscale("log")
                else:
                    ax.set_ylim(-0.03, 1.03)
                ax.set_xticks(sorted(lines["eps"].unique()))
                ax.set_xlabel("ε (privacy level of each report)")
                ax.set_ylabel(METRICS[metric].format(top=study["top"]))
                ax.set_title(ld.n_label(int(n), dataset, config, total), fontsize=9)
        handles = [Line2D([], [], color=colours[p], linewidth=2, label=p.upper()) for p in protocols]
        handles += [Line2D([], [], color="0.3", linestyle=style, marker=marker, label=LABELS[method])
                    for method, (style, marker) in STYLES.items() if (lines["method"] == method).any()]
        fig.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 1.0 - 0.55 / fig.get_figheight()),
                   ncol=len(handles), fontsize=8)
        k = int(lines["k"].iloc[0])
        fig.suptitle(f"Frequent items of a large domain: {ld.title(dataset, config, k)}: the top {study['top']} "
                     f"items' frequencies and the top {study['top']} found by each protocol", fontsize=10.5, y=1.0)
        fig.subplots_adjust(top=1.0 - 1.3 / fig.get_figheight(), hspace=0.45, wspace=0.42,
                            bottom=0.8 / fig.get_figheight())
        rule = study["ibu"]
        capped = int(lines["capped_runs"].sum())
        fig.text(0.5, -0.01, "\n".join([
            f"Mean over {runs} run{'s' if runs != 1 else ''} (scale {config['scale']}), every user reporting once a "
            f"run. Candidate list: the true top {study['candidates']} items (the oracles are asked about these only); "
            f"the top {study['top']} found: the candidates with the largest estimates.",
            f"With {study['top']} found and {study['top']} true, precision equals recall unless counts tie at the "
            f"{study['top']}th item; a heavy-hitter protocol may return fewer.",
            "Truth: the users' own shares; the true top set: every item whose count reaches the "
            f"{study['top']}th largest. MLE: GIBU on Sketch.candidate_group (not for HM), stop at gap < "
            f"{rule['delta']:g} or {rule['max_iter']:,} updates; runs stopped by the cap: {capped}."]),
            ha="center", va="top", fontsize=7.5)
        pdf, png = (p for p in outputs if PurePath(p).stem == dataset)
        plotting.save(fig, pdf, png)


jobs.run_or_exit(main, snakemake.log)
