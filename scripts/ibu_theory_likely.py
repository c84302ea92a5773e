"""Rule ibu_theory_likely: IBU on a likely subset against IBU on the whole alphabet (IBU paper section 8), one case."""

import math

import numpy as np

from privest import estimators, mechanisms, sampling
from privest.alphabets import Grid
from privest_studies import files, ibu_theory, jobs

COLUMNS = ["case", "mechanism", "eps", "users", "alphabet_size", "observed_values", "likely_size",
           "strictly_concave_on_subset", "algorithm", "stopping", "full_cpu_seconds", "likely_cpu_seconds",
           "subset_cpu_seconds", "speedup", "full_wall_seconds", "likely_wall_seconds", "full_iterations",
           "likely_iterations", "full_capped", "likely_capped", "max_abs_difference", "full_mass_outside",
           "full_log_likelihood", "likely_log_likelihood", "full_gap", "likely_gap"]


def linear(spec: dict, inputs, rng: np.random.Generator) -> tuple:
    """Adult ages on {0..k-1}, untruncated geometric (IBU eq. 6); the likely subset of Proposition 8.2."""
    secrets = files.load_npz(inputs.data)["secrets"]
    values, counts = np.unique(ibu_theory.sample_geometric_untruncated(secrets, spec["eps"], rng), return_counts=True)
    G = mechanisms.geometric_untruncated(spec["k"], spec["eps"], int(values[0]), int(values[-1]))
    subset, _, seconds = ibu_theory.timed(estimators.likely_subset_linear, np.arange(spec["k"]), values)
    return G[:, values - values[0]], counts, subset, seconds, "untruncated linear geometric", secrets.size, spec["k"]


def planar(spec: dict, inputs, rng: np.random.Generator) -> tuple:
    """Check-ins merged into cell_km cells and centred in a large grid, untruncated planar geometric (eps per km);
    the likely subset of Proposition 8.3 (delta = cell_km / sqrt(2))."""
    region = files.load_json(inputs.alphabet)
    grid = Grid(region["columns"], region["rows"], region["cell_km"])
    large = Grid(spec["columns"], spec["rows"], spec["cell_km"])
    cells = ibu_theory.embed_cells(grid, files.load_npz(inputs.data)["secrets"],
                                   round(spec["cell_km"] / grid.cell_km), large)
    offsets = ibu_theory.planar_geometric_offsets(len(cells), spec["eps"], spec["cell_km"], rng)
    points, counts = np.unique(cells + offsets, axis=0, return_counts=True)
    points_km = (points + 0.5) * spec["cell_km"]
    centres = large.centres()
    subset, _, seconds = ibu_theory.timed(estimators.likely_subset_planar, centres, points_km,
                                          spec["cell_km"] / math.sqrt(2))
    G = ibu_theory.planar_geometric_columns(centres, points_km, spec["eps"], spec["cell_km"])
    return G, counts, subset, seconds, "untruncated planar geometric", len(cells), large.k


def krr(spec: dict, inputs, rng: np.random.Generator) -> tuple:
    """`users` persons drawn from the Adult ages theta, k-RR on {0..k-1}; the likely subset of Proposition 8.4."""
    theta = files.load_npz(inputs.data)["theta"]
    secrets = rng.choice(theta.size, size=spec["users"], p=theta)
    reports = ibu_theory.sample_krr(secrets, spec["k"], spec["eps"], rng)
    values, counts = np.unique(reports, return_counts=True)
    subset, _, seconds = ibu_theory.timed(estimators.likely_subset_krr, reports)
    return ibu_theory.krr_columns(spec["k"], spec["eps"], values), counts, subset, seconds, "k-RR", spec["users"], \
        spec["k"]


CASES = {"linear": linear, "planar": planar, "krr": krr}


def main() -> None:
    case, spec, settings = snakemake.wildcards.case, snakemake.params.spec, snakemake.params.settings
    rng = sampling.rng_for(snakemake.params.seed, "ibu_consistency", "theory", "section8", case)
    G, counts, subset, subset_seconds, mechanism, users, size = CASES[case](spec, snakemake.input, rng)
    concave = ibu_theory.is_strictly_concave(G[subset])
    accelerated = settings["accelerated"]
    stopping = {"IBU": f"delta {settings['delta']:g} or {settings['max_iter']} iterations",
                "SQUAREM-IBU": f"max step {accelerated['tol']:g} or {accelerated['max_steps']} steps"}
    rows = ibu_theory.likely_subset_comparison(G, counts, subset, settings["delta"], settings["max_iter"],
                                               accelerated["tol"], accelerated["max_steps"])
    rows = [{"case": case, "mechanism": mechanism, "eps": spec["eps"], "users": int(users), "alphabet_size": size,
             "observed_values": G.shape[1], "likely_size": int(subset.size), "strictly_concave_on_subset": concave,
             "stopping": stopping[row["algorithm"]], "subset_cpu_seconds": subset_seconds,
             "speedup": row["full_cpu_seconds"] / (row["likely_cpu_seconds"] + subset_seconds)} | row for row in rows]
    files.save_rows(rows, COLUMNS, snakemake.output[0])


jobs.run_or_exit(main, snakemake.log)
