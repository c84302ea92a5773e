"""Beyond the papers (issue 50, item 4): "Square Wave with EMS, or the geometric mechanism with IBU?" on the Adult
census's ages (years) and hours worked per week (hours), every person once a run, over a grid of eps.

Each column is a numeric alphabet of an own study (``own_study``: ``{kind: numeric, min, max, bins, unit}``), so that
eps is every mechanism's LDP level over [min, max]: Square Wave (Li et al., SIGMOD 2020) reports each person's number,
the geometric mechanism (free-will eq. 2) one of the bins. The experiments are an own study's comparison run through
the one chain (``own_study.experiments``: ``<column>_square_wave`` and ``<column>_geometric``, the same users from
the comparison's one seed, ``privest.rng_for(seed, study, column, ...)``); the histograms are estimated on the bins
(Square Wave: EMS, the paper's estimator, and EM to the MLE; geometric: IBU) and scored by the EMD in the column's
unit. This module adds the study's data (``data_spec``), its table of the three lines per (column, eps) and the paired
differences EMD(SW+EMS) - EMD(geometric+IBU) over runs with their intervals (``summary``, ``paired``); the report's
check ``sw_or_geometric`` judges those intervals by the rule written in workflow/report/papers.yaml.

The issue also names the LA riots ages; that data set is not in the project's mirror (/work/shared/datasets holds
Adult and Gowalla only) and no fetchable source is pinned, so that part is not run (``NOT_RUN``).
Config: ``sw_vs_geometric``; sizes: ``scales.<scale>.sw_vs_geometric`` (eps, runs).
"""

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from privest_studies import own_study, uncertainty
from privest_studies.configuration import scale_config, study_config
from privest_studies.datasets import ADULT_COLUMNS
from privest_studies.experiment import Experiment

STUDY = "sw_vs_geometric"
RESULTS = f"results/{STUDY}"
KINDS = ("square_wave", "geometric")
ESTIMATORS = ("ems", "ibu")
LINES = {"SW+EMS": ("square_wave", "EMS"), "SW+EM": ("square_wave", "IBU"), "geometric+IBU": ("geometric", "IBU")}
"""The study's three lines: (mechanism, scored method). SW+EM is EM on Square Wave's discretised channel to the MLE
(the chain's family ibu on a numeric mechanism)."""
PAIR = ("SW+EMS", "geometric+IBU")
"""The paired difference the study judges: EMD(first) - EMD(second), the same persons in run r."""
NOT_RUN = ("The LA riots ages (issue 50) are not run: the data set is not in the project's data mirror "
           "(../shared/datasets holds Adult and Gowalla only) and no public source is pinned for it.")
SUMMARY_COLUMNS = ["column", "unit", "eps", "line", "runs", "emd_mean", "emd_sd", "mean_mean", "mean_lower_mean",
                   "mean_upper_mean", "mean_true", "mean_error_mean", "mean_covered", "mean_of", "iterations_mean",
                   "capped_runs"]
PAIRED_COLUMNS = ["column", "unit", "eps", "first", "second", "runs", "level", "difference", "low", "high",
                  "first_mean", "second_mean"]


def data_prefix(column: str) -> str:
    """The path prefix of one column's data (<prefix>.npz, <prefix>_alphabet.json; rule svg_data)."""
    return f"{RESULTS}/data/{column}"


def data_spec(config: Mapping[str, Any], column: str) -> tuple[dict, dict]:
    """One column's ``data`` and ``alphabet`` as an own study writes them (``own_data.load_with_values`` reads them)."""
    spec = study_config(config, STUDY)["columns"][column]
    return ({"builtin": "adult", "column": spec["column"]},
            {"kind": "numeric", **{key: spec[key] for key in ("min", "max", "bins", "unit")}})


def _own_study(config: Mapping[str, Any], column: str) -> dict:
    """One column as an own study's config entry: the comparison of ``KINDS`` at the scale's eps."""
    data, alphabet = data_spec(config, column)
    sizes = scale_config(config, STUDY)
    return {"data": data, "alphabet": alphabet, "runs": int(sizes["runs"]), "ibu": study_config(config, STUDY)["ibu"],
            "experiments": {column: {"compare": list(KINDS), "eps": [float(e) for e in sizes["eps"]],
                                     "estimators": list(ESTIMATORS)}}}


def experiments(config: Mapping[str, Any]) -> dict[str, Experiment]:
    """The chain's experiments: ``<column>_<kind>`` for every column and kind, built by ``own_study.experiments`` on
    the study's data (``data_prefix``)."""
    out = {}
    for column in study_config(config, STUDY)["columns"]:
        built = own_study.experiments({"studies": {STUDY: _own_study(config, column)}})[STUDY]
        out |= {name: dataclasses.replace(e, data=data_prefix(column)) for name, e in built.items()}
    return out


COLUMN_NAMES = ("ages", "hours")
"""The study's columns (config sw_vs_geometric.columns: each one's Adult column and numeric alphabet is set there)."""


def check(config: Mapping[str, Any]) -> None:
    """What the schema cannot say: no eps listed twice, at least two runs (the paired intervals need them), the columns
    ages and hours (COLUMN_NAMES), each an Adult column on a numeric alphabet an own study accepts
    (``own_study.experiments``). One line naming the key."""
    key = f"config key scales.{config['scale']}.{STUDY}"
    sizes = scale_config(config, STUDY)
    if len(set(sizes["eps"])) != len(sizes["eps"]):
        raise ValueError(f"{key}.eps: lists a value twice")
    if int(sizes["runs"]) < 2:
        raise ValueError(f"{key}.runs: at least 2 (the paired intervals over runs need two), got {sizes['runs']}")
    columns = study_config(config, STUDY)["columns"]
    if sorted(columns) != sorted(COLUMN_NAMES):
        raise ValueError(f"config key {STUDY}.columns: the study's columns are {' and '.join(COLUMN_NAMES)} (their "
                         f"figures' files are written in the rule svg_figures), got {', '.join(columns)}")
    for column, spec in columns.items():
        where = f"config key {STUDY}.columns.{column}"
        if spec["column"] not in ADULT_COLUMNS:
            raise ValueError(f"{where}.column: {spec['column']!r} is not an Adult column; known: "
                             f"{', '.join(ADULT_COLUMNS)}")
        if not spec["min"] < spec["max"]:
            raise ValueError(f"{where}: min must be below max, got {spec['min']} and {spec['max']}")
        try:
            own_study.experiments({"studies": {STUDY: _own_study(config, column)}})
        except ValueError as error:
            raise ValueError(f"{where}: {str(error).split(': ', 1)[-1]}") from None


def _column_of(experiment: str) -> str:
    """The column of an experiment ``<column>_<kind>``."""
    (column,) = [experiment.removesuffix(f"_{kind}") for kind in KINDS if experiment.endswith(f"_{kind}")]
    return column


def runs_by_line(scores: pd.DataFrame) -> pd.DataFrame:
    """The scores of the study's lines (``LINES``): one row per (column, eps, line, run) with the EMD, the mean
    estimate and its interval (Square Wave's; NaN for a histogram's mean), the data's mean, iterations and cap."""
    frames = []
    for line, (kind, method) in LINES.items():
        rows = scores[scores["experiment"].str.endswith(f"_{kind}") & (scores["method"] == method)].copy()
        rows["column"] = rows["experiment"].map(_column_of)
        rows["line"] = line
        frames.append(rows)
    table = pd.concat(frames, ignore_index=True).rename(columns={"point": "eps"})
    return table[["column", "eps", "line", "run", "emd", "mean", "mean_lower", "mean_upper", "mean_of", "mean_true",
                  "iterations", "capped"]]


def summary(scores: pd.DataFrame, config: Mapping[str, Any]) -> list[dict]:
    """Per (column, eps, line): runs, mean and s.d. of the EMD (in the column's unit), the mean of the mean estimates
    and of their interval's ends (Square Wave's 95% interval, ``NumericMechanism.mean_interval``; NaN for a
    histogram's mean), the data's mean, the mean absolute error of the mean, the share of runs whose interval holds
    the data's mean, the mean iterations and the runs the cap stopped."""
    columns = study_config(config, STUDY)["columns"]
    rows = []
    for (column, eps, line), runs in runs_by_line(scores).groupby(["column", "eps", "line"], sort=False):
        covered = ((runs["mean_lower"] <= runs["mean_true"]) & (runs["mean_true"] <= runs["mean_upper"]))
        rows.append({"column": column, "unit": columns[column]["unit"], "eps": float(eps), "line": line,
                     "runs": len(runs), "emd_mean": float(runs["emd"].mean()),
                     "emd_sd": float(runs["emd"].std(ddof=1)) if len(runs) > 1 else float("nan"),
                     "mean_mean": float(runs["mean"].mean()),
                     "mean_lower_mean": float(runs["mean_lower"].mean()),
                     "mean_upper_mean": float(runs["mean_upper"].mean()), "mean_true": float(runs["mean_true"].iloc[0]),
                     "mean_error_mean": float((runs["mean"] - runs["mean_true"]).abs().mean()),
                     "mean_covered": float(covered.mean()) if runs["mean_lower"].notna().all() else float("nan"),
                     "mean_of": str(runs["mean_of"].iloc[0]), "iterations_mean": float(runs["iterations"].mean()),
                     "capped_runs": int(runs["capped"].astype(bool).sum())})
    return sorted(rows, key=lambda r: (list(columns).index(r["column"]), r["eps"], list(LINES).index(r["line"])))


def paired(scores: pd.DataFrame, config: Mapping[str, Any]) -> list[dict]:
    """Per (column, eps): d = EMD(SW+EMS) - EMD(geometric+IBU) paired over runs (the same persons in run r), its mean
    and t interval at the report's level (``uncertainty.difference_interval``), and each line's mean EMD."""
    level = float(config["report"]["level"])
    columns = study_config(config, STUDY)["columns"]
    table = runs_by_line(scores)
    rows = []
    for (column, eps), runs in table.groupby(["column", "eps"], sort=False):
        by_line = runs.pivot_table(index="run", columns="line", values="emd")
        first, second = by_line[PAIR[0]].to_numpy(), by_line[PAIR[1]].to_numpy()
        d = uncertainty.difference_interval(first, second, level)
        rows.append({"column": column, "unit": columns[column]["unit"], "eps": float(eps), "first": PAIR[0],
                     "second": PAIR[1], "runs": d.runs, "level": level, "difference": d.mean, "low": d.low,
                     "high": d.high, "first_mean": float(first.mean()), "second_mean": float(second.mean())})
    return sorted(rows, key=lambda r: (list(columns).index(r["column"]), r["eps"]))


def column_label(config: Mapping[str, Any], column: str) -> str:
    """'Adult age on [17, 90] years, 73 bins 1 wide'."""
    spec = study_config(config, STUDY)["columns"][column]
    width = (spec["max"] - spec["min"]) / spec["bins"]
    return (f"Adult {spec['column'].replace('_', ' ')} on [{spec['min']:g}, {spec['max']:g}] {spec['unit']}, "
            f"{spec['bins']} bins {width:g} wide")


def summary_markdown(lines: Sequence[Mapping[str, Any]], pairs: Sequence[Mapping[str, Any]],
                     config: Mapping[str, Any]) -> str:
    """The study's page: per column the three lines' mean EMD per eps, the paired difference with its interval, and
    the means; the LA riots note."""
    out = ["# SW+EMS or geometric+IBU? (beyond the papers, issue 50)", "",
           f"Scale {config['scale']}: {scale_config(config, STUDY)['runs']} runs per eps, every person once a run. "
           "EMD in the column's unit; d = EMD(SW+EMS) - EMD(geometric+IBU) paired over runs, its interval at level "
           f"{config['report']['level']:g}.", "", NOT_RUN, ""]
    for column in study_config(config, STUDY)["columns"]:
        out += [f"## {column_label(config, column)}", "",
                "| eps | " + " | ".join(f"EMD {line}" for line in LINES) + " | d [interval] | mean: SW (covered) | "
                "mean: geometric+IBU | data's mean |", "|---:|" + "---:|" * (len(LINES) + 4)]
        for pair in (p for p in pairs if p["column"] == column):
            at = {r["line"]: r for r in lines if r["column"] == column and r["eps"] == pair["eps"]}
            sw, geo = at["SW+EMS"], at["geometric+IBU"]
            out.append(f"| {pair['eps']:g} | " + " | ".join(f"{at[line]['emd_mean']:.3g}" for line in LINES)
                       + f" | {pair['difference']:+.3g} [{pair['low']:+.3g}, {pair['high']:+.3g}] | "
                       f"{sw['mean_mean']:.4g} ({sw['mean_covered']:.0%}) | {geo['mean_mean']:.4g} | "
                       f"{sw['mean_true']:.4g} |")
        out.append("")
    return "\n".join(out)


def figure_lines(summary_table: pd.DataFrame, column: str) -> dict[str, pd.DataFrame]:
    """Each line's rows of one column, by eps."""
    rows = summary_table[summary_table["column"] == column]
    return {line: rows[rows["line"] == line].sort_values("eps") for line in LINES}

