"""The constants of privest_studies/cost.py: seconds per cell and iteration of each kind of IBU/GIBU iteration.

Run from the repository root: ``.venv/bin/python benchmarks/bench_cost.py``. Each problem runs a fixed number of
iterations (delta 1e-300: no run stops early) and prints the seconds per cell-iteration, the cells as cost.py counts
them (k x k per run of a matrix, distinct bit vectors x k for RAPPOR, set members for a protocol). Takes about 10 s.
"""

import time

import numpy as np

from privest import estimators, protocols
from privest.sampling import Rappor, population, rng_for


def timed(fn, *args, **options):
    """Seconds of one call fn(*args, **options), and its result."""
    start = time.perf_counter()
    result = fn(*args, **options)
    return time.perf_counter() - start, result


def main() -> None:
    rng = rng_for(2026, "bench_cost")
    print("| problem | iterations | seconds | seconds per cell-iteration |\n|---|---|---|---|")
    for k, runs, cap in ((100, 20, 2000), (384, 20, 300)):
        A = np.full((k, k), 0.5 / (k - 1))
        np.fill_diagonal(A, 0.5)
        counts = rng.multinomial(10_000, A[0], size=runs).astype(np.float64)
        seconds, results = timed(estimators.ibu_runs, A, counts, delta=1e-300, max_iter=cap)
        done = sum(r.iterations for r in results)
        print(f"| matrix (k-RR), k = {k}, {runs} runs batched | {done} | {seconds:.2f} | "
              f"{seconds / (done * k * k):.2e} |")
    for k, n, cap in ((100, 48_842, 50), (64, 10_000, 200)):
        reports = population([Rappor(k, 1.0)], rng.multinomial(n, np.full(k, 1 / k))[None], rng)[0]
        group = estimators.rappor_group(reports)
        seconds, result = timed(estimators.gibu, [group], delta=1e-300, max_iter=cap)
        cells = group.counts.size * k
        print(f"| RAPPOR, k = {k}, {n} users ({group.counts.size} distinct) | {result.iterations} | {seconds:.2f} | "
              f"{seconds / (result.iterations * cells):.2e} |")
    for name, k, n, cap in (("sue", 1024, 10_000, 100), ("olh", 1024, 10_000, 100), ("grr", 1024, 100_000, 300)):
        protocol = protocols.by_name(name, k, 1.0)
        group = protocol.group(protocol.sample(rng.integers(0, k, n), rng))
        seconds, result = timed(estimators.gibu, [group], delta=1e-300, max_iter=cap,
                                 accelerate="squarem")
        # a SetGroup's members are its CSR indices; a BitGroup's (SUE) the bits set in its packed rows
        members = group.indices.size if hasattr(group, "indices") else int(np.unpackbits(group.bits, axis=1).sum())
        print(f"| {name.upper()} (SQUAREM), k = {k}, {n} users ({members} members) | {result.iterations} | "
              f"{seconds:.2f} | {seconds / (result.iterations * members):.2e} |")


if __name__ == "__main__":
    main()
