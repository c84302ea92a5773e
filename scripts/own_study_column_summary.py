"""Rule own_study_column_summary: the multi-column experiments of one's own study summarised
(privest_studies.own_columns.summary): per experiment, protocol, eps, column and method the mean error over runs with
its interval, as a table (CSV) and for people (markdown)."""

import pandas as pd

from privest_studies import files, jobs, own_columns


def main() -> None:
    rows = [row for path in snakemake.input
            for row in pd.read_csv(path, keep_default_na=False, na_values=[""]).to_dict("records")]
    lines = own_columns.summary(rows, float(snakemake.params.level))
    files.save_rows(lines, own_columns.SUMMARY_COLUMNS, snakemake.output.csv)
    files.write_text(snakemake.output.markdown, own_columns.summary_markdown(lines, snakemake.wildcards.own_study))


jobs.run_or_exit(main, snakemake.log)
