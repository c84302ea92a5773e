"""
Free will: GIBU over a mix of mechanisms
========================================

Free will: each user picks a mechanism, and GIBU estimates theta from all of their reports at once (free-will paper,
Algorithm 1), where [IBU]_R runs IBU on each mechanism's own reports and weights the results by n^A/n (eqs. 4-5).

30,000 users on X = {0..19} (theta Binomial(19, 0.5)) are split equally over k-RR (eps 2, eq. 1), the truncated
geometric mechanism (eps 0.5, eqs. 2-3) and basic one-time RAPPOR (eps 3, eq. 12). RAPPOR's reports are bit vectors:
GIBU uses them through their likelihood (IBU paper, section 4.4), never through a 2^k-column matrix.

    python examples/free_will_mixture.py
"""

import math

import numpy as np

import privest
from privest.sampling import Rappor

K, USERS = 20, 30_000
theta = np.array([math.comb(K - 1, x) for x in range(K)], dtype=np.float64) / 2 ** (K - 1)
mechanisms = [privest.krr(K, 2.0), privest.geometric(K, 0.5), Rappor(K, 3.0)]
rng = privest.rng_for(2026, "examples", "free_will_mixture")
secret_counts = privest.split_users(USERS, len(mechanisms), theta, rng)  # (mechanisms, K): who holds what, on which
reports = privest.population(mechanisms, secret_counts, rng)  # counts over Z for a matrix, grouped bits for RAPPOR

groups = [privest.rappor_group(r) if isinstance(m, Rappor) else privest.matrix_group(m, r)
          for m, r in zip(mechanisms, reports, strict=True)]
gibu = privest.gibu(groups)
per_mechanism = [privest.gibu([group]).theta for group in groups]  # IBU on each mechanism's own reports
ibu_r = privest.combine_results(per_mechanism, secret_counts.sum(axis=1))

print(f"{USERS:,} users on X = {{0..{K - 1}}}, a third each on k-RR (eps 2), geometric (eps 0.5), RAPPOR (eps 3)")
for name, estimate in [("[IBU]_R", ibu_r), ("GIBU", gibu.theta)]:
    print(f"{name:8} EMD to theta {privest.emd_1d(theta, estimate):.4f}")
print(f"GIBU (SQUAREM, the default) stopped after {gibu.iterations:,} updates" + (" (the cap)" if gibu.capped else ""))
