"""Rule ibu_estimate: one estimator family on every run's report counts."""

import numpy as np

from privest import cli, io, registry


def main() -> None:
    A = io.load_npz(snakemake.input.mechanism)["A"]
    counts = io.load_npz(snakemake.input.reports)["counts"]
    runs = [registry.estimate_family(snakemake.wildcards.family, A, c, snakemake.params.stopping) for c in counts]
    methods = list(runs[0])
    io.save_npz(
        snakemake.output[0],
        methods=np.array(methods),
        theta=np.array([[run[m].theta for run in runs] for m in methods]),
        iterations=np.array([[run[m].iterations for run in runs] for m in methods]),
        capped=np.array([[run[m].capped for run in runs] for m in methods]),
    )


cli.run_or_exit(main, snakemake.log)
