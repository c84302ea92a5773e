"""Rule fw_shokri: Shokri et al.'s optimal mechanism for one (alphabet, Q), solved once and cached with its record
(objective, known optimum, quality loss, solver and version, LP rounds)."""

import dataclasses

import numpy as np

from privest import alphabets, shokri
from privest_studies import files, jobs


def main() -> None:
    alphabet = alphabets.Alphabet.from_dict(files.load_json(snakemake.input.alphabet))
    solution = shokri.solve_shokri(alphabet.distances(), float(snakemake.wildcards.Q), **snakemake.params.options)
    record = {key: np.asarray(value) for key, value in dataclasses.asdict(solution).items()}
    files.save_npz(snakemake.output[0], **record)


jobs.run_or_exit(main, snakemake.log)
