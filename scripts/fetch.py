"""Rule fetch: one raw data file from its official URL, else the local mirror, verified against pinned checksums."""

from privest_studies import fetch, jobs

OPTIONAL = ("mirror", "timeout", "attempts", "backoff")


def main() -> None:
    """Fetch ``output.file`` and write its provenance to ``output.provenance``; params beyond sources are optional."""
    params = snakemake.params
    options = {key: params.get(key) for key in OPTIONAL if params.get(key) is not None}
    fetch.fetch(snakemake.output.file, params.sources["accepted"], urls=params.sources["urls"],
                provenance=snakemake.output.provenance, **options)


jobs.run_or_exit(main, snakemake.log)
