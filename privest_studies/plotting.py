"""One matplotlib style for every figure, and saving a figure as PDF and PNG atomically."""

import math
import re
from pathlib import Path

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.lines
import matplotlib.pyplot as plt
import matplotlib.ticker

from privest_studies.files import atomic_path

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
    # The count paper's mechanisms.
    "GM": "tab:red",
    "WM": "tab:purple",
    "WM (CM)": "tab:pink",
    "EM": "tab:green",
    "UM": "0.45",
    "LP-WH": "tab:orange",
    # The free-will paper's estimators (GIBU above); -N normalisation, -P projection.
    "[INV]_R-N": "tab:brown",
    "[INV]_R-P": "tab:olive",
    "[IBU]_R": "tab:cyan",
    "[RAP]_R-N": "tab:brown",
    "[RAP]_R-P": "tab:olive",
    "[INV]_M-N": "tab:orange",
    "[INV]_M-P": "tab:green",
    "[IBU]_M": "tab:red",
    "[RAP]_M-N": "tab:orange",
    "[RAP]_M-P": "tab:green",
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
    """The IBU stopping rule as printed on figures (decisions.md, section 3: it is part of the result)."""
    return f"IBU stops at ΔL < {stopping['delta']:g} or {stopping['max_iter']:,} iterations"


def linear_distributions(ax, curves: dict[str, object], xlabel: str) -> None:
    """Distributions on the linear alphabet {0..k-1}, one line per named curve (original, noisy, a method)."""
    for name, p in curves.items():
        ax.plot(range(len(p)), p, color=METHOD_COLOURS.get(name), lw=1.6 if name != "noisy" else 1.0,
                ls="--" if name == "noisy" else "-", label=name)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("probability")
    ax.legend()


def literal(text: str) -> str:
    """Text of the data's or the config's (a unit, a column or category name) as matplotlib draws it literally: each
    $ escaped, so that no mathtext is parsed ('US$ per 1000 $' keeps its dollars; '$\\frac{a}$ years' cannot fail the
    figure job)."""
    return str(text).replace("$", "\\$")


def _unit(alphabet: dict) -> str:
    """The alphabet's unit of distance as a figure prints it (km on a grid, else index steps by default)."""
    return literal(alphabet.get("unit") or ("km" if alphabet["kind"] == "planar" else "index steps"))


def error_label(alphabet: dict) -> str:
    """The y label of an error axis on an alphabet (an alphabet file's dict): the EMD in the alphabet's unit (km on a
    grid, index steps or the data's unit on a linear alphabet), or the total variation distance on categories."""
    if alphabet["kind"] == "categorical":
        return "total variation distance to the original distribution"
    return f"EMD to the original distribution ({_unit(alphabet)})"


def alphabet_label(alphabet: dict) -> str:
    """How a figure names an alphabet (an alphabet file's dict): its own label, or one made from its size."""
    if "label" in alphabet:
        return literal(alphabet["label"])
    if alphabet["kind"] == "planar":
        region = f"{alphabet['region'].replace('_', ' ')}: " if alphabet.get("region") else ""
        return f"{region}{alphabet['columns']} x {alphabet['rows']} cells of {alphabet['cell_km']:g} km"
    if alphabet["kind"] == "categorical":
        return f"{alphabet['k']} categories"
    return f"X = {{0..{alphabet['k'] - 1}}}"


METRIC_KINDS = ("geometric", "laplace", "exponential")


def eps_label(alphabet: dict, kinds: list[str], log: bool = False) -> str:
    """The x label of an eps axis: the metric mechanisms' eps is per unit of distance (per km, per index step, per
    unit of a binned column), the others' per report; on a numeric alphabet every mechanism's eps is its LDP level
    over [min, max] (``experiment.METRIC_SCALE``)."""
    unit = _unit(alphabet)
    metric = [kind for kind in kinds if kind in METRIC_KINDS]
    scale = ", log scale" if log else ""
    if alphabet.get("numeric"):
        return f"ε (LDP over [{alphabet['min']:g}, {alphabet['max']:g}]{scale})"
    if alphabet["kind"] == "categorical" or not metric:
        return f"ε (privacy parameter{scale})"
    if len(metric) == len(kinds):
        return f"ε per unit of distance ({unit}{scale})"
    return f"ε (privacy parameter{scale}; the metric mechanisms' per unit of distance, {unit})"


def log_scale_if_wide(ax, values, axis: str = "y") -> bool:
    """A log scale on ``axis`` where the positive values span more than a decade; returns whether it is log."""
    values = np.asarray(values, dtype=np.float64)
    values = values[np.isfinite(values) & (values > 0)]
    wide = values.size > 0 and values.max() > 10 * values.min()
    if wide:
        (ax.set_yscale if axis == "y" else ax.set_xscale)("log")
        # plain numbers (0.5, 20) rather than 5 x 10^-1, 2 x 10^1
        plain = matplotlib.ticker.FuncFormatter(lambda value, _: f"{value:g}")
        minor = matplotlib.ticker.LogFormatter(labelOnlyBase=False, minor_thresholds=(1.5, 0.6))
        target = ax.yaxis if axis == "y" else ax.xaxis
        minor.set_axis(target)
        target.set_major_formatter(plain)
        target.set_minor_formatter(matplotlib.ticker.FuncFormatter(
            lambda value, position: f"{value:g}" if minor(value, position) else ""))
    return bool(wide)


def value_ticks(ax, values, axis: str = "x", integers: bool = False) -> None:
    """Ticks at ``values`` only, labelled as written in a config: integers with thousands separators (1,000 rather
    than 1,000.0) or numbers as %g (0.5, 1, 8 rather than 5 x 10^-1), on a linear or log axis."""
    values = sorted({float(v) for v in values})
    labels = [f"{round(v):,}" if integers else f"{v:g}" for v in values]
    (ax.set_xticks if axis == "x" else ax.set_yticks)(values, labels)
    (ax.xaxis if axis == "x" else ax.yaxis).set_minor_locator(matplotlib.ticker.NullLocator())


def _mantissa(value: float) -> int:
    """The leading digit of a tick's value (3 for 0.03 and 300)."""
    value = abs(float(value))
    return round(value / 10 ** math.floor(math.log10(value))) if value > 0 else 0


def drop_overlapping_tick_labels(fig, pad: float = 2.0) -> None:
    """Blank the tick labels that would overprint another on any axis of ``fig`` (a log axis labels some minor ticks:
    '0.009' ran into '0.01'): the major ticks' labels are kept first (the two ends, then the rest in order), then the
    minor ones (mantissas 2, 5, 3, 4, 6, 7, 8, 9 in turn), each where its box, ``pad`` pixels wider, overlaps none
    kept. The ticks are then fixed where they are drawn now (the axis limits too), so saving draws the same."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    priority = {2: 0, 5: 1, 3: 2, 4: 3, 6: 4, 7: 5, 8: 6, 9: 7}
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        for axis, limits in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
            low, high = sorted(limits)
            ticks = {}
            for minor in (False, True):
                locs = axis.get_minorticklocs() if minor else axis.get_majorticklocs()
                labels = [t.label1 for t in (axis.get_minor_ticks if minor else axis.get_major_ticks)(len(locs))]
                ticks[minor] = [(loc, label.get_text() if label.get_visible() else "", label)
                                for loc, label in zip(locs, labels, strict=True)]
            shown = [(minor, i) for minor in (False, True) for i, (loc, text, _) in enumerate(ticks[minor])
                     if text and low <= loc <= high]
            if not shown:
                continue
            majors = [i for minor, i in shown if not minor]
            ends = (majors[0], majors[-1]) if majors else ()
            order = {item: (0, 0 if item[1] in ends else 1, item[1]) if not item[0]
                     else (1, priority.get(_mantissa(ticks[True][item[1]][0]), 8), item[1]) for item in shown}
            kept, boxes = set(), []
            for item in sorted(shown, key=order.get):
                box = ticks[item[0]][item[1]][2].get_window_extent(renderer).padded(pad)
                if not any(box.overlaps(other) for other in boxes):
                    kept.add(item)
                    boxes.append(box)
            for minor in (False, True):
                locs = [loc for loc, _, _ in ticks[minor]]
                labels = [text if (minor, i) in kept else "" for i, (_, text, _) in enumerate(ticks[minor])]
                axis.set_ticks(locs, labels, minor=minor)
            (ax.set_xlim if axis is ax.xaxis else ax.set_ylim)(limits)  # set_ticks widens them to every tick


LINE_STYLES = ("-", "--", ":", "-.", (0, (5, 1, 1, 1, 1, 1)), (0, (1, 3)))


def mean_sd(rows, by: str, metric: str = "emd") -> tuple[np.ndarray, np.ndarray, np.ndarray] | str:
    """One method's score rows as (x, mean, s.d.) over runs per value of column ``by``, or, where it cannot run, the
    reason (the note of its NaN rows, the papers' "NA")."""
    if rows.empty or rows[metric].isna().all():
        return rows["note"].dropna().iloc[0] if not rows.empty and rows["note"].notna().any() else "not run"
    stats = rows.groupby(by)[metric].agg(["mean", "std"]).sort_index()
    return stats.index.to_numpy(), stats["mean"].to_numpy(), np.nan_to_num(stats["std"].to_numpy())


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


POST = {"N": "normalisation", "P": "projection"}


def method_label(method: str) -> str:
    """'[INV]_M-P' -> '[INV]_M projection' in mathtext."""
    match = re.fullmatch(r"\[(\w+)\]_(\w)(?:-(\w+))?", method)
    if not match:
        return method
    name, kind, post = match.groups()
    text = rf"$[\mathrm{{{name}}}]_\mathrm{{{kind}}}$"
    return f"{text} {POST.get(post, post)}" if post else text


def emd_bands_by_n(ax, table, methods: list[str], metric: str = "emd", labels: dict[str, str] | None = None
                   ) -> list[str]:
    """EMD (or another score column, ``metric``) against the number of users n: one line per method, the mean over
    runs with a +-1 s.d. band (free-will Figures 2-14), labelled ``labels[method]`` or the method's name; returns the
    notes of methods that cannot run (NA)."""
    notes = []
    for method in methods:
        band = mean_sd(table[table["method"] == method], "n", metric)
        if isinstance(band, str):
            notes.append(f"{method}: {band}")
            continue
        n, mean, sd = band
        colour = METHOD_COLOURS.get(method)
        style = "--" if method.endswith("-N") else "-"
        label = (labels or {}).get(method, method_label(method))
        ax.plot(n, mean, style, marker="o", ms=3.5, lw=1.5, color=colour, label=label)
        ax.fill_between(n, np.maximum(mean - sd, mean * 0.05), mean + sd, color=colour, alpha=0.18, lw=0)
    return notes


def count_mechanism_heatmap(ax, P, title: str = "", labels=None, vmax: float | None = None):
    """A count mechanism in the count paper's layout: P[j, i] with columns = inputs i and rows = outputs j (output 0
    at the top), each cell annotated with its value (or with ``labels[j][i]``). Returns the image for a colour bar."""
    P = np.asarray(P)
    image = ax.imshow(P, cmap="Blues", vmin=0, vmax=P.max() if vmax is None else vmax, aspect="equal")
    size = P.shape[0]
    font = 7 if size <= 6 else 5.5 if size <= 9 else 4
    for j in range(size):
        for i in range(size):
            text = labels[j][i] if labels is not None else (f"{P[j, i]:.2f}".lstrip("0") if P[j, i] >= 5e-3 else "0")
            colour = "white" if P[j, i] > 0.6 * image.norm.vmax else "black"
            ax.text(i, j, text, ha="center", va="center", fontsize=font, color=colour)
    ax.set_xticks(range(size))
    ax.set_yticks(range(size))
    ax.tick_params(labelsize=7, length=0)
    ax.set_xlabel("input i (true count)")
    ax.set_ylabel("output j (reported count)")
    ax.grid(False)
    ax.set_title(title)
    return image


def planar_heatmap(ax, values, spec: dict, norm=None, cmap: str = "viridis"):
    """Values on the cells of a planar alphabet file (cell index = row * columns + column, row 0 the southern edge)
    as an image in km east and north of the region's south-west corner. Returns the image for a colour bar."""
    columns, rows, cell = int(spec["columns"]), int(spec["rows"]), float(spec["cell_km"])
    image = ax.imshow(np.asarray(values, dtype=np.float64).reshape(rows, columns), origin="lower", cmap=cmap,
                      norm=norm, extent=(0, columns * cell, 0, rows * cell), interpolation="nearest")
    ax.set_xlabel("km east")
    ax.set_ylabel("km north")
    ax.grid(False)
    return image


def thumbnail(source: str | Path, target: str | Path, width: int) -> None:
    """A copy of a PNG at most `width` pixels wide (aspect kept, 8-bit palette), small enough to commit."""
    from PIL import Image  # matplotlib's own dependency

    with Image.open(source) as image:
        image = image.convert("RGB")
        image.thumbnail((width, width * image.height // image.width + 1), Image.Resampling.LANCZOS)
        with atomic_path(target) as tmp:
            image.quantize(colors=256).save(tmp, format="PNG", optimize=True)
