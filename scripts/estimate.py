"""Rule ibu_estimate: IBU on the reports of every eps and run of an experiment (report counts of a matrix
mechanism, or grouped RAPPOR reports)."""

from privest_studies import experiment, files, jobs


def main() -> None:
    estimates = experiment.estimate_experiment(
        snakemake.wildcards.family, files.load_npz(snakemake.input.mechanisms), files.load_npz(snakemake.input.reports),
        snakemake.params.stopping, snakemake.params.runs,
    )
    files.save_npz(snakemake.output[0], **estimates)


jobs.run_or_exit(main, snakemake.log)
