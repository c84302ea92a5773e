"""Rule ec_estimate: every estimator on every (eps, run) of one protocol on one dataset of the estimator-comparison
study, scored against theta: the tidy table of their scores (rule ec_summary gathers every protocol's and dataset's)."""

from privest_studies import estimator_comparison, files, jobs


def main() -> None:
    theta = files.load_npz(snakemake.input.data)["theta"]
    ordinal = files.load_json(snakemake.input.alphabet)["kind"] != "categorical"
    rows = estimator_comparison.run_protocol(snakemake.wildcards.dataset, snakemake.wildcards.protocol, theta,
                                             ordinal, snakemake.params.config)
    files.save_rows(rows, estimator_comparison.COLUMNS, snakemake.output[0])


jobs.run_or_exit(main, snakemake.log)
