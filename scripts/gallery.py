"""Rule gallery: small copies of a few key figures for the README (docs/gallery/)."""

from privest_studies import jobs, plotting


def main() -> None:
    for source, target in zip(snakemake.input, snakemake.output, strict=True):
        plotting.thumbnail(source, target, snakemake.params.width)


jobs.run_or_exit(main, snakemake.log)
