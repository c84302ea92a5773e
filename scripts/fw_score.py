"""Rule fw_score: EMD (with the alphabet's ground distance) and squared l2 distance of every estimate of a mechanism
set to theta, one tidy row per (n, run, method). Raw estimates (before post-processing) get l2^2 only; a method that
cannot run gets NaN and its reason."""

import numpy as np

from privest import alphabets
from privest_studies import files, free_will, jobs

COLUMNS = ["n", "run", "method", "emd", "l2sq", "iterations", "capped", "note"]


def main() -> None:
    alphabet = alphabets.Alphabet.from_dict(files.load_json(snakemake.input.alphabet))
    theta = files.load_npz(snakemake.input.theta)["theta"]
    rows = []
    for path in snakemake.input.estimates:
        estimates = files.load_npz(path)
        for m, method in enumerate(map(str, estimates["methods"])):
            for i, n in enumerate(estimates["n"]):
                for run, estimate in enumerate(estimates["theta"][m, i]):
                    ran = bool(np.all(np.isfinite(estimate)))
                    distribution = ran and not method.endswith(free_will.RAW_SUFFIX)
                    rows.append({"n": int(n), "run": run, "method": method,
                                 "emd": alphabet.emd(theta, estimate) if distribution else float("nan"),
                                 "l2sq": float(np.sum((estimate - theta) ** 2)) if ran else float("nan"),
                                 "iterations": int(estimates["iterations"][m, i, run]),
                                 "capped": bool(estimates["capped"][m, i, run]),
                                 "note": "" if ran else f"NA: {estimates['notes'][i]}"})
    rows = [snakemake.params.labels | row for row in sorted(rows, key=lambda r: (r["n"], r["method"], r["run"]))]
    files.save_rows(rows, [*snakemake.params.labels, *COLUMNS], snakemake.output[0])


jobs.run_or_exit(main, snakemake.log)
