"""
The standard LDP protocols, and GIBU over their mix
===================================================

The standard LDP frequency oracles (privest.protocols): users split over OUE, OLH, Hadamard response, subset
selection and GRR at different eps, and three ways to estimate theta from all their reports:

- [INV-P]_R: each protocol's unbiased estimator (Wang et al. 2017) on its own users, projected onto the simplex,
  weighted by n^A/n (free-will eqs. 4-5);
- [IBU]_R: IBU on each protocol's own reports, weighted likewise;
- GIBU: one maximum-likelihood estimate from every report at once (free-will Algorithm 1), here accelerated by
  SQUAREM; no peer library estimates from such a mixture.

Then the closed-form MLE of k-RR (``privest.krr_mle``) on the GRR users alone, against IBU run to convergence.

    python examples/protocols.py
"""

import numpy as np

import privest
from privest import protocols

K, USERS = 64, 50_000
theta = 1 / np.arange(1, K + 1) ** 1.1  # a Zipf distribution over 64 values
theta /= theta.sum()
mix = [protocols.oue(K, 1.0), protocols.olh(K, 2.0), protocols.hr(K, 1.0), protocols.ss(K, 1.5),
       protocols.grr(K, 3.0)]
rng = privest.rng_for(2026, "examples", "protocols")
secrets = np.array_split(rng.choice(K, USERS, p=theta), len(mix))  # each protocol's users
pairs = [(m, m.sample(s, rng)) for m, s in zip(mix, secrets, strict=True)]
users = [s.size for s in secrets]

inv_p_r = privest.combine_results([m.estimate(r, post="projection") for m, r in pairs], users)
ibu_r = privest.combine_results([privest.gibu([(m, r)], accelerate="squarem").theta for m, r in pairs], users)
gibu = privest.gibu(pairs, accelerate="squarem")

print(f"{USERS:,} users on 64 values (Zipf), a fifth each on " + ", ".join(f"{m.name} (eps {m.eps:g})" for m in mix))
for name, estimate in [("[INV-P]_R", inv_p_r), ("[IBU]_R", ibu_r), ("GIBU", gibu.theta)]:
    l2 = np.sqrt(((estimate - theta) ** 2).sum())
    print(f"{name:9} EMD to theta {privest.emd_1d(theta, estimate):.4f}  L2 {l2:.4f}")
print(f"GIBU (SQUAREM) stopped after {gibu.iterations:,} updates" + (" (the cap)" if gibu.capped else ""))

grr, reports = pairs[-1]
mle = privest.krr_mle(np.bincount(reports, minlength=K), grr.eps)
converged = privest.gibu([(grr, reports)], delta=1e-14, max_iter=100_000, accelerate="squarem")
print(f"k-RR MLE in closed form: {np.count_nonzero(mle == 0)} zeros; max |MLE - IBU to convergence| "
      f"{np.abs(mle - converged.theta).max():.1e}")
