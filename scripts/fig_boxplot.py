"""Rule ibu_boxplot: boxplots over runs of each method's EMD against eps for one experiment (Figure 9)."""

from privest import cli, io, plotting

TITLES = {
    "ages_geometric": "age data sanitised by the linear geometric mechanism",
}


def main() -> None:
    experiment = snakemake.params.experiment
    table = io.load_table(snakemake.input[0])
    table = table[table["experiment"] == experiment]
    fig, ax = plotting.figure(figsize=(6.4, 3.6))
    plotting.boxplots_by_eps(ax, table, ["INV-N", "INV-P", "IBU"])
    figure = snakemake.wildcards.figure
    ax.set_title(f"Figure {int(figure[3:5])}({figure[5:]}): {TITLES.get(experiment, experiment)}")
    capped = table.loc[table["method"] == "IBU", "capped"].mean()
    fig.text(0.5, -0.02, f"{snakemake.params.runs} runs per ε; {plotting.stopping_note(snakemake.params.stopping)}"
             f" (cap hit in {capped:.0%} of IBU runs)", ha="center", va="top", fontsize=7)
    plotting.save(fig, *snakemake.output)


cli.run_or_exit(main, snakemake.log)
