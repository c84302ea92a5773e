"""Rule ibu_mechanism: the matrix A[x, z] of one mechanism on the experiment's alphabet at one eps."""

from privest import cli, io, registry


def main() -> None:
    alphabet = registry.Alphabet.from_dict(io.load_json(snakemake.input.alphabet))
    A = registry.mechanism(snakemake.params.kind, alphabet, float(snakemake.wildcards.eps))
    io.save_npz(snakemake.output[0], A=A)


cli.run_or_exit(main, snakemake.log)
