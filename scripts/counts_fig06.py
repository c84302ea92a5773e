"""Rule counts_fig06: Figure 6, the property table computed by the checker, each cell beside the paper's entry."""

from privest.counts import MECHANISMS
from privest_studies import files, jobs, plotting

AGREE, DIFFER, UNPRINTED = "#d9f0d3", "#fdd49e", "#f0f0f0"


def main() -> None:
    table = files.load_table(snakemake.input[0], dtypes={f"{m} paper": str for m in MECHANISMS})
    grid = snakemake.params.grid
    cells, colours = [], []
    for _, row in table.iterrows():
        texts, shades = [], []
        for name in MECHANISMS:
            ours, paper = row[name], row[f"{name} paper"]
            paper = "" if paper != paper else paper  # NaN: the paper's table has no row for this property
            texts.append(f"{ours}   ({row[f'{name} (holds/points)']})" + (f"   paper: {paper}" if paper else ""))
            shades.append(UNPRINTED if not paper else AGREE if paper == ours else DIFFER)
        cells.append(texts)
        colours.append(shades)
    fig, ax = plotting.figure(figsize=(11.5, 0.3 * len(cells) + 0.6))
    ax.axis("off")
    shown = ax.table(cellText=cells, cellColours=colours, rowLabels=list(table["property"]), colLabels=MECHANISMS,
                     loc="center", cellLoc="center")
    shown.auto_set_font_size(False)
    shown.set_fontsize(8)
    shown.scale(1, 1.35)
    ax.set_title("Figure 6: properties of GM, WM, WM (CM), EM and UM, computed by the property checker")
    fig.text(0.5, 0.0, f"Y = holds at every n in {grid['n']} and α in {grid['alpha']}, N = at none, — = depends"
             " (holds/points in brackets). Green: as the paper prints it; orange: differs; grey: not in the paper's"
             " table. WM = L0 optimum under WH + RM (+ S, free), as the paper's figures build it; WM (CM) adds CM,"
             " as its section V-A says (Decisions, section 7).", ha="center", va="top", fontsize=7, wrap=True)
    plotting.save(fig, *snakemake.output)


jobs.run_or_exit(main, snakemake.log)
