"""Rule fw_noninformative: the example of free-will eq. (11). Half the users apply A, half A' = A with its columns
swapped, so the average mechanism A[n] has uniform rows: [IBU]_M stays at its uniform start whatever n, [INV]_M
cannot invert A[n], and GIBU, which keeps each mechanism's own marginal, recovers theta."""

import numpy as np

from privest import sampling
from privest_studies import files, free_will, jobs, plotting

NAMES = {"GIBU": "GIBU", "[IBU]_M": r"$[\mathrm{IBU}]_\mathrm{M}$",
         "[INV]_M-P": r"$[\mathrm{INV}]_\mathrm{M}$ projection"}


def main() -> None:
    example, params = snakemake.params.example, snakemake.params
    theta = np.array(example["theta"], dtype=np.float64)
    mechanisms = [np.array(example["A"], dtype=np.float64), np.array(example["A_prime"], dtype=np.float64)]
    rows = []
    for n in params.n:
        counts = []
        for run in range(params.runs):
            rng = sampling.rng_for(params.seed, "free_will", "eq11", int(n), run)
            counts.append(sampling.population(mechanisms, sampling.split_users(int(n), 2, theta, rng), rng))
        estimates = free_will.noninformative_estimates(mechanisms, np.array(counts), params.stopping)
        for method, by_run in estimates.items():
            for run, estimate in enumerate(by_run):
                ran = bool(np.all(np.isfinite(estimate)))
                rows.append({"n": int(n), "run": run, "method": method,
                             "theta0": float(estimate[0]) if ran else float("nan"),
                             "emd": float(np.abs(estimate[0] - theta[0])) if ran else float("nan"),
                             "note": "" if ran else "NA: A[n] is singular"})
    files.save_rows(rows, list(rows[0]), snakemake.output.table)

    fig, (left, right) = plotting.figure(nrows=1, ncols=2, figsize=(9.0, 3.6))
    for method, name in NAMES.items():
        mine = [r for r in rows if r["method"] == method and np.isfinite(r["theta0"])]
        if not mine:
            continue
        n = np.array(sorted({r["n"] for r in mine}))
        for ax, field in ((left, "theta0"), (right, "emd")):
            values = [[r[field] for r in mine if r["n"] == x] for x in n]
            ax.errorbar(n, [np.mean(v) for v in values], yerr=[np.std(v, ddof=1) for v in values], fmt="o-",
                        ms=4, capsize=3, color=plotting.METHOD_COLOURS.get(method), label=name)
    left.axhline(theta[0], color="black", lw=1, ls=":", label=f"true θ₀ = {theta[0]:g}")
    left.set_ylabel("estimated θ₀")
    left.set_ylim(0, 1)
    right.set_yscale("log")
    right.set_ylabel("EMD to θ (X = {0, 1}, distance 1)")
    for ax in (left, right):
        ax.set_xscale("log")
        ax.set_xlabel("number of users n (log scale)")
        ax.legend(fontsize=7)
    A, B = (np.array2string(m, separator=", ").replace("\n", "") for m in mechanisms)
    fig.suptitle(f"Eq. (11): half the users apply A = {A}, half A' = {B}; A[n] has uniform rows", fontsize=9.5)
    fig.text(0.5, -0.02, f"θ = ({', '.join(f'{t:g}' for t in theta)}); {params.runs} runs per n (mean ± 1 s.d.); "
             f"{plotting.stopping_note(params.stopping)}; [INV]_M: NA (A[n] singular)", ha="center", va="top",
             fontsize=7)
    plotting.save(fig, *snakemake.output.figure)


jobs.run_or_exit(main, snakemake.log)
