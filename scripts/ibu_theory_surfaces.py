"""Rule ibu_theory_surfaces: Figures 3 and 5, the log-likelihood over the 2-simplex, its flat directions and MLEs."""

import numpy as np

from privest import estimators
from privest_studies import files, ibu_theory, jobs, plotting

EDGE_POINTS = 1001  # points of the edge (1,0,0)-(0,0,1) on which L is evaluated for the table


def vector(v: np.ndarray) -> str:
    return "(" + " ".join(f"{x:.6g}" for x in np.where(np.abs(v) < 1e-12, 0.0, v)) + ")"


def direction(w: np.ndarray) -> str:
    """A flat direction scaled to largest entry 1, first non-zero entry positive: (1 0 -1) for e1 - e3."""
    w = w / np.abs(w).max()
    return vector(w if w[np.flatnonzero(np.abs(w) > 1e-12)[0]] > 0 else -w)


def panel(figure: str, letter: str, equation: int, A: np.ndarray, observed: list[int], resolution: int,
          stopping: dict, paths: tuple[str, str]) -> dict:
    counts = np.bincount(np.asarray(observed) - 1, minlength=3)
    points = ibu_theory.simplex_lattice(resolution)
    values = ibu_theory.log_likelihood(points, A, counts)
    flats = ibu_theory.flat_directions(A[:, counts > 0])
    t = np.linspace(0, 1, EDGE_POINTS)
    edge = ibu_theory.log_likelihood(np.column_stack([t, np.zeros_like(t), 1 - t]), A, counts)
    mle = estimators.ibu(A, counts, **{**estimators.PLAIN_IBU, **stopping})
    ends = [ibu_theory.segment_in_simplex(mle.theta, w) for w in flats]
    unique = all(np.abs(a - b).max() < 1e-9 for a, b in ends)

    fig = plotting.figure(figsize=(9.6, 4.6))[0]
    fig.clear()
    surface = fig.add_subplot(1, 2, 1, projection="3d")
    surface.plot_trisurf(points[:, 0], points[:, 2], values, cmap="viridis", linewidth=0, antialiased=True,
                         rasterized=True)
    if len(flats):
        surface.plot(t, 1 - t, edge, color="tab:red", lw=2.2, ls="--", zorder=10)
    surface.set_xlabel("θ1")
    surface.set_ylabel("θ3")
    surface.set_zlabel("L(θ)", labelpad=8)
    surface.view_init(elev=22, azim=40)
    ax = fig.add_subplot(1, 2, 2)
    filled = ax.tricontourf(points[:, 0], points[:, 2], values, levels=24, cmap="viridis")
    ax.tricontour(points[:, 0], points[:, 2], values, levels=24, colors="white", linewidths=0.4, alpha=0.6)
    fig.colorbar(filled, ax=ax, label="L(θ)")
    if len(flats):
        ax.plot([1, 0], [0, 1], color="tab:red", lw=2.2, ls="--", zorder=4,
                label="edge (1,0,0)–(0,0,1): L constant along it")
    for a, b in ends:
        if np.abs(a - b).max() > 1e-9:
            ax.plot([a[0], b[0]], [a[2], b[2]], color="orange", lw=3, zorder=3, label="the MLEs (a segment)")
    ax.plot(mle.theta[0], mle.theta[2], "o", color="orange", mec="black", ms=6, zorder=5, clip_on=False,
            label=f"IBU's MLE {vector(mle.theta)}")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_aspect("equal")
    ax.set_xlabel("θ1   (θ2 = 1 − θ1 − θ3)")
    ax.set_ylabel("θ3")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), fontsize=7, ncol=1)
    shown = "{" + ", ".join(map(str, observed)) + "}"
    verdict = ("strictly concave" if not len(flats) else
               f"not strictly concave: flat along {direction(flats[0])}; MLE {'unique' if unique else 'not unique'}")
    fig.suptitle(f"Figure {int(figure[3:])}({letter}): L(θ) with mechanism ({equation}) and observations {shown}\n"
                 f"{verdict}",
                 fontsize=10)
    fig.text(0.02, 0.02, f"IBU from uniform; {plotting.stopping_note(stopping)}", ha="left", va="bottom", fontsize=7)
    plotting.save(fig, *paths)
    return {"figure": figure, "panel": letter, "observations": shown, "strictly_concave": not len(flats),
            "flat_directions": " ".join(direction(w) for w in flats) or "none",
            "edge_min": float(edge.min()), "edge_max": float(edge.max()),
            "edge_spread": float(edge.max() - edge.min()), "mle": vector(mle.theta),
            "mle_log_likelihood": float(ibu_theory.log_likelihood(mle.theta, A, counts)),
            "lattice_max": float(values.max()), "mle_unique": bool(unique), "ibu_iterations": mle.iterations,
            "ibu_capped": mle.capped}


def main() -> None:
    outputs = iter(snakemake.output.figures)
    rows = [panel(p["figure"], p["letter"], p["equation"], np.asarray(p["mechanism"], dtype=np.float64), p["observed"],
                  snakemake.params.resolution, snakemake.params.stopping, (next(outputs), next(outputs)))
            for p in snakemake.params.panels]
    files.save_rows(rows, list(rows[0]), snakemake.output.table)


jobs.run_or_exit(main, snakemake.log)
