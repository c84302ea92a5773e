"""Rule svg_summary: the SW+EMS or geometric+IBU study's three lines per (column, eps), the paired differences
EMD(SW+EMS) - EMD(geometric+IBU) with their intervals, and the markdown page."""

from privest_studies import files, jobs
from privest_studies import sw_vs_geometric as svg


def main() -> None:
    config = snakemake.params.config
    scores = files.load_table(snakemake.input.scores, dtypes={"note": str, "mean_of": str})
    lines, pairs = svg.summary(scores, config), svg.paired(scores, config)
    files.save_rows(lines, svg.SUMMARY_COLUMNS, snakemake.output.csv)
    files.save_rows(pairs, svg.PAIRED_COLUMNS, snakemake.output.paired)
    files.write_text(snakemake.output.markdown, svg.summary_markdown(lines, pairs, config))


jobs.run_or_exit(main, snakemake.log)
