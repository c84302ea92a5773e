"""Rule counts_adult: Figure 10 (section V-B). The Adult persons, shuffled and cut into groups of n, each group's count
of a binary target through GM, WM, EM and UM; one row per (target, n, mechanism, repetition) with the fraction of
groups whose noisy count differs from the true one. A repetition draws a new grouping (shared by the targets and
mechanisms) and new noise."""

import numpy as np

from privest import counts
from privest.sampling import rng_for
from privest_studies import files, jobs

MECHANISMS = ("GM", "WM", "EM", "UM")


def main() -> None:
    params = snakemake.params
    persons = files.load_table(snakemake.input.persons)
    bank = files.load_npz(snakemake.input.mechanisms)
    bits = {target: persons[target].to_numpy(dtype=np.int64) for target in params.targets}
    rows = []
    for n in params.n:
        for repetition in range(params.repetitions):
            order = rng_for(params.seed, "constrained_counts", "adult", n, repetition).permutation(len(persons))
            for target in params.targets:
                true = counts.group_counts(bits[target], n, order)
                for name in MECHANISMS:
                    P = bank[counts.mechanism_key(name, n, params.alpha)]
                    rng = rng_for(params.seed, "constrained_counts", "adult", n, repetition, target, name)
                    noisy = counts.sample_outputs(P, true, rng)
                    rows.append({"target": target, "n": n, "mechanism": name, "repetition": repetition,
                                 "groups": true.size, "wrong_fraction": counts.wrong_fraction(true, noisy)})
    rows = [{"alpha": params.alpha, **row} for row in rows]
    files.save_rows(rows, ["alpha", "target", "n", "mechanism", "repetition", "groups", "wrong_fraction"],
                 snakemake.output[0])


jobs.run_or_exit(main, snakemake.log)
