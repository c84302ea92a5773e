"""The scores of an experiment (rule score): one tidy row per (point, run, method), the error (EMD, or the total
variation distance on categories) and l2^2 against the original distribution."""

from collections.abc import Mapping, Sequence

import numpy as np

from privest.alphabets import Alphabet
from privest_studies.experiment.families import RAW_SUFFIX
from privest_studies.experiment.spec import Experiment

__all__ = ["MEAN_COLUMNS", "SCORE_COLUMNS", "error_column", "score"]

SCORE_COLUMNS = ["run", "method", "emd", "l2sq", "iterations", "capped", "note"]
"""The columns after the point's on an ordered alphabet; on categories ``emd`` is ``tv`` (``error_column``)."""
MEAN_COLUMNS = ["mean", "mean_lower", "mean_upper", "mean_of", "mean_true"]
"""The columns a numeric alphabet's scores add (``score``'s ``numeric``): the estimate of the users' mean value and
its interval (a numeric mechanism's unbiased mean and 95% interval, ``mean_of`` "reports"; else the mean of the
estimated histogram's cell centres, ``mean_of`` "histogram", without an interval), and the data's mean."""


def error_column(kind: str) -> str:
    """The error column of an alphabet's kind ('linear', 'planar', 'categorical', or an own study's 'binned'): 'tv'
    on categories, where the EMD under the discrete metric is the total variation distance 1/2 sum |p - q|, else
    'emd' (in the alphabet's unit)."""
    return "tv" if kind == "categorical" else "emd"


def score(experiment: Experiment, alphabet: Alphabet, theta: np.ndarray, reports: Mapping[str, np.ndarray],
          estimates: Sequence[Mapping[str, np.ndarray]], numeric: tuple[float, float, float] | None = None
          ) -> tuple[list[dict], list[str]]:
    """One tidy row per (point, run, method): the error (column ``error_column(alphabet.kind)``: the EMD under the
    alphabet's ground distance, named tv on categories) and l2^2 to the original distribution, IBU's iterations and
    cap, and why a method could not run (NaN scores). Raw estimates get l2^2 only. The original is theta, or each
    run's drawn users (``experiment.score_against``; in an experiment of several rounds, each round's users' values).
    Returns rows and columns.

    With ``experiment.rounds`` (an own study's experiments) a row is one (point, round, run, method): a ``round``
    column before the run's, and ``eps_spent``, ``eps_spent_max`` after the note, the mean and the largest over the
    round's users of the eps spent so far (the reports archive's: the member's eps for each distinct value reported).

    ``numeric``: on a numeric alphabet, its (min, max) and the data's mean value; each row then ends with
    ``MEAN_COLUMNS``."""
    secret_counts = reports["secret_counts"].sum(axis=2)
    rounds = experiment.rounds or 1
    if experiment.score_against == "users" or rounds > 1:
        original = secret_counts / secret_counts.sum(axis=-1, keepdims=True)
    else:
        original = np.broadcast_to(np.asarray(theta, dtype=np.float64), secret_counts.shape)
    points = reports["points"]
    rows = []
    if experiment.score_noisy and "counts" in reports and reports["counts"].shape[-1] == alphabet.k:
        for i, by_run in enumerate(reports["counts"].sum(axis=2)):
            for run, c in enumerate(by_run):
                rows.append(_score_row(points[i], run, "noisy", c / c.sum(), original[i, run], alphabet, 0, False, ""))
                if numeric is not None:
                    rows[-1] |= _mean_columns(c / c.sum(), None, numeric)
    for archive in estimates:
        for m, method in enumerate(map(str, archive["methods"])):
            for i in range(points.size):
                for run, theta_hat in enumerate(archive["theta"][m, i]):
                    rows.append(_score_row(points[i], run, method, theta_hat, original[i, run], alphabet,
                                           int(archive["iterations"][m, i, run]),
                                           bool(archive["capped"][m, i, run]), str(archive["notes"][i])))
                    if numeric is not None:
                        given = archive["mean"][m, i, run] if "mean" in archive else None
                        rows[-1] |= _mean_columns(theta_hat, given, numeric)
    column = experiment.point_column or experiment.axis
    error = error_column(alphabet.kind)
    named = [error if c == "emd" else c for c in SCORE_COLUMNS] + (MEAN_COLUMNS if numeric is not None else [])
    if experiment.rounds is None:
        rows = [dict(experiment.labels) | {column: row.pop("point")} | dict(zip(named, row.values(), strict=True))
                for row in sorted(rows, key=lambda r: (r["point"], r["method"], r["run"]))]
        return rows, [label for label, _ in experiment.labels] + [column, *named]
    index = {float(value): i for i, value in enumerate(points)}
    tidy = []
    for row in sorted(rows, key=lambda r: (r["point"], r["method"], r["run"] % rounds, r["run"])):
        i, slot = index[float(row["point"])], row["run"]
        tidy.append(dict(experiment.labels) | {column: row.pop("point"), "round": slot % rounds + 1}
                    | dict(zip(named, row.values(), strict=True)) | {"run": slot // rounds}
                    | {name: float(reports[name][i, slot]) for name in ("eps_spent", "eps_spent_max")})
    rows = tidy
    return rows, [label for label, _ in experiment.labels] + [column, "round", *named, "eps_spent", "eps_spent_max"]


def _mean_columns(theta_hat: np.ndarray, given: np.ndarray | None, numeric: tuple[float, float, float]) -> dict:
    """The mean columns of one row (``MEAN_COLUMNS``): the mechanism's unbiased mean and interval where given, else
    the mean of the histogram's cell centres."""
    lo, hi, true = numeric
    nan = float("nan")
    if given is not None and np.all(np.isfinite(given)):
        return {"mean": float(given[0]), "mean_lower": float(given[1]), "mean_upper": float(given[2]),
                "mean_of": "reports", "mean_true": true}
    if not np.all(np.isfinite(theta_hat)):
        return {"mean": nan, "mean_lower": nan, "mean_upper": nan, "mean_of": "", "mean_true": true}
    k = theta_hat.size
    centres = lo + (np.arange(k) + 0.5) * (hi - lo) / k
    return {"mean": float(theta_hat @ centres), "mean_lower": nan, "mean_upper": nan, "mean_of": "histogram",
            "mean_true": true}


def _score_row(point: float, run: int, method: str, estimate: np.ndarray, original: np.ndarray, alphabet: Alphabet,
               iterations: int, capped: bool, note: str) -> dict:
    ran = bool(np.all(np.isfinite(estimate)))
    distribution = ran and not method.endswith(RAW_SUFFIX)
    return {"point": point, "run": run, "method": method,
            "emd": alphabet.emd(original, estimate) if distribution else float("nan"),
            "l2sq": float(np.sum((estimate - original) ** 2)) if ran else float("nan"),
            "iterations": iterations, "capped": capped, "note": "" if ran else f"NA: {note}"}
