"""Rule counts_published: the count paper's checkable numbers (NOTES section 8) beside ours, one row each.

The published values come from workflow/report/papers.yaml (params.published), typed there once from the paper's
text; ours are computed from privest.counts (closed forms, the LP and the property checker). `agrees`: ours rounds
to the published value (or, for a formula, matches it within 1e-6 on the whole grid). `construction`: for a printed
number that fixed one of our parameters (an alpha lost in extraction), which one: it agrees by construction.
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

    def row(where: str, quantity: str, paper: str, ours: str, tolerance: str, agrees: bool | str,
            construction: str = "") -> None:
        """One number beside the paper's; construction: the parameter of ours the printed number fixed, so that
        it agrees by construction (empty when it did not)."""
        rows.append({"where": where, "quantity": quantity, "paper": paper, "ours": ours, "tolerance": tolerance,
                     "agrees": agrees, "construction": construction})

    def fitted(key: str, alpha: float, what: str) -> str:
        return (f"the paper's alpha was lost in extraction; config constrained_counts.{key} = {alpha:.6g} was chosen "
                f"so that {what}")

    n, alpha = params.example1["n"], params.example1["alpha"]
    P = counts.gm(n, alpha)
    ratio = (1 - P[1, 1]) / P[1, 1]
    printed_ratio = params.published["example1_ratio"]
    row("Example 1", f"GM, n={n}, alpha={alpha:g}: P(wrong | input 1) / P(true | input 1)",
        f'{printed_ratio} ("eighteen times lower")', f"{ratio:.6f}", "rounds to the printed digits",
        rounds_to(ratio, printed_ratio), fitted("example1.alpha", alpha, f"this ratio, 2a/(1-a), is {printed_ratio}"))
    row("Example 1", "the same: P(0 | 1) = P(2 | 1), P(1 | 1), P(0 | 0)", "lost in extraction",
        f"{P[0, 1]:.4f}, {P[1, 1]:.4f}, {P[0, 0]:.4f}", "not judged", "")
    # The example's claims that do not follow from the fitted ratio: read off GM's matrix and the property checker.
    checked = counts.properties(P, alpha, tol=params.tolerance)
    others = np.delete(P[:, 1], 1)
    row("Example 1", f"GM, n={n}, alpha={alpha:g}: column honest (CH) at input 1, P(1 | 1) >= P(j | 1) for every j; "
        "the checker on the whole matrix", "no (IV-A: 'as demonstrated by Example 1, GM does not obey column "
        "honesty')", f"{'yes' if P[1, 1] >= others.max() else 'no'}: P(1 | 1) {P[1, 1]:.4f} against largest "
        f"P(j | 1) {others.max():.4f}; checker: CH {'holds' if checked['CH'] else 'fails'}", "exact",
        bool(P[1, 1] < others.max() and not checked["CH"]))
    row("Example 1", f"GM, n={n}, alpha={alpha:g}: weakly honest (WH) at input 1, P(1 | 1) >= 1/(n+1); the checker",
        "no (IV-A: 'GM does not always obey weak honesty, as is shown by Example 1')",
        f"{'yes' if P[1, 1] >= 1 / (n + 1) else 'no'}: P(1 | 1) {P[1, 1]:.4f} against 1/(n+1) {1 / (n + 1):.4f}; "
        f"checker: WH {'holds' if checked['WH'] else 'fails'}", "exact",
        bool(P[1, 1] < 1 / (n + 1) and not checked["WH"]))
    row("Example 1", f"GM, n={n}, alpha={alpha:g}: fair (F), the true answer as likely for every input; the checker",
        "no: far more likely for input 0 than for 1 (IV-A: 'Example 1 shows that GM is not a fair mechanism')",
        f"P(0 | 0) {P[0, 0]:.4f} against P(1 | 1) {P[1, 1]:.4f}; checker: F {'holds' if checked['F'] else 'fails'}",
        "P(0 | 0) > P(1 | 1); F fails", bool(P[0, 0] > P[1, 1] and not checked["F"]))

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
        row("Lemma 2, Figures 8-9", f"alpha={alpha:.6g}: the threshold 2a/(1-a)", f"{published:g}",
            f"{threshold:.4f}", "rounds to the printed digits", rounds_to(threshold, published),
            fitted("thresholds.alpha", alpha, f"2a/(1-a) is the printed {published:g}"))
        row("Lemma 2, Figures 8-9", f"alpha={alpha:.6g}: the smallest n >= 2 where the checker finds GM weakly honest",
            "n >= 2a/(1-a) (Lemma 2)", f"n = {first}", "n = ceil(2a/(1-a))",
            first == max(2, math.ceil(threshold - 1e-9)))

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
            rounds_to(diagonal[name], printed_value),
            fitted("fig07.alpha", alpha, f"GM's mean diagonal is the printed {printed_value}") if name == "GM" else "")
    row("Section I, Figure 7", quantity.format("WM"), "between EM and GM", f"{diagonal['WM']:.4f}", "EM <= WM <= GM",
        bool(diagonal["EM"] <= diagonal["WM"] <= diagonal["GM"]))

    # NOTES section 7: the paper's sentence defines WM with WH, RM and CM; its Figures 6, 7 and 9 fit WH + RM only.
    # Both are built (counts.wm, counts.wm_cm); each row shows both mechanisms' numbers.
    where, tol = "WM's definition", params.tolerance
    wm, wm_cm = counts.wm(n, alpha), counts.wm_cm(n, alpha)
    cm = {name: counts.properties(P, alpha, tol=tol)["CM"] for name, P in (("WM", wm), ("WM (CM)", wm_cm))}
    row(where, f"Section V-A: 'WM has WH, RM and CM' (checker at n={n}, alpha={alpha:.6g})", "CM holds",
        f"WM (WH + RM): CM {'holds' if cm['WM'] else 'fails'}; WM (CM): CM {'holds' if cm['WM (CM)'] else 'fails'}",
        f"checker, tol {tol:g}", cm["WM"])
    on_grid = {name: counts.verdict([counts.properties(counts.by_name(name, m, a), a, tol=tol)["CM"]
                                     for m in grid["n"] for a in grid["alpha"]]) for name in ("WM", "WM (CM)")}
    row(where, f"Figure 6: WM's CM entry (n in {grid['n']}, alpha in {grid['alpha']})", "—",
        f"WM: {on_grid['WM']}; WM (CM): {on_grid['WM (CM)']}", "exact", on_grid["WM"] == "—")
    middle = n // 2
    extreme = {name: (P[0, middle], P[1, middle]) for name, P in (("WM", wm), ("WM (CM)", wm_cm))}
    row(where, f"Figure 7: WM favours the extreme output for the middle input (P[0, {middle}] against P[1, {middle}],"
        f" n={n})", f"P[0, {middle}] > P[1, {middle}]",
        "; ".join(f"{name}: {a:.4f} against {b:.4f}" for name, (a, b) in extreme.items()), "exact",
        bool(extreme["WM"][0] > extreme["WM"][1]))
    alpha_b, n_b = params.fig09["alpha"][1], 20
    scores = {name: counts.loss(counts.by_name(name, n_b, alpha_b)) for name in ("WM", "WM (CM)", "GM")}
    row(where, f"Figure 9(b): WM meets GM's L0 score at n={n_b}, alpha={alpha_b:.6g}", "WM = GM",
        ", ".join(f"{name} {s:.6f}" for name, s in scores.items()), "1e-6",
        bool(abs(scores["WM"] - scores["GM"]) <= 1e-6))

    row("Section V", "the LP solver", "PyLPSolve [19] (lp_solve)", counts.solver_description(), "not judged", "")

    columns = ["where", "quantity", "paper", "ours", "tolerance", "agrees", "construction"]
    files.save_rows(rows, columns, snakemake.output.table)
    files.write_text(snakemake.output.markdown, "# Count paper: published numbers beside ours\n\n"
                  + tables.markdown_table(rows, columns))


jobs.run_or_exit(main, snakemake.log)
