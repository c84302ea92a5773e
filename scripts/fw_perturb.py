"""Rule fw_perturb: for every n and run, n users drawn i.i.d. from theta, split equally over the set's mechanisms,
each reporting once; stores the report counts (or RAPPOR groups) that every estimator family then shares.

The generator of (n, run) derives from the seed, the set, n and run only, so adding an n or runs to the scale leaves
every existing report unchanged.
"""

import numpy as np

from privest import sampling
from privest_studies import files, free_will, jobs


def main() -> None:
    _, mechanisms = free_will.from_arrays(files.load_npz(snakemake.input.mechanisms))
    theta = files.load_npz(snakemake.input.theta)["theta"]
    seed, keys = snakemake.params.seed, snakemake.params.seed_keys
    reports, secrets = [], []
    for n in snakemake.params.n:
        by_run, secrets_by_run = [], []
        for run in range(snakemake.params.runs):
            rng = sampling.rng_for(seed, *keys, int(n), run)
            secret_counts = sampling.split_users(int(n), len(mechanisms), theta, rng)
            by_run.append(sampling.population(mechanisms, secret_counts, rng))
            secrets_by_run.append(secret_counts)
        reports.append(by_run)
        secrets.append(secrets_by_run)
    files.save_npz(snakemake.output[0], n=np.array(snakemake.params.n, dtype=np.int64),
                runs=np.int64(snakemake.params.runs), secret_counts=np.array(secrets, dtype=np.int64),
                **free_will.reports_to_arrays(reports))


jobs.run_or_exit(main, snakemake.log)
