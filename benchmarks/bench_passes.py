"""Why IBU's compiled update at k = 1024 runs at numba's speed and not faster (issue 31): the passes over G timed
apart, interleaved, as a share of one read of G.

The compiled update (``privest._kernel.ibu_updates``, strided sums) reads G (k x k float64, 8 MB at k = 1024: in the
L3 cache, not in L2) once an iteration for both products, a block of 8 rows at a time: the rows' dot products with
the ratio, then the same rows, now in L1/L2, added into G^T theta. numba's IBU and numpy make two passes. This
script times, on the same G, in rounds that run each in turn:

- ``read``: the one pass that checks a mechanism (``mechanism_summary``: the row sums, signs and column maxima),
  a read of G with little arithmetic, the floor of any pass;
- ``adds``: the second product alone over G (``combine_rows``: G^T s, a pass from L3);
- ``update``: one compiled update (both products, G read once);
- ``numpy``: numpy's two matrix-vector products (``G @ ratio``, ``theta @ G``), single-thread BLAS.

If the fused update cost one read of G, it would run at ``read``; it costs about ``read`` plus the in-cache second
product, because the rows' second product runs after their dot products and nothing fetches the next rows from L3
meanwhile (software prefetch during it was measured slower). Run from the repository root:
``.venv/bin/python benchmarks/bench_passes.py [--k 1024] [--rounds 101]``.
"""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy loads: single-thread BLAS, as bench_peers

import argparse

import numpy as np
from timing import interleaved, seconds

import privest
from privest.estimators import _iteration


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=1024, help="secrets and reports: G is k x k (default 1024)")
    parser.add_argument("--rounds", type=int, default=101, help="interleaved rounds; each time is their median")
    args = parser.parse_args()
    kernel, k = _iteration._kernel, args.k
    if kernel is None:
        raise SystemExit("privest._kernel is not built: nothing to time")
    G = np.ascontiguousarray(privest.krr(k, 1.0))
    rng = privest.rng_for(2026, "bench_passes", k)
    w = rng.dirichlet(np.ones(k))
    theta = np.full(k, 1.0 / k)
    T, M, ratio, column_max, out = np.empty((2, k)), np.empty((2, k)), np.empty(k), np.empty(k), np.empty(k)
    T[0] = theta
    kernel.combine_rows(G, theta, M[0], k, k)
    strided = G.size >= _iteration._STRIDED_START
    passes = {
        "read": lambda: kernel.mechanism_summary(G, column_max, k, k),
        "adds": lambda: kernel.combine_rows(G, theta, out, k, k),
        "update": lambda: kernel.ibu_updates(G, w, T, M, ratio, k, k, 1, strided),
        "numpy": lambda: (G @ (w / M[0]), theta @ G),
    }
    medians = interleaved(passes, args.rounds)
    read = medians["read"]
    print(f"G {k} x {k} float64 ({G.nbytes / 2**20:.0f} MiB), {args.rounds} interleaved rounds, medians:")
    for name, median in medians.items():
        print(f"  {name:7s} {seconds(median):>9s}  {median / read:5.2f} reads of G  "
              f"({G.nbytes / median / 1e9:5.1f} GB/s of G)")


if __name__ == "__main__":
    main()
