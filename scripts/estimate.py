"""Rule ibu_estimate: one estimator family on the reports of every eps and run of an experiment (report counts of a
matrix mechanism, or grouped RAPPOR reports)."""

from privest import cli, io, registry


def main() -> None:
    mechanisms = io.load_npz(snakemake.input.mechanisms)
    reports = io.load_npz(snakemake.input.reports)
    family, stopping, runs = snakemake.wildcards.family, snakemake.params.stopping, snakemake.params.runs
    if "counts" in reports:
        points = [registry.estimate_family(family, A, c, stopping)
                  for A, c in zip(mechanisms["A"], reports["counts"], strict=True)]
    else:
        points = [registry.estimate_rappor_family(family, registry.rappor_runs(reports, i, runs), stopping)
                  for i in range(reports["eps"].size)]
    io.save_npz(snakemake.output[0], **registry.stack_estimates(points))


cli.run_or_exit(main, snakemake.log)
