"""What SQUAREM saves: plain GIBU against ``accelerate="squarem"`` on the same reports, to the same delta.

Run from the repository root: ``.venv/bin/python benchmarks/bench_squarem.py [--delta 1e-10] [--schemes]``. Prints
one markdown table (both stopping at the change of L below delta): the updates (EM-map evaluations) and seconds of
each, their ratios, how much higher SQUAREM's final normalised log-likelihood is, and the largest difference of the
two estimates. Nothing is written to disk. The plain mixture row takes about five minutes on 2 cores.

Problems: OLH (eps 1, a family of 1024 hash functions) and GRR (eps 1) on a Zipf(1.3) over k = 1024 with 10^5
users; a mixture of OUE (eps 0.5), OLH (eps 2), HR (eps 1) and GRR (eps 4) on the same data; the IBU paper's
geometric mechanism at eps 0.1 on k = 100 (Binomial(99, 0.3) secrets).

``--schemes`` instead times SQUAREM with and without its stabilising update ("squarem", "squarem-direct") and with
Newton's finish ("squarem-newton", the library's default) to each stopping rule on issue 47's problem (OUE, k = 50,
n = 10^5, eps = 1; 20 data sets drawn as the bootstrap draws them, and 20 of binomial secrets, whose MLE has zeros),
and the bootstrap with its defaults on one thread and on every core (PRIVEST_THREADS).
"""

import argparse
import os
import time

import numpy as np
from scipy.stats import binom

import privest
from privest import protocols


def compare(label: str, pairs: list, delta: float) -> str:
    runs = {}
    for accelerate in (None, "squarem"):
        start = time.perf_counter()
        result = privest.gibu(pairs, delta=delta, max_iter=100_000, accelerate=accelerate, stop="change")
        runs[accelerate] = (result, time.perf_counter() - start)
    (plain, t_plain), (fast, t_fast) = runs[None], runs["squarem"]
    capped = " (capped)" if plain.capped or fast.capped else ""
    return (f"| {label}{capped} | {plain.iterations:,} | {t_plain:.2f} | {fast.iterations:,} | {t_fast:.2f} | "
            f"{plain.iterations / fast.iterations:.1f}x | {t_plain / t_fast:.1f}x | "
            f"{fast.log_likelihood - plain.log_likelihood:+.1e} | {np.abs(plain.theta - fast.theta).max():.1e} |")


def schemes(delta: float) -> None:
    """Issue 47's problem: each scheme to each stopping rule on 20 data sets of each kind, then the bootstrap's
    defaults."""
    rng = privest.rng_for(2026, "squarem schemes")
    k, n, oue = 50, 10**5, protocols.oue(50, 1.0)
    estimate = privest.gibu([(oue, oue.sample(rng.choice(k, n, p=rng.dirichlet(np.ones(k))), rng))]).theta
    binomial = binom.pmf(np.arange(k), k - 1, 0.5)
    data = {"every value present (resampled from an estimate)": estimate,
            "binomial secrets (the MLE has zeros)": binomial}
    print(f"OUE k = {k}, n = 10^5, eps = 1; 20 data sets of each kind; delta = {delta:g}; medians over the data "
          "sets\n")
    print("| data | scheme | stop | updates | ms | largest L(MLE) - L |")
    print("|---|---|---|---:|---:|---:|")
    for label, theta in data.items():
        groups = [oue.group(oue.sample(np.repeat(np.arange(k), rng.multinomial(n, theta)), rng)) for _ in range(20)]
        best = [privest.gibu([g], delta=1e-14, max_iter=100_000).log_likelihood for g in groups]
        for accelerate in ("squarem", "squarem-direct", "squarem-newton"):
            for stop in ("change", "gap"):
                updates, seconds, short = [], [], []
                for group, top in zip(groups, best, strict=True):
                    start = time.perf_counter()
                    result = privest.gibu([group], delta=delta, accelerate=accelerate, stop=stop)
                    seconds.append(time.perf_counter() - start)
                    updates.append(result.iterations)
                    short.append(top - result.log_likelihood)
                print(f"| {label} | {accelerate} | {stop} | {np.median(updates):.0f} | "
                      f"{1000 * np.median(seconds):.0f} | {max(short):.1e} |", flush=True)
    reports = oue.sample(rng.choice(k, n, p=estimate), rng)
    print("\n| bootstrap, 200 replicates | s |\n|---|---:|")
    for threads in ("1", None):
        if threads is None:
            os.environ.pop("PRIVEST_THREADS", None)
        else:
            os.environ["PRIVEST_THREADS"] = threads
        start = time.perf_counter()
        privest.bootstrap([(oue, reports)], privest.rng_for(2026, "squarem bootstrap"))
        label = "one thread" if threads else f"{len(os.sched_getaffinity(0))} threads (the default)"
        print(f"| {label} | {time.perf_counter() - start:.1f} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delta", type=float, default=1e-10)
    parser.add_argument("--schemes", action="store_true", help="the SQUAREM schemes and the bootstrap (issue 47)")
    arguments = parser.parse_args()
    delta = arguments.delta
    if arguments.schemes:
        schemes(delta)
        return
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
