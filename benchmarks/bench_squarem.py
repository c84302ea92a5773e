"""What SQUAREM saves: plain GIBU against ``accelerate="squarem"`` on the same reports, to the same delta.

Run from the repository root: ``.venv/bin/python benchmarks/bench_squarem.py [--delta 1e-10]``. Prints one markdown
table: the updates (EM-map evaluations) and seconds of each, their ratios, how much higher SQUAREM's final
normalised log-likelihood is, and the largest difference of the two estimates. Nothing is written to disk. The plain
mixture row takes about five minutes on 2 cores.

Problems: OLH (eps 1, a family of 1024 hash functions) and GRR (eps 1) on a Zipf(1.3) over k = 1024 with 10^5
users; a mixture of OUE (eps 0.5), OLH (eps 2), HR (eps 1) and GRR (eps 4) on the same data; the IBU paper's
geometric mechanism at eps 0.1 on k = 100 (Binomial(99, 0.3) secrets).
"""

import argparse
import time

import numpy as np

import privest
from privest import protocols


def compare(label: str, pairs: list, delta: float) -> str:
    runs = {}
    for accelerate in (None, "squarem"):
        start = time.perf_counter()
        result = privest.gibu(pairs, delta=delta, max_iter=100_000, accelerate=accelerate)
        runs[accelerate] = (result, time.perf_counter() - start)
    (plain, t_plain), (fast, t_fast) = runs[None], runs["squarem"]
    capped = " (capped)" if plain.capped or fast.capped else ""
    return (f"| {label}{capped} | {plain.iterations:,} | {t_plain:.2f} | {fast.iterations:,} | {t_fast:.2f} | "
            f"{plain.iterations / fast.iterations:.1f}x | {t_plain / t_fast:.1f}x | "
            f"{fast.log_likelihood - plain.log_likelihood:+.1e} | {np.abs(plain.theta - fast.theta).max():.1e} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delta", type=float, default=1e-10)
    delta = parser.parse_args().delta
    rng = privest.rng_for(2026, "squarem measure")
    k = 1024
    secrets = np.minimum(rng.zipf(1.3, 10**5) - 1, k - 1)
    print(f"delta = {delta:g}; updates: EM-map evaluations (SQUAREM: three per step)\n")
    print("| problem | GIBU updates | GIBU s | SQUAREM updates | SQUAREM s | fewer updates | less time | "
          "L(SQUAREM) - L(GIBU) | max abs difference |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    olh, grr = protocols.olh(k, 1.0, hashes=1024), protocols.grr(k, 1.0)
    print(compare("OLH eps 1 (1024 hashes), Zipf k = 1024, n = 10^5", [(olh, olh.sample(secrets, rng))], delta),
          flush=True)
    print(compare("GRR eps 1, Zipf k = 1024, n = 10^5", [(grr, grr.sample(secrets, rng))], delta), flush=True)
    mix = [protocols.oue(k, 0.5), protocols.olh(k, 2.0, hashes=1024), protocols.hr(k, 1.0), protocols.grr(k, 4.0)]
    parts = np.array_split(rng.permutation(secrets), len(mix))
    print(compare("OUE 0.5 + OLH 2 + HR 1 + GRR 4, Zipf k = 1024, n = 10^5",
                  [(m, m.sample(s, rng)) for m, s in zip(mix, parts, strict=True)], delta), flush=True)
    A = privest.geometric(100, 0.1)
    counts = np.bincount(privest.sample(A, rng.binomial(99, 0.3, 10**5), rng), minlength=100)
    print(compare("geometric eps 0.1, k = 100, n = 10^5 (IBU paper)", [(A, counts)], delta), flush=True)


if __name__ == "__main__":
    main()
