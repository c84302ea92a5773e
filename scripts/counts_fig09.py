"""Rule counts_fig09: Figure 9, the L0 scores of GM, WM, EM and UM against n, one panel per alpha, with GM's
weak-honesty threshold n = 2a/(1-a) marked and the LP with WH alone (dashed) for comparison."""

from privest_studies import files, jobs, plotting


def main() -> None:
    table = files.load_table(snakemake.input[0])
    alphas = sorted(table["alpha"].unique())
    for k, alpha in enumerate(alphas):
        rows = table[table["alpha"] == alpha]
        fig, ax = plotting.figure(figsize=(5.6, 3.8))
        for name in ("GM", "WM", "WM (CM)", "EM", "UM", "LP-WH"):
            curve = rows[rows["mechanism"] == name].sort_values("n")
            ax.plot(curve["n"], curve["score"], color=plotting.METHOD_COLOURS[name], marker="o", ms=3,
                    lw=1.0 if name in ("LP-WH", "WM (CM)") else 1.6, ls={"LP-WH": "--", "WM (CM)": ":"}.get(name, "-"),
                    label="LP with WH alone" if name == "LP-WH" else name)
        threshold = rows["threshold"].iloc[0]
        if threshold <= rows["n"].max():
            ax.axvline(threshold, color="0.3", lw=0.8, ls=":")
            low, high = ax.get_ylim()
            ax.text(threshold, low + 0.3 * (high - low), f" 2α/(1-α) = {threshold:.3g}", va="bottom", fontsize=7)
            where = "marked"
        else:
            where = "beyond the range shown"
        ax.set_xlabel("n (group size)")
        ax.set_ylabel("L0 score (rescaled: UM = 1)")
        ax.set_title(f"Figure 9({chr(97 + k)}): scores against n, α = {alpha:.4g}")
        ax.legend(fontsize=7, loc="center right")
        fig.text(0.5, -0.02, f"GM is weakly honest from n = 2α/(1-α) = {threshold:.4g} ({where}). WM = L0 optimum"
                 " under WH + RM (the paper's figures), WM (CM) adds CM (its section V-A, dotted; Decisions,"
                 " section 7); the dashed LP asks for WH alone.", ha="center", va="top", fontsize=7)
        plotting.save(fig, *snakemake.output[2 * k:2 * k + 2])


jobs.run_or_exit(main, snakemake.log)
