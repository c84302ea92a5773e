"""Rule discretise_checkins: Gowalla check-ins -> the cell of each check-in in one region (secrets), theta."""

from privest_studies import datasets, fetch, files, jobs


def main() -> None:
    """Verify ``input.checkins``, then discretise it on region ``params.region`` (a name of ``params.regions``, or
    ``auto``)."""
    fetch.verify(snakemake.input.checkins, snakemake.params.accepted)
    cells, theta, alphabet, provenance = datasets.discretise_region(
        snakemake.input.checkins, snakemake.params.region, snakemake.params.regions
    )
    files.save_npz(snakemake.output.data, secrets=cells, theta=theta)
    files.save_json(snakemake.output.alphabet, alphabet)
    files.save_json(snakemake.output.provenance, provenance)


jobs.run_or_exit(main, snakemake.log)
