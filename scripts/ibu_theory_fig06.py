"""Rule ibu_theory_fig06: IBU's fixed points on the asymptotic reports of a non-identifiable planar mechanism."""

import numpy as np

from privest import estimators, mechanisms, metrics, sampling
from privest.alphabets import Grid
from privest_studies import files, ibu_theory, jobs, plotting


def heatmap(theta: np.ndarray, grid: Grid, vmax: float, title: str, note: str, paths: tuple[str, str]) -> None:
    fig, ax = plotting.figure(figsize=(4.4, 4.0))
    image = ax.imshow(theta.reshape(grid.rows, grid.columns), origin="lower", cmap="viridis", vmin=0, vmax=vmax,
                      extent=(0, grid.columns * grid.cell_km, 0, grid.rows * grid.cell_km))
    for (east, north), value in zip(grid.centres(), theta, strict=True):
        ax.text(east, north, f"{value:.3f}", ha="center", va="center", fontsize=7,
                color="white" if value < 0.6 * vmax else "black")
    fig.colorbar(image, ax=ax, label="probability")
    ax.grid(False)
    ax.set_xlabel("east (km)")
    ax.set_ylabel("north (km)")
    ax.set_title(title, fontsize=9)
    fig.text(0.5, -0.01, note, ha="center", va="top", fontsize=6.5)
    plotting.save(fig, *paths)


def main() -> None:
    spec = snakemake.params.spec
    alphabet = files.load_json(snakemake.input.alphabet)
    grid = Grid(alphabet["columns"], alphabet["rows"], alphabet["cell_km"])
    out = alphabet["output_grid"]
    output_grid = Grid(out["columns"], out["rows"], out["cell_km"])
    theta = files.load_npz(snakemake.input.data)["theta"]
    M = mechanisms.planar_geometric_remapped(grid, output_grid, spec["eps"])
    q = theta @ M
    best = ibu_theory.asymptotic_log_likelihood(q)
    rng = sampling.rng_for(snakemake.params.seed, "ibu_consistency", "theory", "fig06")
    starts = [np.full(grid.k, 1.0 / grid.k)] + [rng.dirichlet(np.ones(grid.k)) for _ in range(spec["starts"] - 1)]
    results = [estimators.ibu(M, q, theta0=start, **{**estimators.PLAIN_IBU, **spec["ibu"]}) for start in starts]
    distances = grid.distances()
    rows = [{"start": i, "start_kind": "uniform" if i == 0 else "Dirichlet(1)", "iterations": r.iterations,
             "capped": r.capped, "log_likelihood": r.log_likelihood, "max_log_likelihood": best,
             "below_max": best - r.log_likelihood, "max_abs_phiM_minus_q": float(np.abs(r.theta @ M - q).max()),
             "emd_to_theta_km": metrics.emd(theta, r.theta, distances),
             "max_abs_difference_to_start0": float(np.abs(r.theta - results[0].theta).max()),
             "rank_M": int(np.linalg.matrix_rank(M)), "k": grid.k, "k_out": output_grid.k}
            for i, r in enumerate(results)]
    files.save_rows(rows, list(rows[0]), snakemake.output.table)

    shown = results[:spec["shown"]]
    vmax = max(theta.max(), *(r.theta.max() for r in shown))
    paths = iter(snakemake.output.figures)
    setting = (f"sf_square: {grid.columns} x {grid.rows} cells of {grid.cell_km:g} km, planar geometric ε = "
               f"{spec['eps']:g}/km remapped to {output_grid.columns} x {output_grid.rows} cells of "
               f"{output_grid.cell_km:g} km (rank M = {rows[0]['rank_M']} < {grid.k})")
    heatmap(theta, grid, vmax, "Figure 6(a): original distribution (Gowalla)", setting, (next(paths), next(paths)))
    for panel, (row, r) in zip("bcd", zip(rows, shown, strict=False), strict=False):
        title = (f"Figure 6({panel}): IBU fixed point from start {row['start']} ({row['start_kind']})\n"
                 f"L = {r.log_likelihood:.12f}, EMD to θ = {row['emd_to_theta_km']:.4f} km")
        note = (f"IBU on q = θM (infinite data); L* = {best:.12f}; {plotting.stopping_note(spec['ibu'])}; "
                f"{r.iterations:,} iterations")
        heatmap(r.theta, grid, vmax, title, note, (next(paths), next(paths)))


jobs.run_or_exit(main, snakemake.log)
