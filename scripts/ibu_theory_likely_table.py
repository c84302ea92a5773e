"""Rule ibu_theory_likely_table: section 8's table from its cases, as one CSV and as markdown."""

from privest_studies import files, ibu_consistency, jobs


def main() -> None:
    files.concat_tables(list(snakemake.input), snakemake.output.csv)
    rows = files.load_table(snakemake.output.csv).to_dict("records")
    files.write_text(snakemake.output.md, ibu_consistency.likely_table_markdown(rows))


jobs.run_or_exit(main, snakemake.log)
