"""Rule fw_shokri: Shokri et al.'s optimal mechanism for one (alphabet, Q), solved once and cached with its record
(objective, known optimum, quality loss, solver and version, LP rounds)."""

import dataclasses

import numpy as np

from privest import cli, io, registry, shokri


def main() -> None:
    alphabet = registry.Alphabet.from_dict(io.load_json(snakemake.input.alphabet))
    solution = shokri.solve_shokri(alphabet.distances(), float(snakemake.wildcards.Q), **snakemake.params.options)
    record = {key: np.asarray(value) for key, value in dataclasses.asdict(solution).items()}
    io.save_npz(snakemake.output[0], **record)


cli.run_or_exit(main, snakemake.log)
