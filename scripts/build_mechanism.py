"""Rule ibu_mechanism: the matrices A[x, z] of one mechanism on the experiment's alphabet, one per eps."""

import numpy as np

from privest import cli, io, registry


def main() -> None:
    alphabet = registry.Alphabet.from_dict(io.load_json(snakemake.input.alphabet))
    eps = np.array([float(e) for e in snakemake.params.eps])
    A = np.stack([registry.mechanism(snakemake.params.kind, alphabet, e) for e in eps])
    io.save_npz(snakemake.output[0], A=A, eps=eps)


cli.run_or_exit(main, snakemake.log)
