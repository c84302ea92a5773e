"""Rule counts_fig08: Figure 8, the L0 optimum of the nine property combinations with WH, with GM and EM, (a) against
n at one alpha, (b) against alpha at one n."""

import numpy as np

from privest import counts
from privest_studies import files, jobs, plotting

STYLES = {"WH": ("tab:orange", "-", "o"), "WH+RH": ("tab:orange", "--", "^"), "WH+RM": ("tab:orange", ":", "v"),
          "WH+CH": ("tab:purple", "-", "o"), "WH+CM": ("tab:purple", "--", "s"), "WH+RH+CH": ("tab:purple", ":", "^"),
          "WH+RH+CM": ("tab:blue", "-", "v"), "WH+RM+CH": ("tab:blue", "--", "D"),
          "WH+RM+CM": ("tab:blue", ":", "x")}


def main() -> None:
    table = files.load_table(snakemake.input[0])
    panel = snakemake.wildcards.figure[-1]
    x = "n" if panel == "a" else "alpha"
    fixed = "alpha" if panel == "a" else "n"
    value = table[fixed].iloc[0]
    fig, (ax, below) = plotting.figure(nrows=2, figsize=(6.4, 6.0), sharex=True, height_ratios=[3, 2])
    gm = table[table["mechanism"] == "GM"].set_index(x)["score"]
    for name, (colour, line, marker) in STYLES.items():
        rows = table[table["mechanism"] == name].sort_values(x)
        for axis, y in ((ax, rows["score"]), (below, rows["score"].to_numpy() - gm[rows[x]].to_numpy())):
            axis.plot(rows[x], y, color=colour, ls=line, marker=marker, ms=3.5, lw=1.2, label=name)
    for name in ("GM", "EM"):
        rows = table[table["mechanism"] == name].sort_values(x)
        for axis, y in ((ax, rows["score"]), (below, rows["score"].to_numpy() - gm[rows[x]].to_numpy())):
            axis.plot(rows[x], y, color=plotting.METHOD_COLOURS[name], lw=2.2, alpha=0.5, label=name, zorder=0)
    if panel == "a":
        threshold = counts.gm_weak_honesty_threshold(value)
        for axis in (ax, below):
            axis.axvline(threshold, color="0.3", lw=0.8, ls="--")
        low, high = below.get_ylim()
        below.text(threshold, low + 0.55 * (high - low), f" 2α/(1-α) = {threshold:.2f}", fontsize=7)
        below.set_xlabel("n (group size)")
        title = f"Figure 8(a): the nine combinations with WH against n, α = {value:g}"
    else:
        below.set_xlabel("α = e^-ε")
        title = f"Figure 8(b): the nine combinations with WH against α, n = {value:g}"
    ax.set_ylabel("L0 score (rescaled: UM = 1)")
    below.set_ylabel("score − GM's 2α/(1+α)")
    ax.set_title(title)
    ax.legend(ncol=2, fontsize=7)
    groups = table[~table["mechanism"].isin(["GM", "EM"])].groupby([x, table["mechanism"].str.contains("C")])["score"]
    spread = float(np.max(groups.max() - groups.min()))
    fig.text(0.5, 0.0, "Each curve: the LP (HiGHS, dual simplex) minimising L0 under BasicDP + the named properties."
             " Row-only combinations (orange) coincide, and so do those with a column property (purple, blue): largest"
             f" spread within a group {spread:.1e}.", ha="center", va="top", fontsize=7, wrap=True)
    plotting.save(fig, *snakemake.output)


jobs.run_or_exit(main, snakemake.log)
