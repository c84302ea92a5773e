"""Rule ibu_perturb: each run perturbs every user of the dataset once, for every eps; stores the report counts.

The generator of (eps, run) derives from the seed, the experiment, eps and run only, so adding an eps to the grid or
runs to the scale leaves every existing report unchanged.
"""

import numpy as np

from privest import cli, io, perturb


def main() -> None:
    mechanisms = io.load_npz(snakemake.input.mechanisms)
    secret_counts = np.bincount(io.load_npz(snakemake.input.data)["secrets"], minlength=mechanisms["A"].shape[1])
    seed, keys = snakemake.params.seed, snakemake.params.seed_keys
    counts = [
        [perturb.sample_counts(A, secret_counts, perturb.rng_for(seed, *keys, repr(float(eps)), run))
         for run in range(snakemake.params.runs)]
        for A, eps in zip(mechanisms["A"], mechanisms["eps"], strict=True)
    ]
    io.save_npz(snakemake.output[0], counts=np.array(counts, dtype=np.int64), eps=mechanisms["eps"])


cli.run_or_exit(main, snakemake.log)
