"""Rule counts_scores: Figure 9, the L0 scores of GM, WM, WM (CM), EM and UM against n for each alpha, with the LP
that asks for WH alone (the curve that meets GM at n = 2a/(1-a), Lemma 2) and GM's weak-honesty threshold."""

from privest import counts
from privest_studies import files, jobs


def main() -> None:
    rows = []
    grid = [(alpha, n) for alpha in snakemake.params.alpha for n in snakemake.params.n]
    progress = jobs.Progress("counts_scores", [(n + 1) ** 2 for _, n in grid])
    for alpha, n in progress.each(grid, lambda g: f"LP at alpha={g[0]:g}, n={g[1]}"):
        threshold = counts.gm_weak_honesty_threshold(alpha)
        scores = {name: counts.loss(counts.by_name(name, n, alpha)) for name in counts.MECHANISMS}
        scores["LP-WH"] = counts.loss(counts.optimal(n, alpha, "L0", ("WH", "S")))
        rows += [{"alpha": alpha, "n": n, "mechanism": name, "score": score, "threshold": threshold,
                  "em_diagonal": counts.em_diagonal(n, alpha)} for name, score in scores.items()]
    files.save_rows(rows, ["alpha", "n", "mechanism", "score", "threshold", "em_diagonal"], snakemake.output[0])


jobs.run_or_exit(main, snakemake.log)
