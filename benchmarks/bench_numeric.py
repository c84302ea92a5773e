"""The numeric mechanisms (privest.numeric): times of sample, mean_interval and distribution at n = 10^5 and 10^6, and
the Wasserstein distance of each histogram estimate and stopping rule on Li et al.'s skewed synthetic data.

Two tables are printed (nothing is written):

- **times**: each mechanism at eps = 1 on Beta(5, 2) values in [0, 1]: ``sample`` and ``mean_interval`` (best of
  ``--repeats``) and ``distribution`` on 1024 cells (once), with its iterations;
- **stopping rules**: Square Wave on Beta(5, 2), 1024 cells and report bins (the reference code's setting), each eps
  and n, ``--runs`` runs: the mean Wasserstein distance (``privest.emd_1d``, on [0, 1]) and iterations of EMS under
  the paper's rule and to its fixed point (the normalised log-likelihood changing by less than 1e-9 and 1e-10), of EM
  under the paper's rule, and of the uniform histogram.

Run from the repository root: ``OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/bench_numeric.py`` (``--skip-rules``
for the times only; one BLAS thread, as benchmarks/README.md says why).
"""

import argparse
import time

import numpy as np

import privest
from privest import numeric

BINS = 1024


def _best(call, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        out = call()
        times.append(time.perf_counter() - start)
    return min(times), out


def times(repeats: int) -> None:
    print(f"{'mechanism':12s} {'n':>8s} {'sample ms':>10s} {'interval ms':>12s} {'distribution s':>15s} {'iter':>6s}")
    for n in (10**5, 10**6):
        rng = privest.rng_for(2026, "bench numeric times", n)
        values = rng.beta(5, 2, n)
        for mechanism in (numeric.square_wave(1.0), numeric.piecewise(1.0, 0, 1), numeric.hybrid(1.0, 0, 1),
                          numeric.duchi(1.0, 0, 1)):
            sample, reports = _best(lambda m=mechanism, v=values, g=rng: m.sample(v, g), repeats)
            interval, _ = _best(lambda m=mechanism, r=reports: m.mean_interval(r), repeats)
            seconds, histogram = _best(lambda m=mechanism, r=reports: m.distribution(r, BINS), 1)
            print(f"{mechanism.name:12s} {n:>8d} {sample * 1e3:10.1f} {interval * 1e3:12.1f} {seconds:15.2f} "
                  f"{histogram.iterations:6d}")


RULES = {
    "EMS, paper's rule": dict(smoothing="ems"),
    "EMS, change < 1e-9": dict(smoothing="ems", stop="converged", delta=1e-9),
    "EMS, change < 1e-10": dict(smoothing="ems", stop="converged", delta=1e-10),
    "EM, paper's rule": dict(smoothing=None),
}


def rules(runs: int) -> None:
    print(f"\n{'eps':>4s} {'n':>8s} {'rule':22s} {'W1':>8s} {'iter':>6s}")
    for eps in (0.5, 1.0, 2.0, 4.0):
        for n in (10**5, 10**6):
            found = {rule: [] for rule in [*RULES, "uniform"]}
            for run in range(runs):
                rng = privest.rng_for(2026, "bench numeric rules", eps, n, run)
                values = rng.beta(5, 2, n)
                truth = np.histogram(values, BINS, (0.0, 1.0))[0] / n
                sw = numeric.square_wave(eps)
                reports = sw.sample(values, rng)
                for rule, options in RULES.items():
                    histogram = sw.distribution(reports, BINS, **options)
                    found[rule].append((privest.emd_1d(histogram.theta, truth, 1 / BINS), histogram.iterations))
                found["uniform"].append((privest.emd_1d(np.full(BINS, 1 / BINS), truth, 1 / BINS), 0))
            for rule, rows in found.items():
                w1, iterations = np.mean(rows, axis=0)
                print(f"{eps:4g} {n:8d} {rule:22s} {w1:8.5f} {iterations:6.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--skip-rules", action="store_true")
    arguments = parser.parse_args()
    times(arguments.repeats)
    if not arguments.skip_rules:
        rules(arguments.runs)


if __name__ == "__main__":
    main()
