"""Rule counts_fig10: Figure 10, Adult: the fraction of groups whose noisy count is wrong against the group size, one
panel per target, mean over repetitions with standard-error bars."""

import numpy as np

from privest_studies import files, jobs, plotting


def main() -> None:
    table = files.load_table(snakemake.input[0])
    targets = list(dict.fromkeys(table["target"]))
    reps = table["repetition"].nunique()
    fig, axes = plotting.figure(ncols=len(targets), figsize=(4.0 * len(targets), 3.6), sharey=True)
    for k, (ax, target) in enumerate(zip(np.atleast_1d(axes), targets, strict=True)):
        rows = table[table["target"] == target]
        for name in ("GM", "WM", "EM", "UM"):
            stats = rows[rows["mechanism"] == name].groupby("n")["wrong_fraction"].agg(["mean", "std", "count"])
            error = stats["std"].fillna(0) / np.sqrt(stats["count"])
            ax.errorbar(stats.index, stats["mean"], yerr=error, color=plotting.METHOD_COLOURS[name], marker="o",
                        ms=3, lw=1.4, capsize=2, label=name)
        n = np.array(sorted(rows["n"].unique()))
        ax.plot(n, n / (n + 1), color="0.6", lw=0.8, ls=":", label="n/(n+1)")
        ax.set_xlabel("group size n")
        ax.set_title(f"({chr(97 + k)}) {target}")
    np.atleast_1d(axes)[0].set_ylabel("fraction of groups with a wrong count (L0)")
    np.atleast_1d(axes)[0].legend()
    fig.suptitle(f"Figure 10: Adult, noisy counts of binary targets in random groups (α = {snakemake.params.alpha:g})",
                 y=1.02)
    fig.text(0.5, -0.03, f"{reps} repetitions per point (a new random grouping of the Adult persons and new noise"
             f" each); bars: ±1 standard error. young = age below {snakemake.params.young_below}. Dotted: UM's"
             " expected n/(n+1).", ha="center", va="top", fontsize=7)
    plotting.save(fig, *snakemake.output)


jobs.run_or_exit(main, snakemake.log)
