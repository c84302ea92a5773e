"""Rule ibu_perturb: the reports of every run of an experiment, for every eps of its grid.

Users: the dataset's own (params.users None: each run perturbs every record once) or params.users users drawn i.i.d.
from the dataset's theta in each run (their secret counts are stored, as the original distribution of that run).
Reports: the counts over the columns of a matrix mechanism, or the grouped bit vectors of RAPPOR (no matrix in
mechanisms.npz). The generator of (eps, run) derives from the seed, the experiment, eps and run only, so adding an eps
to the grid or runs to the scale leaves every existing report unchanged.
"""

import numpy as np

from privest import sampling
from privest_studies import experiment, files, jobs


def main() -> None:
    mechanisms, data = files.load_npz(snakemake.input.mechanisms), files.load_npz(snakemake.input.data)
    eps, k = mechanisms["eps"], int(mechanisms["k"])
    users, runs = snakemake.params.users, snakemake.params.runs
    seed, keys = snakemake.params.seed, snakemake.params.seed_keys
    own = None if users else np.bincount(data["secrets"], minlength=k)
    secret_counts = np.empty((eps.size, runs, k), dtype=np.int64)
    reports = [[None] * runs for _ in eps]
    for i, e in enumerate(eps):
        mechanism = mechanisms["A"][i] if "A" in mechanisms else sampling.Rappor(k, float(e))
        for run in range(runs):
            rng = sampling.rng_for(seed, *keys, repr(float(e)), run)
            secret_counts[i, run] = own if own is not None else sampling.split_users(users, 1, data["theta"], rng)[0]
            (reports[i][run],) = sampling.population([mechanism], secret_counts[i, run][None], rng)
    arrays = {"eps": eps} | ({"secret_counts": secret_counts} if users else {})
    if "A" in mechanisms:
        arrays["counts"] = np.array(reports, dtype=np.int64)
    else:
        arrays |= experiment.rappor_arrays(reports)
    files.save_npz(snakemake.output[0], **arrays)


jobs.run_or_exit(main, snakemake.log)
