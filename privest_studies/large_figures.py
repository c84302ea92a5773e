"""The figures of frequent items on a large domain, for the large-domains study (``privest_studies.large_domains``,
rule ld_figures) and an own study's large alphabet (``privest_studies.own_large``): against eps, a row per n, the
mean absolute and the largest error of the top items' frequencies (log y), the precision, recall and normalised
cumulative rank of the top items found, mean over runs; one colour per protocol, the unbiased estimate solid, the
candidate MLE dashed, a heavy-hitter protocol's own list dotted.
"""

from collections.abc import Callable, Sequence

import pandas as pd
from matplotlib.lines import Line2D

from privest_studies import plotting
from privest_studies.large_domains import FOUND, MLE, UNBIASED

__all__ = ["METRICS", "draw"]

METRICS = {"mae": "mean |error|, top {top} (share of users)",
           "max_error": "largest |error|, top {top} (share of users)", "precision": "precision of the top {top} found",
           "recall": "recall of the top {top} found", "ncr": "normalised cumulative rank, top {top}"}
STYLES = {UNBIASED: ("-", "o"), MLE: ("--", "x"), FOUND: (":", "s")}
LABELS = {UNBIASED: "unbiased estimate (Sketch.estimate)", MLE: "candidate MLE (GIBU, candidates + other)",
          FOUND: "heavy-hitter protocol's own list"}


def draw(lines: pd.DataFrame, protocols: Sequence[str], top: int, title: str, notes: Sequence[str],
         panel: Callable[[int], str]):
    """One figure of summary lines (``large_domains.SUMMARY_COLUMNS``, one dataset): a row of ``METRICS`` panels per
    n (titled ``panel(n)``), a line per (protocol of ``protocols`` present, method); ``title`` above, ``notes`` (one
    string a line) below. Returns the matplotlib figure."""
    sizes = sorted(lines["n"].unique())
    fig, axes = plotting.figure(nrows=len(sizes), ncols=len(METRICS), figsize=(3.75 * len(METRICS),
                                                                               3.4 * len(sizes) + 1.6), squeeze=False)
    shown = [p for p in protocols if (lines["protocol"] == p).any()]
    colours = {p: f"C{i % 10}" for i, p in enumerate(shown)}
    for row, n in zip(axes, sizes, strict=True):
        for ax, metric in zip(row, METRICS, strict=True):
            for protocol in shown:
                for method, (style, marker) in STYLES.items():
                    line = lines[(lines["protocol"] == protocol) & (lines["method"] == method)
                                 & (lines["n"] == n)].sort_values("eps")
                    if len(line):
                        ax.plot(line["eps"], line[f"{metric}_mean"], linestyle=style, marker=marker, markersize=4,
                                color=colours[protocol], linewidth=1.3)
            if metric in ("mae", "max_error"):
                ax.set_yscale("log")
            else:
                ax.set_ylim(-0.03, 1.03)
            ax.set_xticks(sorted(lines["eps"].unique()))
            ax.set_xlabel("ε (privacy level of each report)")
            ax.set_ylabel(METRICS[metric].format(top=top))
            ax.set_title(panel(int(n)), fontsize=9)
    handles = [Line2D([], [], color=colours[p], linewidth=2, label=p.upper()) for p in shown]
    handles += [Line2D([], [], color="0.3", linestyle=style, marker=marker, label=LABELS[method])
                for method, (style, marker) in STYLES.items() if (lines["method"] == method).any()]
    fig.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 1.0 - 0.55 / fig.get_figheight()),
               ncol=len(handles), fontsize=8)
    fig.suptitle(title, fontsize=10.5, y=1.0)
    fig.subplots_adjust(top=1.0 - 1.3 / fig.get_figheight(), hspace=0.45, wspace=0.42,
                        bottom=0.8 / fig.get_figheight())
    fig.text(0.5, -0.01, "\n".join(notes), ha="center", va="top", fontsize=7.5)
    return fig
