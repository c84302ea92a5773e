"""One matplotlib style for every figure, and saving a figure as PDF and PNG atomically."""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from privest.io import atomic_path

STYLE = {
    "figure.dpi": 110,
    "savefig.dpi": 150,
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "legend.fontsize": 8,
    "legend.frameon": False,
    "pdf.fonttype": 42,
    "svg.hashsalt": "privest",
}

# One colour per method across every figure of the three papers.
METHOD_COLOURS = {
    "original": "black",
    "noisy": "0.55",
    "INV-N": "tab:orange",
    "INV-P": "tab:green",
    "IBU": "tab:blue",
    "GIBU": "tab:blue",
}


def figure(**kwargs) -> tuple[plt.Figure, object]:
    """A new figure with the house style."""
    plt.rcParams.update(STYLE)
    return plt.subplots(**kwargs)


def save(fig: plt.Figure, *paths: str | Path) -> None:
    """Write the figure to every path (format by extension), each atomically, then close it.

    PDFs carry no creation date, so reruns are byte-identical.
    """
    for path in paths:
        with atomic_path(path) as tmp:
            metadata = {"CreationDate": None} if str(path).endswith(".pdf") else {"Software": None}
            fig.savefig(tmp, format=Path(path).suffix[1:], metadata=metadata, bbox_inches="tight")
    plt.close(fig)


def stopping_note(stopping: dict) -> str:
    """The IBU stopping rule as printed on figures (NOTES 3: it is part of the result)."""
    return f"IBU stops at ΔL < {stopping['delta']:g} or {stopping['max_iter']:,} iterations"


def linear_distributions(ax, curves: dict[str, object], xlabel: str) -> None:
    """Distributions on the linear alphabet {0..k-1}, one line per named curve (original, noisy, a method)."""
    for name, p in curves.items():
        ax.plot(range(len(p)), p, color=METHOD_COLOURS.get(name), lw=1.6 if name != "noisy" else 1.0,
                ls="--" if name == "noisy" else "-", label=name)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("probability")
    ax.legend()


def boxplots_by_eps(ax, table, methods: list[str]) -> None:
    """Boxplots of EMD over runs: one group per eps, one box per method (IBU paper Figure 9)."""
    eps_values = sorted(table["eps"].unique())
    width = 0.8 / len(methods)
    for i, method in enumerate(methods):
        data = [table.loc[(table["eps"] == e) & (table["method"] == method), "emd"].to_numpy() for e in eps_values]
        positions = [j + (i - (len(methods) - 1) / 2) * width for j in range(len(eps_values))]
        parts = ax.boxplot(data, positions=positions, widths=width * 0.9, patch_artist=True, showfliers=True,
                           flierprops={"markersize": 2}, medianprops={"color": "black"})
        for box in parts["boxes"]:
            box.set_facecolor(METHOD_COLOURS.get(method, "white"))
            box.set_alpha(0.7)
        ax.plot([], [], color=METHOD_COLOURS.get(method), lw=6, alpha=0.7, label=method)
    ax.set_xticks(range(len(eps_values)), [f"{e:g}" for e in eps_values])
    ax.set_xlabel("ε")
    ax.set_ylabel("EMD to the original distribution")
    ax.legend()
