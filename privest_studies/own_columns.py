"""A researcher's multi-column experiment (issue 49 item 6): several columns of the study's CSV, one alphabet each,
every record's tuple reported once a run by a multidimensional solution of ``privest.protocols`` (SPL, SMP or RS+FD),
each attribute estimated from its own column and scored as the chain scores one column; and the summary of a study's
multi-column experiments (``summary``: the mean error over runs with its interval).

    studies:
      ages_and_sex:
        data: {csv: examples/own_study/ages.csv}   # no data.column, no study alphabet: the columns hold them
        runs: 3
        experiments:
          age_and_sex:
            columns: {age: {kind: linear, k: 100, unit: years}, sex: {kind: categorical}}   # one alphabet each
            solution: spl            # spl | smp | rsfd (privest.protocols.spl, smp, rsfd)
            protocol: grr            # each attribute's protocol (rsfd: one of privest.protocols.RSFD_PROTOCOLS)
            eps: [1.0, 2.0, 4.0]     # the level of the whole tuple's report
            estimators: [inv, ibu]

Each column's alphabet is written as a single-column study's ``alphabet`` (linear, binned, numeric or categorical;
a planar one needs two columns and is not a column's). The columns are read jointly (``load``), each cell judged as
a single-column study judges its column (``own_records``): a blank cell or one that is not a number follows
``data.missing``, a value outside the column's alphabet that column's ``outside`` (``error``, the default: one line
naming the file, the line and the column of the first such record, and how many; ``drop``). A record is one tuple:
a cell dropped drops the whole record, counted once under its first reason (blank, not a number, outside) and once
per column under each of its cells' (the provenance's ``dropped`` and ``dropped_by_column``).

Estimators, per attribute j from column j's reports (``Multidimensional.marginal(j)``): ``inv`` the unbiased
estimate post-processed by normalisation and by projection (INV-N, INV-P; multi-freq-ldpy's MI is INV-N), ``ibu``
GIBU on the column's exact likelihood (``Multidimensional.groups``: the MLE of theta_j, for SPL and RS+FD a
composite likelihood). Each is scored against the column's empirical distribution: the EMD in the column's unit,
the total variation distance on categories (``privest.alphabets.Alphabet.emd``). Run r at eps draws from
``rng_for(seed, study, experiment, eps, r)``.
"""

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from privest import gibu, protocols, rng_for
from privest.alphabets import Alphabet
from privest.protocols.multidim import SOLUTION_NAMES, SOLUTIONS
from privest_studies import own_data, own_records, tables, uncertainty
from privest_studies.experiment.scores import error_column

__all__ = ["ESTIMATORS", "KEYS", "SCORE_COLUMNS", "SUMMARY_COLUMNS", "TABLE_COLUMNS", "check", "is_columns",
           "kept_text", "load", "scores", "summary", "summary_markdown", "table_rows"]

KEYS = ("columns", "solution", "protocol", "eps", "estimators")
"""The keys of a multi-column experiment (all required)."""
ESTIMATORS = {"inv": ("INV-N", "INV-P"), "ibu": ("IBU",)}
"""The estimator families a multi-column experiment takes, and the methods each scores."""
POSTS = {"INV-N": "normalization", "INV-P": "projection"}
COLUMN_KINDS = ("linear", "binned", "numeric", "categorical")
SCORE_COLUMNS = ["study", "experiment", "solution", "protocol", "column", "metric", "unit", "eps", "run", "method",
                 "error", "iterations", "capped", "note"]


def is_columns(spec: Mapping[str, Any]) -> bool:
    """Whether an experiment's config is a multi-column experiment (it has ``columns``)."""
    return "columns" in spec


def _column_data(data: Mapping[str, Any], column: str) -> dict:
    """The study's data config for one column (its csv, encoding, delimiter; the column named)."""
    return {**data, "column": column}


def check(key: str, study: Mapping[str, Any], spec: Mapping[str, Any]) -> None:
    """Everything a multi-column experiment's config must hold, before any job: one line naming the key.

    ``key``: the experiment's config key (``config key studies.<study>.experiments.<label>``). Checks the keys, the
    data source (a CSV file; its header holds each column), each column's alphabet, the solution, and the solution
    with its protocol on the columns' sizes at every eps (as ``privest.protocols`` builds it)."""
    if int(spec.get("rounds", 1)) != 1:  # the schema's default is 1
        raise ValueError(f"{key}.rounds: a multi-column experiment reports each tuple once a run; rounds are for the "
                         "longitudinal protocols of a single-column experiment")
    if unknown := sorted(set(spec) - set(KEYS) - {"rounds"}):
        raise ValueError(f"{key}.{unknown[0]}: a multi-column experiment takes only {', '.join(KEYS)}")
    if missing := [name for name in KEYS if name not in spec]:
        raise ValueError(f"{key}: a multi-column experiment needs {', '.join(missing)}")
    data = study["data"]
    if "csv" not in data:
        raise ValueError(f"{key}.columns: a multi-column experiment reads columns of data.csv, not a built-in dataset")
    columns = spec["columns"]
    if not isinstance(columns, Mapping) or len(columns) < 2:
        raise ValueError(f"{key}.columns: a mapping of at least two CSV columns to their alphabets, got {columns!r}")
    ks = []
    for column, alphabet in columns.items():
        where = f"{key}.columns.{column}"
        if not isinstance(alphabet, Mapping) or alphabet.get("kind") not in COLUMN_KINDS:
            raise ValueError(f"{where}: an alphabet with kind one of {', '.join(COLUMN_KINDS)}, got {alphabet!r}")
        own_data.check_header(where, _column_data(data, str(column)), alphabet)
        ks.append(_k(alphabet))
    solution, protocol = spec["solution"], spec["protocol"]
    if solution not in SOLUTIONS:
        raise ValueError(f"{key}.solution: unknown {solution!r}; known: {', '.join(SOLUTIONS)}")
    grid = spec["eps"]
    if not isinstance(grid, Sequence) or not grid or any(isinstance(e, bool) or not isinstance(e, int | float)
                                                         or not math.isfinite(e) or e <= 0 for e in grid):
        raise ValueError(f"{key}.eps: a list of levels above 0, got {grid!r}")
    if len(set(map(float, grid))) < len(grid):
        raise ValueError(f"{key}.eps: a level listed twice; each is one point of the grid")
    for e in grid:
        try:
            _solution(solution, ks, float(e), protocol)
        except (TypeError, ValueError) as error:
            raise ValueError(f"{key}.protocol: {solution} with {protocol!r} at eps = {float(e):g}: {error}") from None
    estimators = spec["estimators"]
    bad = [f for f in estimators if f not in ESTIMATORS] if isinstance(estimators, Sequence) else [estimators]
    if bad or not estimators:
        raise ValueError(f"{key}.estimators: each attribute is estimated from its column alone, by "
                         f"{' or '.join(ESTIMATORS)}; got {bad or estimators!r}")


def _k(alphabet: Mapping[str, Any]) -> int:
    """A column's number of secrets from its config (a categorical one without given categories: 2, a lower bound
    until the data is read)."""
    if alphabet["kind"] == "linear":
        return int(alphabet["k"])
    if alphabet["kind"] == "categorical":
        return len(alphabet.get("categories") or [0, 1])
    return int(alphabet["bins"])


def _solution(solution: str, ks: Sequence[int], eps: float, protocol: str) -> protocols.Multidimensional:
    return {"spl": protocols.spl, "smp": protocols.smp, "rsfd": protocols.rsfd}[solution](list(ks), eps, protocol)


def load(data: Mapping[str, Any], columns: Mapping[str, Mapping[str, Any]]) -> tuple[np.ndarray, list[dict], dict]:
    """Every record's tuple of ``columns`` of ``data.csv``, each column on its alphabet, a record dropped whole when
    a cell of it is dropped.

    Returns
    -------
    secrets : numpy.ndarray of int64, shape (kept, d)
        Column j in 0..k_j-1, the kept records in file order.
    alphabets : list of dict
        Each column's alphabet file (``own_data.alphabet_of``; a categorical column without given categories: those
        of the kept records).
    provenance : dict
        ``own_data.provenance_of`` of the records (``dropped``: records, each under its first reason over its
        columns), with ``dropped_by_column``: column -> {reason: its cells dropped for it}.

    Raises
    ------
    ValueError
        In one line naming the file, the line and the column of the first record a policy of ``error`` refuses
        (``own_records.judge``: blank, not a number, outside the column's alphabet), with how many such records and
        the setting that drops them; no record kept; a categorical column of one category.
    """
    names, specs = [str(c) for c in columns], list(columns.values())
    tallies, table = [], None
    for name, spec in zip(names, specs, strict=True):
        table = own_data.check_header("data", _column_data(data, name), spec)
        tallies.append(own_data.tally_csv(table, _column_data(data, name), spec, joint=True))
    refused = [(first[0], j) for j, (tally, spec) in enumerate(zip(tallies, specs, strict=True))
               for first in own_records.refused(tally, data, spec)[:1]]
    if refused:
        j = min(refused)[1]
        own_records.judge(tallies[j], data, specs[j], data["csv"], names[j], outside=f"columns.{names[j]}.outside")
    reasons = np.stack([np.concatenate([np.empty(0, np.int8), *tally.reasons]) for tally in tallies], axis=1)
    kept = ~reasons.any(axis=1)
    first = np.where(reasons == 0, len(own_records.REASONS) + 1, reasons).min(axis=1)  # each record's first reason
    dropped = {reason: int((first == r).sum()) for r, reason in enumerate(own_records.REASONS, start=1)}
    if not kept.any():
        raise ValueError(f"{data['csv']}: no records kept ({reasons.shape[0]} read, dropped {dropped})")
    secrets, alphabets = [], []
    for j, (name, spec, tally) in enumerate(zip(names, specs, tallies, strict=True)):
        values, found = tally.secrets(kept[reasons[:, j] == 0])
        own_data.check_categories(table, found)
        alphabet_file = own_data.alphabet_of(spec, name, found)
        if alphabet_file["k"] < 2:  # a categorical column of one value: nothing to estimate, and no protocol has k 1
            raise ValueError(f"{data['csv']}: column {name} holds one category only "
                             f"({alphabet_file['categories'][0]!r}); a column to estimate needs at least two")
        secrets.append(values)
        alphabets.append(alphabet_file)
    provenance = own_data.provenance_of(data["csv"], names, reasons.shape[0], int(kept.sum()), dropped, table)
    provenance["dropped_by_column"] = {name: dict(tally.counts) for name, tally in zip(names, tallies, strict=True)}
    return np.stack(secrets, axis=1).astype(np.int64), alphabets, provenance


TABLE_COLUMNS = ["what", "column", "records"]
REASON_WORDS = {"blank": "blank", "not_a_number": "not a number", "outside": "outside the alphabet"}


def kept_text(provenance: Mapping[str, Any]) -> str:
    """The records of a multi-column read in words: '3,000 records' when all were kept, else '2,990 of 3,000 records
    kept (10 dropped: 7 blank, 3 outside the alphabet)'."""
    read, kept = provenance["records"], provenance["kept"]
    if kept == read:
        return f"{read:,} records"
    why = ", ".join(f"{n:,} {REASON_WORDS[r]}" for r, n in provenance["dropped"].items() if n)
    return f"{kept:,} of {read:,} records kept ({read - kept:,} dropped: {why})"


def table_rows(provenance: Mapping[str, Any]) -> list[dict]:
    """The data table of a multi-column experiment (columns ``TABLE_COLUMNS``): ``own_data.table_rows`` of the
    records (records read, kept, dropped for each reason: each dropped record once, under its first reason), then for
    each column the records it dropped for each reason (a record may be dropped by several columns)."""
    rows = [{**row, "column": "all"} for row in own_data.table_rows(provenance)]
    for column, counts in provenance["dropped_by_column"].items():
        rows += [{**row, "column": column} for row in own_data.table_rows(
            {"records": provenance["records"], "kept": provenance["kept"], "dropped": counts})[2:]]
    return rows


def scores(study: str, label: str, spec: Mapping[str, Any], secrets: np.ndarray, alphabets: Sequence[dict],
           runs: int, seed: int, stopping: Mapping[str, Any]) -> list[dict]:
    """One row per (eps, run, column, method) of a multi-column experiment (``SCORE_COLUMNS``): the error of each
    attribute's estimate against the column's empirical distribution (``metric`` emd in the column's ``unit``, or
    tv on categories), GIBU's iterations and cap, and why a method could not run (SMP: no user drew the attribute).
    Run r at eps draws from ``rng_for(seed, study, label, eps, r)``."""
    ks = [a["k"] for a in alphabets]
    names = list(spec["columns"])
    metric = [Alphabet.from_dict(a) for a in alphabets]
    theta = [np.bincount(secrets[:, j], minlength=k) / secrets.shape[0] for j, k in enumerate(ks)]
    methods = [m for family in spec["estimators"] for m in ESTIMATORS[family]]
    rows = []
    for eps in map(float, spec["eps"]):
        solution = _solution(spec["solution"], ks, eps, spec["protocol"])
        for run in range(runs):
            reports = solution.sample(secrets, rng_for(seed, study, label, eps, run))
            for j, column in enumerate(reports.columns):
                marginal = solution.marginal(j)
                ran = bool(marginal.count(column))
                for method in methods:
                    iterations, capped = 0, False
                    if not ran:
                        estimate = np.full(ks[j], np.nan)
                    elif method in POSTS:
                        estimate = marginal.estimate(column, POSTS[method])
                    else:
                        result = gibu([marginal.group(column)], delta=float(stopping["delta"]),
                                      max_iter=int(stopping["max_iter"]))
                        estimate, iterations, capped = result.theta, int(result.iterations), bool(result.capped)
                    rows.append({"study": study, "experiment": label, "solution": spec["solution"],
                                 "protocol": spec["protocol"], "column": names[j],
                                 "metric": error_column(alphabets[j]["kind"]),
                                 "unit": alphabets[j].get("unit", "") if alphabets[j]["kind"] != "categorical" else "",
                                 "eps": eps, "run": run, "method": method,
                                 "error": metric[j].emd(theta[j], estimate) if ran else float("nan"),
                                 "iterations": iterations, "capped": capped,
                                 "note": "" if ran else "NA: no user drew this attribute"})
    return rows


SUMMARY_COLUMNS = ["experiment", "solution", "protocol", "column", "metric", "unit", "eps", "method", "runs",
                   "error_mean", "error_low", "error_high", "error_sd", "level", "capped_runs", "note"]


def summary(rows: Sequence[Mapping[str, Any]], level: float) -> list[dict]:
    """The mean error over runs of a study's multi-column experiments per (experiment, protocol, eps, column,
    method), with its two-sided t interval at ``level`` over the runs (``uncertainty.mean_interval``: Student t on
    runs - 1 degrees of freedom; each run its own seed, ``scores``; the low end clipped at 0, below which no error
    lies, so that it covers the mean error whenever the t interval does) and standard deviation, and the runs the
    iteration cap stopped. ``rows``: the experiments' ``scores`` rows (as read back from column_scores.csv); a run
    whose method could not run (SMP: no user drew the attribute) is left out, and a cell of no run is NA with the
    rows' reason. Experiments, columns and methods in the rows' order, eps ascending."""
    groups: dict[tuple, list[Mapping[str, Any]]] = {}
    for row in rows:
        key = (row["experiment"], row["solution"], row["protocol"], row["column"], row["metric"],
               "" if row["unit"] is None or (isinstance(row["unit"], float) and math.isnan(row["unit"]))
               else str(row["unit"]), float(row["eps"]), row["method"])
        groups.setdefault(key, []).append(row)
    order = {field: list(dict.fromkeys(key[i] for key in groups)) for i, field in ((0, "experiment"), (3, "column"),
                                                                                   (7, "method"))}
    result = []
    for key in sorted(groups, key=lambda k: (order["experiment"].index(k[0]), order["column"].index(k[3]), k[6],
                                             order["method"].index(k[7]))):
        errors = np.array([float(r["error"]) for r in groups[key]])
        ran = errors[np.isfinite(errors)]
        line = dict(zip(SUMMARY_COLUMNS[:8], key, strict=True)) | {"runs": int(ran.size), "level": float(level)}
        capped = sum(str(r["capped"]) in ("True", "true", "1") for r in groups[key])
        if ran.size:
            interval = uncertainty.mean_interval(ran, level)
            line |= {"error_mean": interval.mean, "error_low": max(interval.low, 0.0), "error_high": interval.high,
                     "error_sd": float(ran.std(ddof=1)) if ran.size > 1 else 0.0, "note": ""}
        else:
            notes = [str(r["note"]) for r in groups[key] if isinstance(r["note"], str) and r["note"]]
            line |= dict.fromkeys(("error_mean", "error_low", "error_high", "error_sd"), float("nan")) | {
                "note": notes[0] if notes else "NA"}
        line["capped_runs"] = int(capped)
        result.append({column: line[column] for column in SUMMARY_COLUMNS})
    return result


def summary_markdown(lines: Sequence[Mapping[str, Any]], study: str) -> str:
    """The summary for people: per experiment, a row per (column, method), a cell per eps: the mean error
    [interval] over runs (the interval's level and the runs said above the tables)."""
    if not lines:
        return f"# {study}: multi-column experiments\n\nNo multi-column experiment.\n"
    level = lines[0]["level"]
    out = [f"# {study}: multi-column experiments, the mean error over runs", "",
           f"Each cell: the mean error over runs [its {level:.0%} interval, Student t on runs - 1 degrees of "
           "freedom, clipped at 0]; the EMD in the column's unit, the total variation distance (TV) on categories. "
           "NA: the method could not run in any run.", ""]
    for experiment in dict.fromkeys(line["experiment"] for line in lines):
        mine = [line for line in lines if line["experiment"] == experiment]
        eps = sorted({line["eps"] for line in mine})
        cell = {(line["column"], line["method"], line["eps"]): line for line in mine}
        rows = []
        for column, method in dict.fromkeys((line["column"], line["method"]) for line in mine):
            first = cell[next((column, method, e) for e in eps if (column, method, e) in cell)]
            row = {"column": column, "error": f"{first['metric'].upper()}" + (f" ({first['unit']})" if first["unit"]
                                                                              else ""), "method": method}
            for e in eps:
                at = cell.get((column, method, e))
                row[f"ε = {e:g}"] = ("—" if at is None else "NA" if not at["runs"] else
                                     f"{at['error_mean']:.3g} [{at['error_low']:.3g}, {at['error_high']:.3g}]")
            rows.append(row)
        out += [f"## {experiment}: {SOLUTION_NAMES[mine[0]['solution']]} with {mine[0]['protocol']}, "
                f"{max(line['runs'] for line in mine)} runs", "", tables.markdown_table(rows, list(rows[0])), ""]
    return "\n".join(out)
