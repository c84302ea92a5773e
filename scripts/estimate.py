"""Rule ibu_estimate: IBU on the reports of every eps and run of an experiment (report counts of a matrix
mechanism, or grouped RAPPOR reports)."""

from privest import cli, io, registry


def main() -> None:
    estimates = registry.estimate_experiment(
        snakemake.wildcards.family, io.load_npz(snakemake.input.mechanisms), io.load_npz(snakemake.input.reports),
        snakemake.params.stopping, snakemake.params.runs,
    )
    io.save_npz(snakemake.output[0], **estimates)


cli.run_or_exit(main, snakemake.log)
