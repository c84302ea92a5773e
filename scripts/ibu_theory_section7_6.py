"""Rule ibu_theory_section7_6: INV's expected squared error under k-RR and the geometric mechanism (section 7.6): the
numbers only (printed, formula, exact and simulated constants); the report judges them (reproduction.section7_6)."""

import numpy as np

from privest import mechanisms, sampling
from privest_studies import files, ibu_theory, jobs, tables

COLUMNS = ["mechanism", "eps", "k", "n", "theta", "bound", "published_C", "formula_C", "exact_C", "simulated_C",
           "simulated_se_C", "runs"]
THETA = "Adult ages (results/data/ages.npz)"


def main() -> None:
    spec, runs = snakemake.params.spec, snakemake.params.runs
    data = files.load_npz(snakemake.input.data)
    theta, n = data["theta"], int(data["secrets"].size)
    k = theta.size
    cases = [("k-RR", "krr", mechanisms.krr(k, spec["krr"]["eps"]),
              ibu_theory.inv_krr_upper_bound(k, spec["krr"]["eps"]), "upper"),
             ("truncated geometric", "geometric", mechanisms.geometric(k, spec["geometric"]["eps"]),
              ibu_theory.inv_geometric_lower_bound(spec["geometric"]["eps"]), "lower")]
    rows = []
    for name, key, M, bound, kind in cases:
        rng = sampling.rng_for(snakemake.params.seed, "ibu_consistency", "theory", "section7_6", name)
        exact = ibu_theory.inv_error_exact(M, theta)
        simulated = ibu_theory.inv_errors_simulated(M, theta, n, runs, rng)
        se = float(simulated.std(ddof=1) / np.sqrt(runs))
        rows.append({"mechanism": name, "eps": spec[key]["eps"], "k": k, "n": n, "theta": THETA, "bound": kind,
                     "published_C": snakemake.params.published[key], "formula_C": bound, "exact_C": exact,
                     "simulated_C": float(simulated.mean()), "simulated_se_C": se, "runs": runs})
    files.save_rows(rows, COLUMNS, snakemake.output.csv)
    text = ("# IBU paper, section 7.6: expected squared error of INV, E||v - theta||^2 = C / n\n\n"
            "C of the raw INV vector v (before post-processing). published_C: the constant the paper prints; "
            "formula_C: the proposition's formula (k-RR: ((e^eps + k - 1)/(e^eps - 1))^2, an upper bound; geometric: "
            "beta^3 - 2 alpha beta^2 - 2, a lower bound); exact_C: tr(M^-T (diag(m) - m m^T) M^-1), m = theta M; "
            f"simulated_C: mean of n ||v - theta||^2 over {runs:,} runs of n = {n:,} reports (s.e. beside it). "
            "theta: the Adult ages on {0..99}.\n\n" + tables.markdown_table(rows, COLUMNS))
    files.write_text(snakemake.output.md, text)


jobs.run_or_exit(main, snakemake.log)
