"""Rule own_study_figure: one experiment of one's own study, EMD to the original distribution over the runs of each
point: boxplots against eps, or the mean +- 1 s.d. against the number of users n (log axes)."""

from privest_studies import experiment, files, jobs, plotting


def main() -> None:
    spec = experiment.Experiment.from_dict(snakemake.params.experiment)
    table = files.load_table(snakemake.input[0], dtypes={"note": str})
    table = table[table["experiment"] == spec.name].rename(columns={"point": spec.axis})
    methods = [m for m in dict.fromkeys(table["method"]) if not m.endswith(experiment.RAW_SUFFIX)]
    fig, ax = plotting.figure(figsize=(6.4, 4.0))
    if spec.axis == "eps":
        plotting.boxplots_by_eps(ax, table, methods)
        notes = []
    else:
        notes = plotting.emd_bands_by_n(ax, table, methods)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xticks(sorted(table["n"].unique()), [f"{n:,}" for n in sorted(table["n"].unique())])
        ax.set_xlabel("number of users n (log scale)")
        ax.set_ylabel("EMD to the original distribution (log scale)")
        ax.legend(loc="best")
    users = ("every record once per run" if spec.points[0].users is None or spec.axis == "n"
             else f"{spec.points[0].users:,} users drawn per run")
    kinds = " + ".join(experiment.KIND_NAMES[kind] for kind in dict.fromkeys(m.kind for m in spec.members))
    shown = experiment.describe(spec.members) if spec.axis == "n" else f"{kinds} at each ε"
    ax.set_title(f"{spec.study}: {spec.name}\n{shown}", fontsize=9.5)
    split = "; users split equally over each point's mechanisms" if len(spec.points[0].mechanisms) > 1 else ""
    footer = [f"{spec.runs} runs per point; {users if spec.axis == 'eps' else 'n users drawn per run'}{split}",
              plotting.stopping_note(spec.stopping_rule)]
    fig.text(0.5, -0.01, "\n".join(footer + [f"NA: {note}" for note in notes]), ha="center", va="top", fontsize=7)
    plotting.save(fig, snakemake.output.pdf, snakemake.output.png)


jobs.run_or_exit(main, snakemake.log)
