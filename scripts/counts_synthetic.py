"""Rule counts_synthetic: Figures 11-13 (section V-C). A population of Bernoulli(p) bits cut into groups of n, so each
group's count is Binomial(n, p); each count through GM, WM, EM and UM. One row per (alpha, n, p, mechanism,
repetition, metric): 'L0,d' = the fraction of groups whose noisy count is more than d away from the true one, 'RMSE'
= the root mean square error of the noisy counts. A repetition draws a new population (shared by the mechanisms)."""

from privest import counts
from privest.sampling import rng_for
from privest_studies import files, jobs

MECHANISMS = ("GM", "WM", "EM", "UM")


def main() -> None:
    params, figure = snakemake.params, snakemake.wildcards.synthetic
    design, bank = params.design, files.load_npz(snakemake.input.mechanisms)
    rows = []
    for alpha, n, p in design["points"]:
        groups = params.population // n
        for repetition in range(params.repetitions):
            true = rng_for(params.seed, "constrained_counts", figure, n, p, repetition).binomial(n, p, size=groups)
            for name in MECHANISMS:
                P = bank[counts.mechanism_key(name, n, alpha)]
                rng = rng_for(params.seed, "constrained_counts", figure, n, p, repetition, alpha, name)
                noisy = counts.sample_outputs(P, true, rng)
                metrics = {f"L0,{d}": counts.wrong_fraction(true, noisy, d) for d in design["ds"]}
                if design["rmse"]:
                    metrics["RMSE"] = counts.rmse(true, noisy)
                rows += [{"alpha": alpha, "n": n, "p": p, "mechanism": name, "repetition": repetition, "metric": metric,
                          "value": value} for metric, value in metrics.items()]
    files.save_rows(rows, ["alpha", "n", "p", "mechanism", "repetition", "metric", "value"], snakemake.output[0])


jobs.run_or_exit(main, snakemake.log)
