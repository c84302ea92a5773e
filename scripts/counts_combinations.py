"""Rule counts_combinations: Figure 8, the L0 optimum of each of the nine property combinations with WH (section
V-A), with GM's and EM's scores, over an n grid at one alpha (panel a) or an alpha grid at one n (panel b)."""

from privest import counts
from privest_studies import files, jobs


def main() -> None:
    rows = []
    grid = [(n, alpha) for n in snakemake.params.n for alpha in snakemake.params.alpha]
    progress = jobs.Progress(f"counts_combinations {snakemake.wildcards.panel}", [(n + 1) ** 2 for n, _ in grid])
    for n, alpha in progress.each(grid, lambda g: f"{len(counts.COMBINATIONS)} LPs at n={g[0]}, alpha={g[1]:g}"):
        rows.append({"n": n, "alpha": alpha, "mechanism": "GM", "score": counts.gm_score(alpha)})
        rows.append({"n": n, "alpha": alpha, "mechanism": "EM", "score": counts.loss(counts.em(n, alpha))})
        for combination in counts.COMBINATIONS:
            P = counts.optimal(n, alpha, "L0", ("WH", *combination))
            rows.append({"n": n, "alpha": alpha, "mechanism": "+".join(("WH", *combination)),
                         "score": counts.loss(P)})
    rows = [{"panel": snakemake.wildcards.panel, **row} for row in rows]
    files.save_rows(rows, ["panel", "n", "alpha", "mechanism", "score"], snakemake.output[0])


jobs.run_or_exit(main, snakemake.log)
