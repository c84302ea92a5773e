"""Rule ibu_score: EMD of every estimate, and of the noisy reports where Z = X, to the original distribution: the
dataset's theta, or each run's drawn users where the users are drawn from a synthetic theta."""

import numpy as np

from privest import alphabets
from privest_studies import files, jobs


def main() -> None:
    alphabet = alphabets.Alphabet.from_dict(files.load_json(snakemake.input.alphabet))
    reports = files.load_npz(snakemake.input.reports)
    eps = reports["eps"]
    runs = snakemake.params.runs
    if "secret_counts" in reports:
        original = reports["secret_counts"] / reports["secret_counts"].sum(axis=-1, keepdims=True)
    else:
        original = np.broadcast_to(files.load_npz(snakemake.input.data)["theta"], (eps.size, runs, alphabet.k))
    rows = []
    if "counts" in reports and reports["counts"].shape[-1] == alphabet.k:
        rows += [{"eps": e, "run": run, "method": "noisy", "emd": alphabet.emd(original[i, run], c / c.sum()),
                  "iterations": 0, "capped": False}
                 for i, (e, by_run) in enumerate(zip(eps, reports["counts"], strict=True))
                 for run, c in enumerate(by_run)]
    for path in snakemake.input.estimates:
        estimates = files.load_npz(path)
        for m, method in enumerate(estimates["methods"]):
            rows += [{"eps": e, "run": run, "method": str(method), "emd": alphabet.emd(original[i, run], estimate),
                      "iterations": int(estimates["iterations"][m, i, run]),
                      "capped": bool(estimates["capped"][m, i, run])}
                     for i, e in enumerate(eps) for run, estimate in enumerate(estimates["theta"][m, i])]
    rows = [snakemake.params.labels | row for row in sorted(rows, key=lambda r: (r["eps"], r["method"], r["run"]))]
    columns = [*snakemake.params.labels, "eps", "run", "method", "emd", "iterations", "capped"]
    files.save_rows(rows, columns, snakemake.output[0])


jobs.run_or_exit(main, snakemake.log)
