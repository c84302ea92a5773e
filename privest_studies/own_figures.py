"""The figures of a researcher's own study (rule own_study_figure; config key ``studies``): the error of each estimate
to the original distribution over the runs of each point, from the study's tidy scores.

    an eps grid        boxplots over runs, one box per method at each eps
    an n grid          the mean over runs with a shaded band of +-1 s.d., one line per method, against n
    a comparison       the same against eps, a colour per mechanism and a line style per estimator
    rounds             the mean over runs with its band against the round, a panel per point (eps or n), and on a
                       right axis the eps the round's users have spent so far (mean and largest over users)

A panel holds at most ``MOST_LINES`` lines (or boxes at an eps): beyond that the figure has a panel per estimator (a
comparison) or per few estimator families (the others), on a shared error axis. One legend, to the right of the
panels, names the colours, line styles, the band and the mark of an estimate the iteration cap stopped (a ring
around a mean, a cross on a run); the footer says what the lines, bands and boxes are, the runs and the stopping rule.
Tick labels that would overprint one another are dropped (``plotting.drop_overlapping_tick_labels``).
"""

import math
from collections.abc import Sequence
from typing import TypeVar

import matplotlib.lines
import matplotlib.patches
import numpy as np

from privest import protocols
from privest_studies import own_study, plotting
from privest_studies.experiment import FAMILIES, KIND_NAMES, RAW_SUFFIX, Experiment, describe

T = TypeVar("T")
MOST_LINES = 6
"""The most lines (or boxes at one eps) a panel draws; more go to further panels."""
BAND = "± 1 s.d. over runs"
RING = {"marker": "o", "ms": 10, "mfc": "none", "mec": "black", "mew": 1.2, "linestyle": "none"}
"""The ring drawn around a mean whose runs include one that the iteration cap stopped."""
SPENT_MEAN = {"color": "0.55", "lw": 3.0, "alpha": 0.45, "linestyle": "-"}
SPENT_MAX = {"color": "0.35", "marker": "v", "ms": 4.5, "linestyle": "none"}
"""The rounds figure's eps spent (right axis): a wide pale line and small triangles, unlike any method's line style."""
CROSS = {"marker": "x", "ms": 6, "color": "black", "mew": 1.4, "linestyle": "none"}
"""The cross drawn on each run of a boxplot that the iteration cap stopped."""
TAB10 = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown", "tab:pink", "tab:gray",
         "tab:olive", "tab:cyan")


def facets(groups: Sequence[Sequence[T]], most: int = MOST_LINES) -> list[list[T]]:
    """The lines of each panel: the groups packed in order into panels of at most ``most`` lines, a group kept whole
    in one panel where it fits (one larger than ``most`` cut into chunks of ``most``); one panel when all fit."""
    panels: list[list[T]] = []
    for group in groups:
        for start in range(0, len(group), most):
            chunk = list(group[start:start + most])
            if panels and len(panels[-1]) + len(chunk) <= most:
                panels[-1] += chunk
            else:
                panels.append(chunk)
    return panels


def method_panels(methods: Sequence[str], most: int = MOST_LINES) -> list[list[str]]:
    """The methods of each panel: all in one where they are at most ``most``, else packed by estimator family (INV-N
    and INV-P, say, stay together)."""
    family_of: dict[str, str] = {}
    for name, family in FAMILIES.items():
        for method in family.methods:
            family_of.setdefault(method, name)
    groups: dict[str, list[str]] = {}
    for method in methods:
        groups.setdefault(family_of.get(method, method), []).append(method)
    return facets(list(groups.values()), most)


def comparison_panels(mechanisms: Sequence[str], methods: Sequence[str], most: int = MOST_LINES
                      ) -> list[list[tuple[str, str]]]:
    """The (mechanism, method) lines of each panel of a comparison: all in one where they are at most ``most``, else
    one panel per method with its mechanisms (at most ``most`` a panel), so that a panel compares the mechanisms
    under one estimator."""
    if len(mechanisms) * len(methods) <= most:
        return [[(kind, method) for method in methods for kind in mechanisms]]
    return [[(kind, method) for kind in mechanisms[start:start + most]]
            for method in methods for start in range(0, len(mechanisms), most)]


def colours(names: Sequence[str]) -> dict[str, str]:
    """A distinct colour per name: the house's method colour (``plotting.METHOD_COLOURS``) unless another name of the
    figure took it, else the next free one of matplotlib's ten."""
    result: dict[str, str] = {}
    for name in names:
        colour = plotting.METHOD_COLOURS.get(name)
        if colour is None or colour in result.values():
            colour = next((c for c in TAB10 if c not in result.values()), "black")
        result[name] = colour
    return result


def _capped(rows) -> np.ndarray:
    return rows["capped"].map(lambda value: str(value) in ("True", "true", "1")).to_numpy(dtype=bool)


def _line(ax, rows, x: str, error: str, colour: str, style) -> str | None:
    """One method's mean over runs against ``x`` with its +-1 s.d. band (the lower edge kept at 5% of the mean, so that
    a log axis can draw it) and a ring at each point where the cap stopped a run; the reason where it cannot run."""
    band = plotting.mean_sd(rows, x, error)
    if isinstance(band, str):
        return band
    xs, mean, sd = band
    ax.plot(xs, mean, linestyle=style, marker="o", ms=3.5, lw=1.5, color=colour)
    ax.fill_between(xs, np.maximum(mean - sd, mean * 0.05), mean + sd, color=colour, alpha=0.15, lw=0)
    stopped = rows.assign(stopped=_capped(rows)).groupby(x)["stopped"].any().reindex(xs).to_numpy(dtype=bool)
    ax.plot(xs[stopped], mean[stopped], **RING)
    return None


def _boxes(ax, table, methods: Sequence[str], error: str, colour: dict[str, str]) -> None:
    """Boxplots over runs, one group per eps and one box per method, a cross on each run the cap stopped."""
    eps_values = sorted(table["eps"].unique())
    width = 0.8 / len(methods)
    for i, method in enumerate(methods):
        offset = (i - (len(methods) - 1) / 2) * width
        for j, eps in enumerate(eps_values):
            rows = table[(table["eps"] == eps) & (table["method"] == method)]
            values = rows[error].to_numpy(dtype=np.float64)
            parts = ax.boxplot([values[np.isfinite(values)]], positions=[j + offset], widths=width * 0.9,
                               patch_artist=True, showfliers=True, flierprops={"markersize": 2},
                               medianprops={"color": "black"})
            parts["boxes"][0].set_facecolor(colour[method])
            parts["boxes"][0].set_alpha(0.7)
            stopped = _capped(rows)
            ax.plot(np.full(stopped.sum(), j + offset), values[stopped], **CROSS)
    ax.set_xticks(range(len(eps_values)), [f"{e:g}" for e in eps_values])


def _grid(panels: int):
    """A figure of ``panels`` panels (at most three a row) sharing their axes."""
    columns = min(panels, 3)
    rows = math.ceil(panels / columns)
    size = (6.4, 4.2) if panels == 1 else (3.3 * columns + 1.8, 2.9 * rows + 1.0)
    fig, axes = plotting.figure(nrows=rows, ncols=columns, figsize=size, sharex=True, sharey=True, squeeze=False,
                                layout="constrained")
    for ax in axes.flat[panels:]:
        ax.set_visible(False)
    return fig, list(axes.flat[:panels]), columns


def draw(specs: Sequence[Experiment], alphabet: dict, scores, name: str):
    """The figure ``name`` of an own study: its experiments ``specs`` (one, or each kind of a comparison), the
    alphabet file's dict and the study's tidy scores (a DataFrame of scores.csv). Returns the figure."""
    if (specs[0].rounds or 1) > 1:
        return draw_rounds(specs, alphabet, scores, name)
    error = own_study.error_of(list(scores.columns))
    tables = {spec.name: scores[scores["experiment"] == spec.name].rename(columns={"point": spec.axis})
              for spec in specs}
    first = specs[0]
    shown = tables[first.name]
    methods = [m for m in dict.fromkeys(shown["method"]) if not m.endswith(RAW_SUFFIX) and m != "noisy"]
    handles, notes = [], []
    if len(specs) > 1:
        by_kind = {KIND_NAMES[spec.members[0].kind] + (f" ({spec.members[0].hashes} hashes)"
                                                       if spec.members[0].hashes else ""): tables[spec.name]
                   for spec in specs}
        panels = comparison_panels(list(by_kind), methods)
        colour = dict(zip(by_kind, TAB10 * (len(by_kind) // len(TAB10) + 1), strict=False))
        style = dict(zip(methods, plotting.LINE_STYLES * 3, strict=False))
        fig, axes, columns = _grid(len(panels))
        for ax, lines in zip(axes, panels, strict=True):
            for kind, method in lines:
                table = by_kind[kind]
                if (na := _line(ax, table[table["method"] == method], "eps", error, colour[kind], style[method])):
                    notes.append(f"{kind} {method}: {na}")
            if len(panels) > 1:
                ax.set_title(plotting.method_label(lines[0][1]), fontsize=9)
        handles += [matplotlib.lines.Line2D([], [], color=colour[k], lw=2, label=k) for k in by_kind]
        if any(len({method for _, method in lines}) > 1 for lines in panels):
            handles += [matplotlib.lines.Line2D([], [], color="0.3", linestyle=style[m], lw=1.4,
                                                label=plotting.method_label(m)) for m in methods]
        log_x = plotting.log_scale_if_wide(axes[0], shown["eps"], "x")
        xlabel = plotting.eps_label(alphabet, [spec.members[0].kind for spec in specs], log_x)
        plotting.value_ticks(axes[0], shown["eps"].unique())
        mechanisms = " vs ".join(by_kind)
        kinds, title = "lines", "mechanism"
    elif first.axis == "eps":
        ran = [m for m in methods if shown.loc[shown["method"] == m, error].notna().any()]
        notes = [f"{m}: {shown.loc[shown['method'] == m, 'note'].dropna().iloc[0]}" for m in methods if m not in ran]
        panels = method_panels(ran)
        colour = colours(ran)
        fig, axes, columns = _grid(len(panels))
        for ax, lines in zip(axes, panels, strict=True):
            _boxes(ax, shown, lines, error, colour)
        handles += [matplotlib.patches.Patch(color=colour[m], alpha=0.7, label=plotting.method_label(m)) for m in ran]
        xlabel = plotting.eps_label(alphabet, [m.kind for m in first.members])
        mechanisms = " + ".join(KIND_NAMES[k] for k in dict.fromkeys(m.kind for m in first.members))
        mechanisms += " at each ε" + (", users split equally" if len(first.points[0].mechanisms) > 1 else "")
        kinds, title = "boxes", "estimator"
    else:
        panels = method_panels(methods)
        colour = colours(methods)
        fig, axes, columns = _grid(len(panels))
        for ax, lines in zip(axes, panels, strict=True):
            for method in lines:
                if (na := _line(ax, shown[shown["method"] == method], "n", error, colour[method],
                                "--" if method.endswith("-N") else "-")):
                    notes.append(f"{method}: {na}")
        drawn = [m for m in methods if not any(note.startswith(f"{m}: ") for note in notes)]
        handles += [matplotlib.lines.Line2D([], [], color=colour[m], lw=1.5, linestyle="--" if m.endswith("-N")
                                            else "-", label=plotting.method_label(m)) for m in drawn]
        axes[0].set_xscale("log")
        plotting.value_ticks(axes[0], shown["n"].unique(), integers=True)
        xlabel = "number of users n (log scale)"
        mechanisms = describe(first.members) + ", users split equally"
        kinds, title = "lines", "estimator"
    capped = any(_capped(t[t["method"].isin(methods)]).any() for t in tables.values())
    cap = f"{first.stopping_rule['max_iter']:,}"
    if kinds == "lines":
        handles.append(matplotlib.patches.Patch(color="0.5", alpha=0.3, label=f"shaded: {BAND}"))
        if capped:
            handles.append(matplotlib.lines.Line2D([], [], **RING, label=f"ringed: a run stopped\nat the cap ({cap})"))
    elif capped:
        handles.append(matplotlib.lines.Line2D([], [], **CROSS, label=f"a run stopped\nat the cap ({cap})"))
    values = [v for t in tables.values() for v in t.loc[t["method"].isin(methods), error]]
    log_y = plotting.log_scale_if_wide(axes[0], values)
    for i, ax in enumerate(axes):
        if i % columns == 0:
            ax.set_ylabel(plotting.error_label(alphabet) + (" (log scale)" if log_y else ""))
        if i + columns >= len(axes):
            ax.set_xlabel(xlabel)
            ax.xaxis.set_tick_params(labelbottom=True)
    fig.legend(handles=handles, loc="outside right center", title=title)
    fig.suptitle(f"{first.study}: {name}\n{mechanisms}; {plotting.alphabet_label(alphabet)}", fontsize=9)
    fig.text(0.5, -0.01, "\n".join(footer(specs, kinds, capped) + [f"NA: {n.replace(': NA: ', ': ')}"
                                                                    for n in notes]),
             ha="center", va="top", fontsize=7)
    plotting.drop_overlapping_tick_labels(fig)
    return fig


def footer(specs: Sequence[Experiment], kinds: str, capped: bool) -> list[str]:
    """The lines under a figure: what its lines and bands (or boxes) are, the runs and users, the stopping rule."""
    first = specs[0]
    users = ("n users drawn per run" if first.axis == "n" else "every record once per run"
             if first.points[0].users is None else f"{first.points[0].users:,} users drawn per run")
    same = "; every mechanism on the same users" if len(specs) > 1 else ""
    if kinds == "lines":
        what = (f"lines: the mean over the {first.runs} runs of each point; shaded: {BAND} (lower edge at least 5% "
                "of the mean)" + ("; ringed: a mean over runs of which the iteration cap stopped at least one"
                                  if capped else ""))
    else:
        what = (f"boxes: the {first.runs} runs of each point, from the lower to the upper quartile, black line the "
                "median, whiskers to the furthest run within 1.5 IQR, dots beyond"
                + ("; x: a run the iteration cap stopped" if capped else ""))
    return [what, f"{first.runs} runs per point; {users}{same}", plotting.stopping_note(first.stopping_rule)]


def draw_rounds(specs: Sequence[Experiment], alphabet: dict, scores, name: str):
    """The figure of an experiment of several rounds (or a comparison of them): a panel per point (eps, or n), the
    error of each method (and mechanism) against the round as the mean over runs with its +-1 s.d. band, and on a
    right axis (grey) the eps spent so far by the round's users, their mean and the largest (the member's eps for each
    distinct value a user has reported: what the longitudinal protocols bound). Returns the figure."""
    error = own_study.error_of(list(scores.columns))
    first = specs[0]
    tables = {spec.members[0].label if len(specs) > 1 else "": scores[scores["experiment"] == spec.name]
              for spec in specs}
    shown = next(iter(tables.values()))
    methods = [m for m in dict.fromkeys(shown["method"]) if not m.endswith(RAW_SUFFIX) and m != "noisy"]
    points = sorted(shown["point"].unique())
    colour = colours(methods) if len(specs) == 1 else dict(zip(tables, TAB10, strict=False))
    style = {m: "-" for m in methods} if len(specs) == 1 else dict(zip(methods, plotting.LINE_STYLES * 3,
                                                                        strict=False))
    fig, axes, columns = _grid(len(points))
    notes, spent_axes = [], []
    for ax, point in zip(axes, points, strict=True):
        for kind, table in tables.items():
            at = table[table["point"] == point]
            for method in methods:
                line_colour = colour[method] if len(specs) == 1 else colour[kind]
                if (na := _line(ax, at[at["method"] == method], "round", error, line_colour, style[method])):
                    notes.append(f"{kind + ' ' if kind else ''}{method}: {na}")
        ax.set_title(f"{'ε' if first.axis == 'eps' else 'n'} = {point:g}", fontsize=9)
        spent = shown[shown["point"] == point].groupby("round")[["eps_spent", "eps_spent_max"]].mean()
        right = ax.twinx()
        right.plot(spent.index, spent["eps_spent"], **SPENT_MEAN, drawstyle="steps-mid")
        right.plot(spent.index, spent["eps_spent_max"], **SPENT_MAX)
        right.set_ylim(0, shown["eps_spent_max"].max() * 1.05)
        spent_axes.append(right)
    rounds = sorted(shown["round"].unique())
    for i, ax in enumerate(axes):
        ax.set_xticks(rounds if len(rounds) <= 12 else rounds[:: math.ceil(len(rounds) / 12)])
        if i % columns == 0:
            ax.set_ylabel(plotting.error_label(alphabet))
        if i + columns >= len(axes):
            ax.set_xlabel("round")
            ax.xaxis.set_tick_params(labelbottom=True)
        if i % columns == columns - 1 or i == len(axes) - 1:
            spent_axes[i].set_ylabel("ε spent by a user so far (grey)")
        else:
            spent_axes[i].set_yticklabels([])
    handles = ([matplotlib.lines.Line2D([], [], color=colour[m], lw=1.5, label=plotting.method_label(m))
                for m in methods] if len(specs) == 1 else
               [matplotlib.lines.Line2D([], [], color=colour[k], lw=2, label=k) for k in tables]
               + [matplotlib.lines.Line2D([], [], color="0.3", linestyle=style[m], lw=1.4,
                                          label=plotting.method_label(m)) for m in methods])
    handles += [matplotlib.patches.Patch(color="0.5", alpha=0.3, label=f"shaded: {BAND}"),
                matplotlib.lines.Line2D([], [], **SPENT_MEAN, label="ε spent: mean over users"),
                matplotlib.lines.Line2D([], [], **SPENT_MAX, label="ε spent: largest")]
    if (capped := any(_capped(t[t["method"].isin(methods)]).any() for t in tables.values())):
        handles.append(matplotlib.lines.Line2D([], [], **RING, label=f"ringed: a run stopped\nat the cap "
                                               f"({first.stopping_rule['max_iter']:,})"))
    fig.legend(handles=handles, loc="outside right center", title="estimator" if len(specs) == 1 else "mechanism")
    change = (f"before each later round a user's value is redrawn from the data with probability {first.redraw:g}"
              if first.redraw else "the users' values never change")
    mechanisms = " vs ".join(tables) if len(specs) > 1 else describe(first.members) + (
        ", users split equally" if len(first.points[0].mechanisms) > 1 else "")
    fig.suptitle(f"{first.study}: {name}\n{mechanisms}; {plotting.alphabet_label(alphabet)}\n{first.rounds} rounds; "
                 f"{change}", fontsize=9)
    what, runs, stopping = footer(specs, "lines", capped)
    joint = "".join(f" ({FAMILIES[f].name}: round t from rounds 1..t of its run together)" for f in first.families
                    if FAMILIES[f].rounds)
    fig.text(0.5, -0.01, "\n".join([what, f"each round estimated from its own reports{joint} and scored against the "
                                    "round's values", "grey, right axis: ε spent so far, ε for each distinct value "
                                    "a user has reported (each value's memo; a report alone is ε₁-LDP)",
                                    runs, stopping] + [f"NA: {n.replace(': NA: ', ': ')}" for n in notes]),
             ha="center", va="top", fontsize=7)
    plotting.drop_overlapping_tick_labels(fig)
    return fig


def draw_columns(rows: Sequence[dict], alphabets: Sequence[dict], spec: dict, name: str, study: str,
                 records: str, runs: int, stopping: dict):
    """The figure of a multi-column experiment (``own_columns``): a panel per column, its error (EMD in the column's
    unit, TV on categories) against eps, the mean over runs of each method with a band of +-1 s.d., the means the
    iteration cap stopped in a run ringed. ``rows``: ``own_columns.scores``; ``records``: the records read, kept and
    dropped in words (``own_columns.kept_text``)."""
    columns = list(spec["columns"])
    methods = list(dict.fromkeys(r["method"] for r in rows))
    colour = colours(methods)
    fig, axes = plotting.figure(ncols=len(columns), figsize=(4.2 * len(columns) + 1.6, 3.8), squeeze=False)
    for ax, column, alphabet in zip(axes[0], columns, alphabets, strict=True):
        for method in methods:
            mine = [r for r in rows if r["column"] == column and r["method"] == method and np.isfinite(r["error"])]
            grid = sorted({r["eps"] for r in mine})
            by_eps = [np.array([r["error"] for r in mine if r["eps"] == e]) for e in grid]
            mean = np.array([v.mean() for v in by_eps])
            sd = np.array([v.std(ddof=1) if v.size > 1 else 0.0 for v in by_eps])
            ax.plot(grid, mean, "o-", color=colour[method], label=method, ms=4)
            ax.fill_between(grid, mean - sd, mean + sd, color=colour[method], alpha=0.18, lw=0)
            ringed = [e for e in grid if any(r["capped"] for r in mine if r["eps"] == e)]
            ax.plot(ringed, [mean[grid.index(e)] for e in ringed], **RING)
        label = plotting.alphabet_label(alphabet)
        ax.set_title(label if label.startswith(f"{column}:") else f"{plotting.literal(column)}: {label}", fontsize=9)
        ax.set_xlabel(plotting.eps_label(alphabet, [spec["protocol"]]))
        ax.set_ylabel(plotting.error_label(alphabet))
        ax.set_ylim(bottom=0)
    handles = [matplotlib.lines.Line2D([], [], color=colour[m], marker="o", ms=4, label=m) for m in methods]
    handles += [matplotlib.patches.Patch(color="gray", alpha=0.3, label=BAND),
                matplotlib.lines.Line2D([], [], **RING, label="a run stopped at the iteration cap")]
    fig.legend(handles=handles, loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=8)
    solution = protocols.SOLUTION_NAMES[spec["solution"]]
    fig.suptitle(f"{study}: {name}\n{solution} with {spec['protocol']} on each of {len(columns)} "
                 f"columns; {records}, each reporting its tuple once a run", fontsize=9)
    said = {"INV-N": "INV-N: the unbiased estimate normalised", "INV-P": "INV-P: projected",
            "IBU": f"IBU: GIBU on the column's likelihood ({plotting.stopping_note(stopping)})"}
    fig.text(0.01, -0.04, f"mean of {runs} runs per eps, band ± 1 s.d.; " + "; ".join(said[m] for m in methods),
             fontsize=7)
    fig.tight_layout()
    return fig
