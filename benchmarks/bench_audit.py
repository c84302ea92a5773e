"""The empirical privacy audit (``privest.audit``) of every matrix mechanism and every protocol, as a markdown table.

Run from the repository root: ``.venv/bin/python benchmarks/bench_audit.py [--trials 1000000] [--eps 1]``. Each row:
the claimed eps (the matrix's LDP level; -log(alpha) between neighbouring counts for the count paper's mechanisms),
the audit's lower bound at 99% confidence from ``--trials`` reports per input, their ratio, the pair and the hits.
A planted bug (GRR that claims eps but keeps the true value as at 2 eps) closes the table. tests/test_auditing.py
runs the same audits at 100,000 trials.
"""

import argparse
import math
import time

import numpy as np

import privest
from privest import counts, protocols
from privest.alphabets import Grid

SEED = 2026


def _subjects(eps: float) -> list[tuple[str, object, float, tuple[int, int] | None]]:
    """(name, matrix or protocol, claimed eps, inputs) of every mechanism audited."""
    matrices = {
        "k-RR (k = 16)": privest.krr(16, eps),
        "geometric (k = 16, eps/step = eps/8)": privest.geometric(16, eps / 8),
        "laplace (k = 16, eps/step = eps/8)": privest.laplace(16, eps / 8),
        "exponential (k = 16, eps/step = eps/4)": privest.exponential(privest.linear_distances(16), eps / 4),
        "planar geometric (4 x 4 km, eps/km = eps/4)": privest.planar_geometric(Grid(4, 4, 1.0), eps / 4),
        "planar laplace (4 x 4 km, eps/km = eps/4)": privest.planar_laplace(Grid(4, 4, 1.0), eps / 4),
    }
    subjects = [(name, A, privest.ldp_level(A), None) for name, A in matrices.items()]
    alpha = math.exp(-eps)
    for name in ("GM", "EM", "WM"):
        A = counts.as_row_stochastic(counts.by_name(name, 4, alpha))
        worst = int(np.argmax([privest.ldp_level(A[[i, i + 1]]) for i in range(4)]))
        subjects.append((f"count {name} (n = 4, neighbours)", A, eps, (worst, worst + 1)))
    for name in protocols.NAMES:
        subjects.append((name.upper() + " (k = 16)", protocols.by_name(name, 16, eps), eps, None))
    return subjects


class _LeakyGRR(protocols.GRR):
    """GRR claiming eps that keeps the true value as GRR at 2 eps does: the planted bug."""

    def sample(self, secrets, rng):
        return protocols.GRR(self.k, 2 * self.eps).sample(secrets, rng)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=1_000_000)
    parser.add_argument("--eps", type=float, default=1.0)
    args = parser.parse_args()
    print(f"Audit at 99% confidence, {args.trials:,} trials per input\n")
    print("| mechanism | claimed eps | lower bound | bound / claimed | pair | hits (x1, x2) | seconds |")
    print("|---|---:|---:|---:|---|---|---:|")
    for name, subject, claimed, inputs in [*_subjects(args.eps), ("GRR, planted bug", _LeakyGRR(16, args.eps),
                                                                  args.eps, None)]:
        start = time.perf_counter()
        result = privest.audit(subject, claimed, privest.rng_for(SEED, "bench audit", name), trials=args.trials,
                               inputs=inputs)
        print(f"| {name} | {claimed:.4f} | {result.bound:.4f} | {result.bound / claimed:.3f} | {result.inputs} | "
              f"{result.hits} | {time.perf_counter() - start:.1f} |")


if __name__ == "__main__":
    main()
