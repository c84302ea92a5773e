"""Rule counts_published: the count paper's checkable numbers (decisions.md, section 8) beside ours, one row each, as
numbers.

The published values come from workflow/report/papers.yaml (params.published), typed there once from the paper's
text; ours are computed from privest.counts (closed forms, the LP and the property checker). Nothing is judged here:
each row holds our number (`value`), what the paper's claim compares it with (`relation`: rounds to, equals, below,
above, between, inside, or shown; `reference` and, for between and inside, `reference_high`: the paper's number, or
the value its claim implies), and the kind of number it is (`tolerance`: exact, closed form, LP, bisection or
printed digits), whose size the judge states (privest_studies.reproduction.checks_counts). `construction`: for a
printed number that fixed one of our parameters (an alpha lost in extraction), which one.
"""

import math

import numpy as np

from privest import counts
from privest_studies import files, jobs, tables

COLUMNS = ["where", "quantity", "paper", "ours", "value", "relation", "reference", "reference_high", "tolerance",
           "construction"]


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

    def row(where: str, quantity: str, paper: str, ours: str, value: float, relation: str, reference: float = math.nan,
            tolerance: str = "exact", reference_high: float = math.nan, construction: str = "") -> None:
        """One number of ours beside the paper's claim about it (see the module's docstring)."""
        rows.append({"where": where, "quantity": quantity, "paper": paper, "ours": ours, "value": value,
                     "relation": relation, "reference": reference, "reference_high": reference_high,
                     "tolerance": tolerance, "construction": construction})

    def fitted(key: str, alpha: float, what: str) -> str:
        return (f"the paper's alpha was lost in extraction; config constrained_counts.{key} = {alpha:.6g} was chosen "
                f"so that {what}")

    def held(checked: dict, names: tuple[str, ...]) -> str:
        return ", ".join(f"{name} {'holds' if checked[name] else 'fails'}" for name in names)

    n, alpha = params.example1["n"], params.example1["alpha"]
    P = counts.gm(n, alpha)
    ratio = (1 - P[1, 1]) / P[1, 1]
    printed_ratio = params.published["example1_ratio"]
    row("Example 1", f"GM, n={n}, alpha={alpha:g}: P(wrong | input 1) / P(true | input 1)",
        f'{printed_ratio} ("eighteen times lower")', f"{ratio:.6f}", ratio, "rounds to", printed_ratio,
        "printed digits",
        construction=fitted("example1.alpha", alpha, f"this ratio, 2a/(1-a), is {printed_ratio}"))
    row("Example 1", "the same: P(0 | 1) = P(2 | 1), P(1 | 1), P(0 | 0)", "lost in extraction",
        f"{P[0, 1]:.4f}, {P[1, 1]:.4f}, {P[0, 0]:.4f}", P[1, 1], "shown")
    # The example's claims that do not follow from the fitted ratio: read off GM's matrix and the property checker.
    checked = counts.properties(P, alpha, tol=params.tolerance)
    largest = np.delete(P[:, 1], 1).max()
    row("Example 1", f"GM, n={n}, alpha={alpha:g}: column honest (CH) at input 1: P(1 | 1) - largest P(j | 1)",
        "below 0 (IV-A: 'as demonstrated by Example 1, GM does not obey column honesty')",
        f"{P[1, 1] - largest:+.4f}: P(1 | 1) {P[1, 1]:.4f} against {largest:.4f}", P[1, 1] - largest, "below", 0.0)
    row("Example 1", f"GM, n={n}, alpha={alpha:g}: weakly honest (WH) at input 1: P(1 | 1) - 1/(n+1)",
        "below 0 (IV-A: 'GM does not always obey weak honesty, as is shown by Example 1')",
        f"{P[1, 1] - 1 / (n + 1):+.4f}: P(1 | 1) {P[1, 1]:.4f} against {1 / (n + 1):.4f}", P[1, 1] - 1 / (n + 1),
        "below", 0.0)
    row("Example 1", f"GM, n={n}, alpha={alpha:g}: fair (F): P(0 | 0) - P(1 | 1)",
        "above 0: far more likely for input 0 than for 1 (IV-A: 'Example 1 shows that GM is not a fair mechanism')",
        f"{P[0, 0] - P[1, 1]:+.4f}: P(0 | 0) {P[0, 0]:.4f} against P(1 | 1) {P[1, 1]:.4f}", P[0, 0] - P[1, 1],
        "above", 0.0)
    row("Example 1", f"GM, n={n}, alpha={alpha:g}: how many of CH, WH, F the property checker finds on the whole "
        "matrix", "0 (none: section IV-A)", held(checked, ("CH", "WH", "F")),
        sum(checked[name] for name in ("CH", "WH", "F")), "equals", 0.0)

    grid = params.grid
    pairs = [(n, a) for n in grid["n"] for a in grid["alpha"]]
    closed = max(abs(counts.loss(counts.gm(n, a)) - 2 * a / (1 + a)) for n, a in pairs)
    lp = max(abs(counts.loss(counts.optimal(n, a, "L0")) - 2 * a / (1 + a)) for n, a in pairs)
    where = f"n in {grid['n']}, alpha in {grid['alpha']}"
    row("Section IV-B", f"GM's L0 score: largest |score - 2a/(1+a)|, {where}", "0: 2a/(1+a) for every n",
        f"{closed:.2e}", closed, "equals", 0.0, "closed form")
    row("Theorem 3", f"unconstrained L0 optimum (LP): largest |LP - 2a/(1+a)|, {where}", "0: GM is the optimum",
        f"{lp:.2e}", lp, "equals", 0.0, "LP")

    tolerance = params.tolerance
    # Where the paper prints each threshold (section V-A): Figure 8(a)'s at its alpha, the others on Figure 9's panels.
    figure = {params.fig08["alpha"]: "Figure 8(a)"}
    for alpha in params.thresholds["alpha"]:
        threshold = counts.gm_weak_honesty_threshold(alpha)
        first = next(n for n in range(2, 10 * math.ceil(threshold) + 10)
                     if counts.properties(counts.gm(n, alpha), alpha, tol=tolerance)["WH"])
        published = params.published["weak_honesty_thresholds"].get(alpha, float("nan"))
        row(f"{figure.get(alpha, 'Figure 9')} (V-A)", f"alpha={alpha:.6g}: GM's weak-honesty threshold 2a/(1-a)",
            f"{published:g}", f"{threshold:.4f}", threshold, "rounds to", published, "printed digits",
            construction=fitted("thresholds.alpha", alpha, f"2a/(1-a) is the printed {published:g}"))
        expected = max(2, math.ceil(threshold - 1e-9))
        row("Lemma 2", f"alpha={alpha:.6g}: the smallest n >= 2 where the checker finds GM weakly honest",
            f"n = ceil(2a/(1-a)) = {expected} (Lemma 2: WH iff n >= 2a/(1-a))", f"n = {first}", first, "equals",
            expected)

    limits = [cm_limit(n, 1e-12) for n in grid["n"]]
    deviation = max(abs(x - 0.5) for x in limits)
    row("Lemma 3", f"the largest alpha at which GM is CM (checker, bisection), n in {grid['n']}: largest |limit - 1/2|",
        "0: 1/2 for every n", ", ".join(f"{x:.6f}" for x in limits), deviation, "equals", 0.0, "bisection")

    n, alpha = params.fig07["n"], params.fig07["alpha"]
    diagonal = {name: np.diag(build(n, alpha)).mean() for name, build in
                (("EM", counts.em), ("GM", counts.gm), ("WM", counts.wm))}
    quantity = f"n={n}, alpha={alpha:.6g}: {{}}'s P(true answer) for uniform inputs (mean diagonal)"
    for name in ("EM", "GM"):
        printed_value = params.published["fig07_true_answer"][name]
        row("Section I, Figure 7", quantity.format(name), f"{printed_value}", f"{diagonal[name]:.4f}", diagonal[name],
            "rounds to", printed_value, "printed digits",
            construction=fitted("fig07.alpha", alpha, f"GM's mean diagonal is the printed {printed_value}")
            if name == "GM" else "")
    row("Section I, Figure 7", quantity.format("WM"), "between EM's and GM's", f"{diagonal['WM']:.4f}",
        diagonal["WM"], "between", diagonal["EM"], reference_high=diagonal["GM"])

    # decisions.md, section 7: the paper's sentence defines WM with WH, RM and CM; its Figures 6, 7 and 9 fit WH + RM
    # only. Both are built (counts.wm, counts.wm_cm); each row shows both mechanisms' numbers.
    where, tol = "WM's definition", params.tolerance
    wm, wm_cm = counts.wm(n, alpha), counts.wm_cm(n, alpha)
    cm = {name: counts.properties(P, alpha, tol=tol)["CM"] for name, P in (("WM", wm), ("WM (CM)", wm_cm))}
    row(where, f"Section V-A: 'WM has WH, RM and CM': the checker's CM on WM at n={n}, alpha={alpha:.6g} (1 holds, "
        f"0 fails; checker tolerance {tol:g})", "1: CM holds",
        f"WM (WH + RM): CM {'holds' if cm['WM'] else 'fails'}; WM (CM): CM {'holds' if cm['WM (CM)'] else 'fails'}",
        float(cm["WM"]), "equals", 1.0)
    on_grid = {name: [counts.properties(counts.by_name(name, m, a), a, tol=tol)["CM"] for m in grid["n"]
                      for a in grid["alpha"]] for name in ("WM", "WM (CM)")}
    share = {name: float(np.mean(holds)) for name, holds in on_grid.items()}
    row(where, f"Figure 6: WM's CM entry: the share of grid points where the checker finds WM column monotone "
        f"(n in {grid['n']}, alpha in {grid['alpha']})", "— (depends: strictly between 0 and 1)",
        f"WM: {share['WM']:.3f} ({counts.verdict(on_grid['WM'])}); WM (CM): {share['WM (CM)']:.3f} "
        f"({counts.verdict(on_grid['WM (CM)'])})", share["WM"], "inside", 0.0, reference_high=1.0)
    middle = n // 2
    extreme = {name: (P[0, middle], P[1, middle]) for name, P in (("WM", wm), ("WM (CM)", wm_cm))}
    row(where, f"Figure 7: WM favours the extreme output for the middle input: P[0, {middle}] - P[1, {middle}] "
        f"(n={n})", "above 0", "; ".join(f"{name}: {a:.4f} against {b:.4f}" for name, (a, b) in extreme.items()),
        extreme["WM"][0] - extreme["WM"][1], "above", 0.0)
    alpha_b, n_b = params.fig09["alpha"][1], 20
    scores = {name: counts.loss(counts.by_name(name, n_b, alpha_b)) for name in ("WM", "WM (CM)", "GM")}
    row(where, f"Figure 9(b): WM meets GM's L0 score at n={n_b}, alpha={alpha_b:.6g}: WM's score - GM's", "0",
        ", ".join(f"{name} {s:.6f}" for name, s in scores.items()), scores["WM"] - scores["GM"], "equals", 0.0, "LP")

    row("Section V", "the LP solver", "PyLPSolve [19] (lp_solve)", counts.solver_description(), math.nan, "shown")

    files.save_rows(rows, COLUMNS, snakemake.output.table)
    shown = ["where", "quantity", "paper", "ours", "relation", "tolerance", "construction"]
    files.write_text(snakemake.output.markdown, "# Count paper: published numbers beside ours\n\n"
                     + tables.markdown_table(rows, shown))


jobs.run_or_exit(main, snakemake.log)
