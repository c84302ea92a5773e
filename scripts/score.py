"""Rule ibu_score: EMD of every estimate, and of the noisy reports where Z = X, to the original distribution."""

import pandas as pd

from privest import cli, io, registry


def main() -> None:
    alphabet = registry.Alphabet.from_dict(io.load_json(snakemake.input.alphabet))
    theta = io.load_npz(snakemake.input.data)["theta"]
    rows = []
    counts = io.load_npz(snakemake.input.reports)["counts"]
    if counts.shape[1] == alphabet.k:
        rows += [{"run": run, "method": "noisy", "emd": alphabet.emd(theta, c / c.sum()), "iterations": 0,
                  "capped": False} for run, c in enumerate(counts)]
    for path in snakemake.input.estimates:
        estimates = io.load_npz(path)
        for m, method in enumerate(estimates["methods"]):
            rows += [{"run": run, "method": str(method), "emd": alphabet.emd(theta, estimate),
                      "iterations": int(estimates["iterations"][m, run]), "capped": bool(estimates["capped"][m, run])}
                     for run, estimate in enumerate(estimates["theta"][m])]
    table = pd.DataFrame(rows).assign(**snakemake.params.labels)
    columns = [*snakemake.params.labels, "run", "method", "emd", "iterations", "capped"]
    io.save_table(table[columns], snakemake.output[0])


cli.run_or_exit(main, snakemake.log)
