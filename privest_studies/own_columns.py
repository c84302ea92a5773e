"""A researcher's multi-column experiment (issue 49 item 6): several columns of the study's CSV, one alphabet each,
every record's tuple reported once a run by a multidimensional solution of ``privest.protocols`` (SPL, SMP or RS+FD),
each attribute estimated from its own column and scored as the chain scores one column.

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
a planar one needs two columns and is not a column's). The columns are read jointly (``load``): every column of
every record must be on its alphabet, a bad value refused in one line naming the file, the line and the column, so
the attributes stay one tuple per record (``data.missing`` and a column's ``outside: drop`` are refused by
``check``: dropping a value would drop the record's other values with it, which this experiment does not do).

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
from privest.protocols.multidim import SOLUTIONS
from privest_studies import own_data
from privest_studies.experiment.scores import error_column

__all__ = ["ESTIMATORS", "KEYS", "SCORE_COLUMNS", "check", "is_columns", "load", "scores"]

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
    if data.get("missing", "error") != "error":
        raise ValueError(f"{key}: data.missing must be error (the default) for a multi-column experiment: dropping "
                         "one column's blank value would drop the record's other columns too")
    columns = spec["columns"]
    if not isinstance(columns, Mapping) or len(columns) < 2:
        raise ValueError(f"{key}.columns: a mapping of at least two CSV columns to their alphabets, got {columns!r}")
    ks = []
    for column, alphabet in columns.items():
        where = f"{key}.columns.{column}"
        if not isinstance(alphabet, Mapping) or alphabet.get("kind") not in COLUMN_KINDS:
            raise ValueError(f"{where}: an alphabet with kind one of {', '.join(COLUMN_KINDS)}, got {alphabet!r}")
        if alphabet.get("outside", "error") != "error":
            raise ValueError(f"{where}.outside: must be error (the default) in a multi-column experiment: dropping a "
                             "value outside the alphabet would drop the record's other columns too")
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


def load(data: Mapping[str, Any], columns: Mapping[str, Mapping[str, Any]]) -> tuple[np.ndarray, list[dict]]:
    """Every record's tuple of ``columns`` of ``data.csv``, each column on its alphabet.

    Returns
    -------
    secrets : numpy.ndarray of int64, shape (records, d)
        Column j in 0..k_j-1, the records in file order.
    alphabets : list of dict
        Each column's alphabet file (``own_data.alphabet_of``).

    Raises
    ------
    ValueError
        In one line naming the file, the line and the column of the first bad value of the first column that has one
        (``own_data.load``: blank, not a number, outside the column's alphabet), with how many such values; or a
        categorical column of one category.
    """
    secrets, alphabets = [], []
    for column, alphabet in columns.items():
        values, alphabet_file, _ = own_data.load(_column_data(data, str(column)), {**alphabet, "outside": "error"})
        if alphabet_file["k"] < 2:  # a categorical column of one value: nothing to estimate, and no protocol has k 1
            raise ValueError(f"{data['csv']}: column {column} holds one category only "
                             f"({alphabet_file['categories'][0]!r}); a column to estimate needs at least two")
        secrets.append(values)
        alphabets.append(alphabet_file)
    if len({s.size for s in secrets}) != 1:  # cannot happen when nothing is dropped; guard the tuples' alignment
        raise ValueError(f"{data['csv']}: the columns {list(columns)} kept different numbers of records")
    return np.stack(secrets, axis=1).astype(np.int64), alphabets


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
