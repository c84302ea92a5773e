"""
Quickstart: INV-N, INV-P and IBU at several eps
===============================================

INV-N, INV-P and IBU on one mechanism at several eps (IBU paper section 7; free-will eqs. 9-10).

Users hold ages on {0..99} drawn from Binomial(99, 0.4); each reports once through the truncated geometric mechanism
(free-will eqs. 2-3). INV solves theta A = q (eq. 9) and is normalised (INV-N) or projected onto the simplex (INV-P);
IBU is the maximum-likelihood estimate (eq. 10). The table is the EMD of each estimate to theta, in years.

    python examples/quickstart.py
"""

import math

import numpy as np

import privest

K, USERS = 100, 20_000
theta = np.array([math.comb(K - 1, x) * 0.4**x * 0.6 ** (K - 1 - x) for x in range(K)])
rng = privest.rng_for(2026, "examples", "quickstart")
secret_counts = rng.multinomial(USERS, theta)

print(f"{USERS:,} users, ages on {{0..{K - 1}}}; EMD to theta (years)")
print(f"{'eps':>6} {'noisy':>8} {'INV-N':>8} {'INV-P':>8} {'IBU':>8}  IBU updates (SQUAREM)")
for eps in (0.05, 0.1, 0.3, 1.0):
    A = privest.geometric(K, eps)
    reports = privest.sample_counts(A, secret_counts, rng)
    estimates = {"noisy": reports / reports.sum(), "INV-N": privest.inv(A, reports, post="normalization"),
                 "INV-P": privest.inv(A, reports, post="projection")}
    ibu = privest.ibu(A, reports, max_iter=20_000)
    estimates["IBU"] = ibu.theta
    row = " ".join(f"{privest.emd_1d(theta, e):8.3f}" for e in estimates.values())
    print(f"{eps:6g} {row}  {ibu.iterations:,}{' (cap)' if ibu.capped else ''}")
