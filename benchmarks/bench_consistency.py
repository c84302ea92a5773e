"""privest's consistency post-processings against the peers' that have them, side by side in one run, as ratios.

Run from the repository root: ``.venv/bin/python benchmarks/bench_consistency.py [--repeats 5]`` (the peers set:
``make .venv/.installed-peers``). Prints one markdown table (nothing is written to disk). The peers' post-processings:

- multi-freq-ldpy 0.2.5: ``GRR_Aggregator_MI`` (and every ``*_Aggregator_MI``): the unbiased estimate clipped at 0 and
  renormalised, which is Norm-Mul; compared end to end (counting the reports, estimating, post-processing) with
  ``privest.protocols.grr(k, eps).estimate(reports, post="norm-mul")``;
- pure-LDP 1.2.0: ``FreqOracleServer.estimate_all(..., normalization=2)``, the projection onto the simplex
  (``project_probability_simplex``), which is Norm-Sub; ``normalization=3``, its "threshold cut", which keeps the
  largest estimates while their sum stays within n (Norm-Cut, without zeroing negatives when the positives sum to
  less); ``normalization=1``, "additive", one step of Norm-Sub (positives only, not repeated until none is negative):
  no privest method equals it. Each on the same raw estimate, through a server that holds it.

Each row: the max |difference| between the two outputs, the best time of each and the peer's time over privest's.
"""

import argparse
import importlib.metadata

import numpy as np
from timing import best_time, seconds

import privest
from privest import consistency, protocols

SEED = 2026
EPS = 1.0


def _pure_ldp_server(raw: np.ndarray, n: int):
    """A pure-LDP frequency-oracle server whose estimates are the raw counts n * raw (what its servers hold after
    aggregating), so that ``estimate_all`` post-processes privest's raw estimate."""
    from pure_ldp.core._freq_oracle_server import FreqOracleServer

    class Held(FreqOracleServer):
        def _update_estimates(self) -> None:
            pass

        def estimate(self, data, suppress_warnings=False):
            return raw[data] * n

    server = Held(EPS, raw.size, index_mapper=lambda x: x)
    server.n = n
    return server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--k", type=int, default=1024)
    parser.add_argument("--n", type=int, default=100_000)
    args = parser.parse_args()
    from multi_freq_ldpy.pure_frequency_oracles.GRR import GRR_Aggregator_MI

    rng = privest.rng_for(SEED, "bench consistency")
    theta = np.arange(1, args.k + 1, dtype=float) ** -1.1
    theta /= theta.sum()
    grr = protocols.grr(args.k, EPS)
    reports = grr.sample(rng.choice(args.k, size=args.n, p=theta), rng)
    raw = grr.estimate(reports)
    versions = {name: importlib.metadata.version(name) for name in ("multi-freq-ldpy", "pure-ldp")}
    print(f"GRR, k = {args.k}, n = {args.n:,}, eps = {EPS}, Zipf theta; best of {args.repeats}; "
          f"multi-freq-ldpy {versions['multi-freq-ldpy']}, pure-LDP {versions['pure-ldp']}\n")
    print("| method | peer | max abs difference | privest | peer | peer / privest |")
    print("|---|---|---:|---:|---:|---:|")
    rows = [
        ("Norm-Mul, end to end", "multi-freq-ldpy GRR_Aggregator_MI",
         lambda: grr.estimate(reports, post="norm-mul"), lambda: GRR_Aggregator_MI(reports, args.k, EPS), 1.0),
        ("Norm-Sub", "pure-LDP estimate_all(normalization=2)", lambda: consistency.norm_sub(raw),
         lambda: _pure_ldp_server(raw, args.n).estimate_all(range(args.k), True, 2), args.n),
        ("Norm-Cut", "pure-LDP estimate_all(normalization=3)", lambda: consistency.norm_cut(raw),
         lambda: _pure_ldp_server(raw, args.n).estimate_all(range(args.k), True, 3), args.n),
        ("Norm-Sub (one step)", "pure-LDP estimate_all(normalization=1)", lambda: consistency.norm_sub(raw),
         lambda: _pure_ldp_server(raw, args.n).estimate_all(range(args.k), True, 1), args.n),
    ]
    for method, peer, ours, theirs, scale in rows:
        ours_time, ours_out = best_time(ours, args.repeats)
        theirs_time, theirs_out = best_time(theirs, args.repeats)
        difference = float(np.abs(np.asarray(theirs_out, dtype=float) / scale - ours_out).max())
        print(f"| {method} | {peer} | {difference:.2e} | {seconds(ours_time)} | {seconds(theirs_time)} | "
              f"{theirs_time / ours_time:.1f} |")


if __name__ == "__main__":
    main()
