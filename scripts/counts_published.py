"""Rule counts_published: the count paper's checkable numbers (NOTES section 8) beside ours, one row each.

The published values come from workflow/report/papers.yaml (params.published), typed there once from the paper's
text; ours are computed from privest.counts (closed forms, the LP and the property checker). `agrees`: ours rounds
to the published value (or, for a formula, matches it within 1e-6 on the whole grid).
"""

import math

import numpy as np

from privest import counts
from privest_studies import files, jobs, tables


def rounds_to(ours: float, published: float) -> bool:
    """ours, rounded to the published value's decimals, equals it."""
    decimals = len(repr(float(published)).split(".")[1].rstrip("0")) if "." in repr(float(published)) else 0
    return round(ours, decimals) == round(published, decimals)


def cm_limit(n: int, tolerance: float) -> float:
    """The largest alpha at which GM on n is column monotone, by bisection with the checker (Lemma 3 says 1/2)."""
    low, high = 1e-6, 1 - 1e-6
    for _ in range(50):
        middle = (low + high) / 2
        low, high = (middle, high) if counts.properties(counts.gm(n, middle), middle, tol=tolerance)["CM"] else (
            low, middle)
    return low


def main() -> None:
    params = snakemake.params
    rows = []

    def row(where: str, quantity: str, paper: str, ours: str, tolerance: str, agrees: bool | str) -> None:
        rows.append({"where": where, "quantity": quantity, "paper": paper, "ours": ours, "tolerance": tolerance,
                     "agrees": agrees})

    n, alpha = params.example1["n"], params.example1["alpha"]
    P = counts.gm(n, alpha)
    ratio = (1 - P[1, 1]) / P[1, 1]
    row("Example 1", f"GM, n={n}, alpha={alpha:g}: P(wrong | input 1) / P(true | input 1)",
        f'{params.published["example1_ratio"]} ("eighteen times lower")', f"{ratio:.6f}",
        "rounds to the printed digits", rounds_to(ratio, params.published["example1_ratio"]))
    row("Example 1", "the same: P(0 | 1) = P(2 | 1), P(1 | 1), P(0 | 0)", "lost in extraction",
        f"{P[0, 1]:.4f}, {P[1, 1]:.4f}, {P[0, 0]:.4f}", "not judged", "")

    grid = params.grid
    pairs = [(n, a) for n in grid["n"] for a in grid["alpha"]]
    closed = max(abs(counts.loss(counts.gm(n, a)) - 2 * a / (1 + a)) for n, a in pairs)
    lp = max(abs(counts.loss(counts.optimal(n, a, "L0")) - 2 * a / (1 + a)) for n, a in pairs)
    where = f"n in {grid['n']}, alpha in {grid['alpha']}"
    row("Section IV-B", f"GM's L0 score: largest |score - 2a/(1+a)|, {where}", "2a/(1+a) for every n",
        f"{closed:.2e}", "<= 1e-12", closed <= 1e-12)
    row("Theorem 3", f"unconstrained L0 optimum (LP): largest |LP - 2a/(1+a)|, {where}", "GM is the optimum",
        f"{lp:.2e}", "<= 1e-6 (LP)", lp <= 1e-6)

    tolerance = params.tolerance
    for alpha in params.thresholds["alpha"]:
        threshold = counts.gm_weak_honesty_threshold(alpha)
        first = next(n for n in range(2, 10 * math.ceil(threshold) + 10)
                     if counts.properties(counts.gm(n, alpha), alpha, tol=tolerance)["WH"])
        published = params.published["weak_honesty_thresholds"].get(alpha, float("nan"))
        row("Lemma 2, Figures 8-9", f"alpha={alpha:.6g}: 2a/(1-a); the smallest n >= 2 where the checker finds GM WH",
            f"{published:g}", f"{threshold:.4f}; n = {first}", "rounds to the printed digits; n = ceil(2a/(1-a))",
            rounds_to(threshold, published) and first == max(2, math.ceil(threshold - 1e-9)))

    limits = [cm_limit(n, 1e-12) for n in grid["n"]]
    row("Lemma 3", f"the largest alpha at which GM is CM (checker, bisection), n in {grid['n']}", "1/2",
        ", ".join(f"{x:.6f}" for x in limits), "1e-6", bool(np.allclose(limits, 0.5, atol=1e-6)))

    n, alpha = params.fig07["n"], params.fig07["alpha"]
    diagonal = {name: np.diag(build(n, alpha)).mean() for name, build in
                (("EM", counts.em), ("GM", counts.gm), ("WM", counts.wm))}
    quantity = f"n={n}, alpha={alpha:.6g}: {{}}'s P(true answer) for uniform inputs (mean diagonal)"
    printed = "rounds to the printed digits"
    for name in ("EM", "GM"):
        printed_value = params.published["fig07_true_answer"][name]
        row("Section I, Figure 7", quantity.format(name), f"{printed_value}", f"{diagonal[name]:.4f}", printed,
            rounds_to(diagonal[name], printed_value))
    row("Section I, Figure 7", quantity.format("WM"), "between EM and GM", f"{diagonal['WM']:.4f}", "EM <= WM <= GM",
        bool(diagonal["EM"] <= diagonal["WM"] <= diagonal["GM"]))

    row("Section V", "the LP solver", "PyLPSolve [19] (lp_solve)", counts.solver_description(), "not judged", "")

    columns = ["where", "quantity", "paper", "ours", "tolerance", "agrees"]
    files.save_rows(rows, columns, snakemake.output.table)
    files.write_text(snakemake.output.markdown, "# Count paper: published numbers beside ours\n\n"
                  + tables.markdown_table(rows, columns))


jobs.run_or_exit(main, snakemake.log)
