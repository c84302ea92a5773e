"""Coverage of privest's 95% confidence intervals, measured by simulation, as a markdown table.

Run from the repository root: ``.venv/bin/python benchmarks/bench_coverage.py [--runs 1000] [--n 20000]
[--bootstrap 40]``. For GRR, OUE and OLH (``privest.protocols``) and the truncated geometric mechanism (a matrix),
at eps 2 and the interior theta THETA (16 values, proportional to 2 .. 1), each run draws n users' secrets i.i.d.
from theta and their reports, and computes

- the normal interval of the unbiased estimator from its variance (``Protocol.interval``, ``inv_interval``),
- the Wald interval of the MLE from the observed Fisher information (``gibu(...).interval()``, GIBU by SQUAREM),
- with ``--bootstrap R`` (R runs), the parametric bootstrap interval (``privest.bootstrap``, REPLICATES replicates),
  also on BOUNDARY_THETA, whose last entry is 0, where the Wald interval is not valid.

Coverage is the share of (run, value) intervals that hold theta's entry; its standard error is computed from the
spread of the per-run counts, so it accounts for the dependence of one run's k intervals. tests/test_intervals.py
runs ``coverage`` at a size that takes seconds.
"""

import argparse
import time

import numpy as np

import privest
from privest import protocols

SEED = 2026
EPS = 2.0
THETA = np.linspace(2, 1, 16) / np.linspace(2, 1, 16).sum()
REPLICATES = 100
BOUNDARY_THETA = np.array([0.3, 0.25, 0.2, 0.15, 0.1, 0.0])
MECHANISMS = ("grr", "oue", "olh", "geometric")


def _reports(name: str, theta: np.ndarray, n: int, eps: float, rng: np.random.Generator) -> tuple:
    """One run's (mechanism, reports) pair: a protocol and its reports, or the geometric matrix and report counts."""
    if name == "geometric":
        A = privest.geometric(theta.size, eps)
        return A, privest.sample_counts(A, rng.multinomial(n, theta), rng)
    protocol = protocols.by_name(name, theta.size, eps)
    return protocol, protocol.sample(rng.choice(theta.size, size=n, p=theta), rng)


def coverage(name: str, theta: np.ndarray, n: int, eps: float, runs: int, rng: np.random.Generator,
             level: float = 0.95, bootstrap_runs: int = 0) -> dict[str, np.ndarray]:
    """Per run, how many of the k intervals hold theta's entry, for each interval kind: {"unbiased": (runs,),
    "mle": (runs,), "bootstrap": (bootstrap_runs,)}."""
    covered: dict[str, list[int]] = {"unbiased": [], "mle": [], "bootstrap": []}
    for run in range(runs):
        mechanism, reports = _reports(name, theta, n, eps, rng)
        if name == "geometric":
            unbiased = privest.inv_interval(mechanism, reports, level)
        else:
            unbiased = mechanism.interval(reports, level)
        mle = privest.gibu([(mechanism, reports)], accelerate="squarem").interval(level)
        covered["unbiased"].append(int(unbiased.covers(theta).sum()))
        covered["mle"].append(int(mle.covers(theta).sum()))
        if run < bootstrap_runs:
            interval = privest.bootstrap([(mechanism, reports)], rng, replicates=REPLICATES, level=level,
                                         accelerate="squarem")
            covered["bootstrap"].append(int(interval.covers(theta).sum()))
    return {kind: np.array(counts) for kind, counts in covered.items()}


def share(counts: np.ndarray, k: int) -> tuple[float, float]:
    """The pooled coverage of per-run counts and its standard error (from the runs' spread)."""
    return float(counts.mean() / k), float(counts.std(ddof=1) / k / np.sqrt(counts.size))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--n", type=int, default=20000)
    parser.add_argument("--bootstrap", type=int, default=0, help="runs with a bootstrap interval (costly)")
    args = parser.parse_args()
    print(f"95% intervals, eps {EPS}, n {args.n}, {args.runs} runs ({args.bootstrap} with the bootstrap), theta "
          f"{np.round(THETA, 4).tolist()}\n")
    print("| mechanism | unbiased, normal | MLE, Fisher | MLE, bootstrap | seconds |")
    print("|---|---:|---:|---:|---:|")
    for name in MECHANISMS:
        start = time.perf_counter()
        counts = coverage(name, THETA, args.n, EPS, args.runs, privest.rng_for(SEED, "coverage", name),
                          bootstrap_runs=args.bootstrap)
        cells = [("{:.4f} ± {:.4f}".format(*share(counts[kind], THETA.size)) if counts[kind].size else "—")
                 for kind in ("unbiased", "mle", "bootstrap")]
        print(f"| {name} | {' | '.join(cells)} | {time.perf_counter() - start:.1f} |")
    if args.bootstrap:
        print(f"\nOn the boundary: theta {BOUNDARY_THETA.tolist()} ({args.bootstrap} runs), coverage of theta's zero\n")
        print("| mechanism | MLE, Fisher | MLE, bootstrap |")
        print("|---|---:|---:|")
        for name in MECHANISMS:
            rng = privest.rng_for(SEED, "coverage boundary", name)
            fisher, boot = [], []
            for _ in range(args.bootstrap):
                mechanism, reports = _reports(name, BOUNDARY_THETA, args.n, EPS, rng)
                fisher.append(privest.gibu([(mechanism, reports)], accelerate="squarem").interval().covers(
                    BOUNDARY_THETA)[-1])
                interval = privest.bootstrap([(mechanism, reports)], rng, replicates=REPLICATES, accelerate="squarem")
                boot.append(interval.covers(BOUNDARY_THETA)[-1])
            print(f"| {name} | {np.mean(fisher):.3f} | {np.mean(boot):.3f} |")


if __name__ == "__main__":
    main()
