"""Rule fw_shokri: Shokri et al.'s optimal mechanism for one (alphabet, Q), solved once and cached with its record
(objective, known optimum, quality loss, solver and version, LP rounds). The log holds a line per LP round and, while
the LP runs, a line every 30 s."""

import dataclasses

import numpy as np

from privest import alphabets, shokri
from privest_studies import files, jobs


def main() -> None:
    alphabet = alphabets.Alphabet.from_dict(files.load_json(snakemake.input.alphabet))
    progress = jobs.Progress(f"fw_shokri {snakemake.wildcards.alphabet} Q={snakemake.wildcards.Q}", None)
    with progress.unit(f"Shokri LP on {alphabet.k} secrets") as details:
        solution = shokri.solve_shokri(alphabet.distances(), float(snakemake.wildcards.Q), **snakemake.params.options)
        details.append(f"{solution.rounds} rounds, {solution.iterations} simplex iterations")
    record = {key: np.asarray(value) for key, value in dataclasses.asdict(solution).items()}
    files.save_npz(snakemake.output[0], **record)


jobs.run_or_exit(main, snakemake.log)
