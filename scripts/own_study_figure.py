"""Rule own_study_figure: one figure of one's own study, the error to the original distribution over the runs of each
point: boxplots against eps, the mean +- 1 s.d. against the number of users n, or, for a comparison, the mean +- 1
s.d. against eps with one colour per mechanism and one line style per estimator. The error is the EMD in the
alphabet's unit, or the total variation distance on categories."""

from privest_studies import experiment, files, jobs, plotting


def main() -> None:
    specs = [experiment.Experiment.from_dict(spec) for spec in snakemake.params.experiments]
    alphabet = files.load_json(snakemake.input.alphabet)
    scores = files.load_table(snakemake.input.scores, dtypes={"note": str})
    tables = {spec.name: scores[scores["experiment"] == spec.name].rename(columns={"point": spec.axis})
              for spec in specs}
    shown = next(iter(tables.values()))
    methods = [m for m in dict.fromkeys(shown["method"]) if not m.endswith(experiment.RAW_SUFFIX) and m != "noisy"]
    fig, ax = plotting.figure(figsize=(6.4, 4.2))
    first = specs[0]
    if len(specs) > 1:
        by_kind = {experiment.KIND_NAMES[spec.members[0].kind]
                   + (f" ({spec.members[0].hashes} hashes)" if spec.members[0].hashes else ""): tables[spec.name]
                   for spec in specs}
        notes = plotting.error_by_eps_per_mechanism(ax, by_kind, methods)
        log_x = plotting.log_scale_if_wide(ax, shown["eps"], "x")
        ax.set_xlabel(plotting.eps_label(alphabet, [spec.members[0].kind for spec in specs], log_x))
        plotting.value_ticks(ax, shown["eps"].unique())
        mechanisms = " vs ".join(by_kind)
    elif first.axis == "eps":
        ran = [m for m in methods if shown.loc[shown["method"] == m, "emd"].notna().any()]
        plotting.boxplots_by_eps(ax, shown, ran)
        ax.set_xlabel(plotting.eps_label(alphabet, [m.kind for m in first.members]))
        notes = [f"{m}: {shown.loc[shown['method'] == m, 'note'].dropna().iloc[0]}" for m in methods if m not in ran]
        mechanisms = " + ".join(experiment.KIND_NAMES[k] for k in dict.fromkeys(m.kind for m in first.members))
        mechanisms += " at each ε" + (", users split equally" if len(first.points[0].mechanisms) > 1 else "")
    else:
        notes = plotting.emd_bands_by_n(ax, shown, methods)
        ax.set_xscale("log")
        plotting.value_ticks(ax, shown["n"].unique(), integers=True)
        ax.set_xlabel("number of users n (log scale)")
        ax.legend(loc="best")
        mechanisms = experiment.describe(first.members) + ", users split equally"
    values = [t.loc[t["method"].isin(methods), "emd"] for t in tables.values()]
    log_y = plotting.log_scale_if_wide(ax, [v for column in values for v in column])
    ax.set_ylabel(plotting.error_label(alphabet) + (" (log scale)" if log_y else ""))
    title = f"{first.study}: {snakemake.wildcards.own_figure}"
    ax.set_title(f"{title}\n{mechanisms}; {plotting.alphabet_label(alphabet)}", fontsize=9)
    users = ("n users drawn per run" if first.axis == "n" else "every record once per run"
             if first.points[0].users is None else f"{first.points[0].users:,} users drawn per run")
    same = "; every mechanism on the same users" if len(specs) > 1 else ""
    footer = [f"{first.runs} runs per point; {users}{same}", plotting.stopping_note(first.stopping_rule)]
    notes = [f"NA: {note.replace(': NA: ', ': ')}" for note in notes]
    fig.text(0.5, -0.01, "\n".join(footer + notes), ha="center", va="top", fontsize=7)
    plotting.save(fig, snakemake.output.pdf, snakemake.output.png)


jobs.run_or_exit(main, snakemake.log)
