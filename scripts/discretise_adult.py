"""Rule discretise_adult: Adult persons -> per-person table (age, income, gender, young), the ages as secrets, theta."""

from privest_studies import datasets, fetch, files, jobs


def main() -> None:
    """Verify and read ``input.data`` and ``input.test``; write ``output.persons``, ``ages``, ``alphabet`` and
    ``provenance``."""
    for key in ("data", "test"):
        fetch.verify(getattr(snakemake.input, key), snakemake.params.accepted[key])
    table, theta, alphabet, provenance = datasets.discretise_adult(
        [snakemake.input.data, snakemake.input.test], k=snakemake.params.k, young_below=snakemake.params.young_below
    )
    files.save_table(table, snakemake.output.persons)
    files.save_npz(snakemake.output.ages, secrets=table["age"].to_numpy(), theta=theta)
    files.save_json(snakemake.output.alphabet, alphabet)
    files.save_json(snakemake.output.provenance, provenance)


jobs.run_or_exit(main, snakemake.log)
