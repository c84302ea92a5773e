"""Rule discretise_adult: Adult persons -> per-person table (age, income, gender, young), the ages as secrets, theta."""

from privest import cli, datasets, io


def main() -> None:
    """Read ``input.data`` and ``input.test``; write ``output.persons``, ``ages``, ``alphabet`` and ``provenance``."""
    table, theta, alphabet, provenance = datasets.discretise_adult(
        [snakemake.input.data, snakemake.input.test], k=snakemake.params.k, young_below=snakemake.params.young_below
    )
    io.save_table(table, snakemake.output.persons)
    io.save_npz(snakemake.output.ages, secrets=table["age"].to_numpy(), theta=theta)
    io.save_json(snakemake.output.alphabet, alphabet)
    io.save_json(snakemake.output.provenance, provenance)


cli.run_or_exit(main, snakemake.log)
