"""Rule fw_estimate: one estimator family on the reports of every n and run of a mechanism set.

Stores, per method of the family, the estimates (methods, n, runs, k), IBU's iterations and cap, and per n the reason
the family cannot run on the set ('' when it ran; its estimates are then NaN, the paper's "NA").
"""

import numpy as np

from privest_studies import files, free_will, jobs


def main() -> None:
    _, mechanisms = free_will.from_arrays(files.load_npz(snakemake.input.mechanisms))
    arrays = files.load_npz(snakemake.input.reports)
    n = arrays["n"]
    reports = free_will.reports_from_arrays(arrays, len(n), int(arrays["runs"]), len(mechanisms))
    family = snakemake.wildcards.estimator
    results = [free_will.estimate_family(family, mechanisms, point, snakemake.params.stopping) for point in reports]
    methods = free_will.FAMILY_METHODS[family]

    def stack(field: str) -> np.ndarray:
        """(methods, n, runs, ...) array of one field of the estimates."""
        return np.array([[[getattr(e, field) for e in r.estimates[m]] for r in results] for m in methods])

    files.save_npz(snakemake.output[0], methods=np.array(methods), n=n, theta=stack("theta"),
                iterations=stack("iterations"), capped=stack("capped"), notes=np.array([r.note for r in results]))


jobs.run_or_exit(main, snakemake.log)
