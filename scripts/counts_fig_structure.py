"""Rule counts_fig_structure: Figures 3 and 4, GM and EM written out entry by entry (the symbolic form of each entry),
coloured by its value at one alpha."""

import numpy as np

from privest import counts
from privest_studies import jobs, plotting

SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def power(k: int) -> str:
    """alpha^k as text: '' for k = 0, 'α' for 1, 'α²' and so on."""
    return "" if k == 0 else "α" if k == 1 else "α" + str(k).translate(SUPERSCRIPT)


def gm_labels(n: int) -> list[list[str]]:
    """Figure 3: alpha^|i-j| / (1+alpha) on the first and last rows, (1-alpha) alpha^|i-j| / (1+alpha) inside."""
    def entry(j: int, i: int) -> str:
        top = power(abs(i - j)) or "1"
        return f"{top}/(1+α)" if j in (0, n) else f"(1-α){power(abs(i - j))}/(1+α)"

    return [[entry(j, i) for i in range(n + 1)] for j in range(n + 1)]


def em_labels(n: int) -> list[list[str]]:
    """Figure 4: y alpha^e(j, i), eq. (16)."""
    e = counts.em_exponents(n)
    return [[f"y{power(int(e[j, i]))}" for i in range(n + 1)] for j in range(n + 1)]


def draw(P: np.ndarray, labels, title: str, note: str, paths) -> None:
    size = P.shape[0]
    fig, ax = plotting.figure(figsize=(0.95 * size + 1.5, 0.8 * size + 1.2))
    image = plotting.count_mechanism_heatmap(ax, P, labels=labels)
    fig.colorbar(image, ax=ax, shrink=0.8, label="probability")
    ax.set_title(title)
    fig.text(0.5, -0.02, note, ha="center", va="top", fontsize=7, wrap=True)
    plotting.save(fig, *paths)


def main() -> None:
    n, alpha = snakemake.params.n, snakemake.params.alpha
    out = snakemake.output
    P = counts.gm(n, alpha)
    draw(P, gm_labels(n), f"Figure 3: the geometric mechanism GM, n = {n}",
         f"Colours: values at α = {alpha:g}. Diagonal {np.diag(P)[0]:.3f} at the ends, {np.diag(P)[1]:.3f} inside;"
         f" L0 score 2α/(1+α) = {counts.loss(P):.4f}.", out[:2])
    P = counts.em(n, alpha)
    y = counts.em_diagonal(n, alpha)
    draw(P, em_labels(n), f"Figure 4: the explicit fair mechanism EM, n = {n}",
         f"Colours: values at α = {alpha:g}, where y = 1 / Σ_j α^e(j, ⌊n/2⌋) = {y:.4f} (eq. 15);"
         f" L0 score (n+1)/n (1 - y) = {counts.loss(P):.4f}.", out[2:])


jobs.run_or_exit(main, snakemake.log)
