"""Rule own_study_summary: mean and s.d. of the EMD over runs per experiment, point and method."""

import csv

from privest_studies import files, jobs, own_study


def main() -> None:
    with open(snakemake.input[0], newline="") as f:
        rows = list(csv.DictReader(f))
    files.save_rows(own_study.summary(rows), own_study.SUMMARY_COLUMNS, snakemake.output[0])


jobs.run_or_exit(main, snakemake.log)
