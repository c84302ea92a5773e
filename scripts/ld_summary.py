"""Rule ld_summary: every run of the large-domains study in one table, the means per (dataset, protocol, method, eps,
n) and the markdown page."""

from privest_studies import files, jobs
from privest_studies import large_domains as ld


def main() -> None:
    rows = []
    for path in snakemake.input.runs:
        rows += files.load_table(path).to_dict("records")
    files.save_rows(rows, ld.RUN_COLUMNS, snakemake.output.runs)
    lines = ld.summary(rows)
    files.save_rows(lines, ld.SUMMARY_COLUMNS, snakemake.output.csv)
    files.write_text(snakemake.output.markdown, ld.summary_markdown(lines, snakemake.params.config))


jobs.run_or_exit(main, snakemake.log)
