"""Rule ibu_theory_fig04: Theorem 4.4's lower bound on P(L strictly concave) under RAPPOR, and simulated ranks."""

import numpy as np

from privest import sampling
from privest_studies import files, ibu_theory, jobs, plotting


def main() -> None:
    spec, runs = snakemake.params.spec, snakemake.params.runs
    k, n_max = spec["k"], spec["n_max"]
    n_points = np.asarray(spec["n"], dtype=np.int64)
    n_curve = np.arange(k, n_max + 1)
    rows = []
    fig, ax = plotting.figure(figsize=(6.4, 4.2))
    for i, eps in enumerate(spec["eps"]):
        rng = sampling.rng_for(snakemake.params.seed, "ibu_consistency", "theory", "fig04", eps)
        secrets = rng.integers(0, k, size=runs * n_max)
        bits = sampling.rappor(secrets, k, eps, rng).reshape(runs, n_max, k)
        frequencies = ibu_theory.rappor_rank_frequencies(bits, n_points)
        bound = ibu_theory.rappor_concavity_bound(k, n_points, eps)
        rows += [{"k": k, "eps": eps, "n": int(n), "runs": runs, "bound": float(bound[j]),
                  **{name: float(values[j]) for name, values in frequencies.items()}}
                 for j, n in enumerate(n_points)]
        colour = f"C{i}"
        ax.plot(n_curve, ibu_theory.rappor_concavity_bound(k, n_curve, eps), color=colour, lw=1.6,
                label=f"ε = {eps:g}: lower bound (Theorem 4.4)")
        ax.plot(n_points, frequencies["full_rank_real"], "o", color=colour, ms=4.5, mfc="none",
                label=f"ε = {eps:g}: simulated P(rank B = {k} over ℝ)")
    ax.axvline(25, color="0.5", lw=0.8, ls=":")
    ax.text(25.5, 0.03, "n = 25", color="0.4", fontsize=7)
    ax.set_xlabel("n (users)")
    ax.set_ylabel("probability")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlim(k - 1, n_max + 1)
    ax.set_title(f"Figure 4: RAPPOR on |X| = {k}, strict concavity of the log-likelihood")
    ax.legend(fontsize=6.5, loc="lower right", ncol=1)
    fig.text(0.5, -0.01, f"Points: {runs:,} runs per ε, secrets uniform on X, the first n reports of each run",
             ha="center", va="top", fontsize=7)
    plotting.save(fig, *snakemake.output.figure)
    files.save_rows(rows, list(rows[0]), snakemake.output.table)


jobs.run_or_exit(main, snakemake.log)
