"""Time INV at large alphabets: the condition estimate (LAPACK gecon on the LU factors) against the solve, and the
full-SVD condition number (``numpy.linalg.cond``) that INV used before, where it finishes in reasonable time.

Run from the repository root: ``.venv/bin/python benchmarks/bench_inv.py [--sizes 500 2000 4000 10000]``. Prints one
table; each time is the best of ``--repeats`` calls. The mechanism is k-RR at eps = 1 (free-will eq. 1) with counts
drawn from ``sampling.rng_for(SEED, "bench_inv", k)``; one run per call, as ``estimators.inv`` takes it.
"""

import argparse
import os

import numpy as np
from timing import best_time, powers, seconds

from privest import estimators, mechanisms, sampling

SEED = 1
EPS = 1.0
SVD_LIMIT = 4000  # numpy.linalg.cond (a full SVD) took 116 s at k = 4000 and did not finish in 300 s at k = 10^4


def row(k: int, repeats: int) -> str:
    """One line of the table: INV, the solve alone and the old full-SVD check at alphabet size k."""
    A = mechanisms.krr(k, EPS)
    counts = sampling.rng_for(SEED, "bench_inv", k).integers(0, 1000, size=k).astype(np.float64)
    counts[0] += 1.0  # a positive total whatever the draw
    total, _ = best_time(lambda: estimators.inv(A, counts), repeats)
    solve, _ = best_time(lambda: np.linalg.solve(A.T, counts / counts.sum()), repeats)
    if k <= SVD_LIMIT:
        cond, _ = best_time(lambda: np.linalg.cond(A), 1)
        old = f"{seconds(cond)} | {(cond + solve) / total:.3g}x"
    else:
        old = "not run (over 300 s before) | "
    return f"| {powers(k)} | {seconds(total)} | {seconds(solve)} | {total / solve:.3g}x | {old} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[500, 2000, 4000, 10_000])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    threads = os.environ.get("OPENBLAS_NUM_THREADS", "unset")
    print(f"INV on k-RR (eps = {EPS}), best of {args.repeats}; OPENBLAS_NUM_THREADS={threads}")
    print("| k | inv | numpy.linalg.solve alone | inv / solve | numpy.linalg.cond (the old check) | old inv / inv |")
    print("|---:|---:|---:|---:|---:|---:|")
    for k in args.sizes:
        print(row(k, args.repeats), flush=True)


if __name__ == "__main__":
    main()
