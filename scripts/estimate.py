"""Rule ibu_estimate: one estimator family on the report counts of every eps and run of an experiment."""

import numpy as np

from privest import cli, io, registry


def main() -> None:
    mechanisms = io.load_npz(snakemake.input.mechanisms)["A"]
    counts = io.load_npz(snakemake.input.reports)["counts"]
    family, stopping = snakemake.wildcards.family, snakemake.params.stopping
    points = [registry.estimate_family(family, A, c, stopping) for A, c in zip(mechanisms, counts, strict=True)]
    methods = list(points[0])

    def stack(field: str) -> np.ndarray:
        """(methods, eps, runs, ...) array of one field of the estimates."""
        return np.array([[[getattr(e, field) for e in point[m]] for point in points] for m in methods])

    io.save_npz(snakemake.output[0], methods=np.array(methods), theta=stack("theta"),
                iterations=stack("iterations"), capped=stack("capped"))


cli.run_or_exit(main, snakemake.log)
