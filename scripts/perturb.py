"""Rule ibu_perturb: each run perturbs every user of the dataset once; stores the report counts of every run."""

import numpy as np

from privest import cli, io, perturb


def main() -> None:
    A = io.load_npz(snakemake.input.mechanism)["A"]
    secret_counts = np.bincount(io.load_npz(snakemake.input.data)["secrets"], minlength=A.shape[0])
    keys = snakemake.params.seed_keys
    counts = [perturb.sample_counts(A, secret_counts, perturb.rng_for(snakemake.params.seed, *keys, run))
              for run in range(snakemake.params.runs)]
    io.save_npz(snakemake.output[0], counts=np.array(counts, dtype=np.int64))


cli.run_or_exit(main, snakemake.log)
