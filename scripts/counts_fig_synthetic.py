"""Rule counts_fig_synthetic: Figures 11-13 on synthetic Binomial(n, p) groups, a grid of panels each: Figure 11 the
fraction of groups more than d away against p (rows alpha, columns n), Figure 12 the same against d (rows p,
columns alpha), Figure 13 the RMSE against n (rows alpha, columns p). Mean over repetitions, bars ±1 s.d."""


from privest_studies import files, jobs, plotting

# figure -> (panel rows, panel columns, x axis, x label, y label, title)
LAYOUT = {
    "fig11": ("alpha", "n", "p", "p (probability that a bit is 1)", "fraction of groups more than d away",
              "Figure 11: L0,d error against the input distribution"),
    "fig12": ("p", "alpha", "d", "d", "fraction of groups more than d away", "Figure 12: L0,d error against d"),
    "fig13": ("alpha", "p", "n", "group size n", "RMSE of the noisy count", "Figure 13: RMSE against the group size"),
}
SYMBOL = {"alpha": "α", "n": "n", "p": "p"}


def main() -> None:
    figure = snakemake.wildcards.synthetic
    table = files.load_table(snakemake.input[0])
    table["d"] = table["metric"].str.extract(r"L0,(\d+)", expand=False).astype(float)
    row_key, col_key, x, xlabel, ylabel, title = LAYOUT[figure]
    rows, cols = list(dict.fromkeys(table[row_key])), list(dict.fromkeys(table[col_key]))
    fig, axes = plotting.figure(nrows=len(rows), ncols=len(cols), figsize=(3.3 * len(cols), 2.7 * len(rows)),
                                squeeze=False)
    for r, row_value in enumerate(rows):
        for c, col_value in enumerate(cols):
            ax = axes[r, c]
            panel = table[(table[row_key] == row_value) & (table[col_key] == col_value)]
            for name in ("GM", "WM", "EM", "UM"):
                stats = panel[panel["mechanism"] == name].groupby(x)["value"].agg(["mean", "std"])
                ax.errorbar(stats.index, stats["mean"], yerr=stats["std"].fillna(0), marker="o", ms=2.5, lw=1.3,
                            capsize=1.5, color=plotting.METHOD_COLOURS[name], label=name)
            label = f"{SYMBOL[row_key]} = {row_value:g}, {SYMBOL[col_key]} = {col_value:g}"
            if figure == "fig11":
                label += f", d = {int(panel['d'].iloc[0])}"
            ax.set_title(label, fontsize=8)
            if r == len(rows) - 1:
                ax.set_xlabel(xlabel)
            if c == 0:
                ax.set_ylabel(ylabel, fontsize=7)
    fig.legend(*axes[0, 0].get_legend_handles_labels(), loc="upper center", ncol=4, bbox_to_anchor=(0.5, 1.0))
    fig.suptitle(title, y=1.05)
    fig.text(0.5, -0.01, f"A population of {snakemake.params.population:,} Bernoulli(p) bits cut into groups of n"
             " (Binomial(n, p) counts);"
             f" {snakemake.params.repetitions} repetitions per point (new population and noise); bars ±1 s.d."
             " Mechanisms designed for L0.", ha="center", va="top", fontsize=7)
    fig.tight_layout()
    plotting.save(fig, *snakemake.output)


jobs.run_or_exit(main, snakemake.log)
