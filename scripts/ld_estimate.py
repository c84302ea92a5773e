"""Rule ld_estimate: one protocol of the large-domains study on one dataset (a sketch oracle's unbiased estimate and
candidate MLE, or a heavy-hitter protocol's list), every (eps, n, run), scored on the true top items."""

from privest_studies import files, jobs
from privest_studies import large_domains as ld


def main() -> None:
    paths = list(snakemake.input)  # Gowalla's cells; the Zipf is drawn in the job
    data = files.load_npz(paths[0]) if paths else {}
    rows = ld.run_job(snakemake.wildcards.dataset, snakemake.wildcards.protocol, data, snakemake.params.config)
    files.save_rows(rows, ld.RUN_COLUMNS, snakemake.output[0])


jobs.run_or_exit(main, snakemake.log)
