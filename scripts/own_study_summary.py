"""Rule own_study_summary: mean and s.d. of the error (EMD, or total variation on categories) over runs per
experiment, point and method, each method's rank at its point and the best; and the estimates the iteration cap
stopped (capped.csv, its lines in the job's log; the run's end lists them on the console)."""

import csv
import logging

from privest_studies import files, jobs, own_study


def main() -> None:
    with open(snakemake.input[0], newline="") as f:
        rows = list(csv.DictReader(f))
    summary = own_study.summary(rows, snakemake.params.figures)
    files.save_rows(summary, own_study.summary_columns(own_study.error_of(list(rows[0]))), snakemake.output.summary)
    capped = own_study.capped(rows)
    files.save_rows(capped, own_study.CAPPED_COLUMNS, snakemake.output.capped)
    for line in own_study.capped_lines(snakemake.wildcards.own_study, capped):
        logging.getLogger("privest_studies.own_study").info(line)


jobs.run_or_exit(main, snakemake.log)
