"""Beyond the papers (issue 25): every estimator across every protocol. For each standard protocol of
``privest.protocols`` (and the truncated geometric mechanism on ordinal data) at several eps, n users drawn i.i.d.
from theta report through it alone, and on the same reports every estimator runs:

- the raw unbiased estimate ("base") and the NDSS 2020 consistency post-processings of ``privest.consistency``
  (Wang, Lopuhaä-Zwakenberg, Chen, Škorić and Li, section IV);
- the MLE: GIBU on the protocol's reports (IBU on the geometric mechanism's counts), with the coverage of its 95%
  Wald intervals (``IbuResult.interval``);
- the closed form where one exists: the k-RR MLE for GRR (Pinzón et al.).

Each estimate is scored by its distance to theta, the earth mover's distance on an ordinal alphabet (the 1-D
formula sum |F-hat - F| over the alphabet, applied as it is to estimates that are not distributions:
``privest.emd_1d(estimate, theta, signed=True)``) or the total variation 1/2 sum |theta-hat - theta| on a categorical
one (``privest.total_variation(..., signed=True)``), and by the squared l2 error. Three datasets: the Adult
ages, a Zipf distribution over k values and a categorical Adult column. Config: ``estimator_comparison``; sizes:
``scales.<scale>.estimator_comparison``. The study does not use the experiment chain: one job per dataset and
protocol runs its every (eps, run) and writes the tidy table of their scores; the summary gathers them.
"""

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

import privest
from privest import consistency, protocols
from privest_studies import tables
from privest_studies.configuration import scale_config, study_config
from privest_studies.experiment import KIND_NAMES

STUDY = "estimator_comparison"
RESULTS = f"results/{STUDY}"
DATASETS = ("ages", "zipf", "adult")
"""The datasets: the Adult ages (ordinal), the Zipf (ordinal), an Adult column of categories."""
ORDINAL = {"ages": True, "zipf": True, "adult": False}
"""Whether a dataset's alphabet is ordered (EMD) or categorical (total variation; no geometric mechanism)."""
TITLES = {"ages": "Adult ages", "zipf": "Zipf", "adult": "Adult, one categorical column"}
COLUMNS = ["dataset", "protocol", "eps", "n", "run", "method", "distance", "l2sq", "coverage", "iterations"]
MLE, CLOSED_FORM = "MLE", "closed form"


def methods(config: Mapping[str, Any]) -> list[str]:
    """Every method the study scores, in the figures' order: the post-processings, the MLE, the closed form."""
    return [*study_config(config, STUDY)["posts"], MLE, CLOSED_FORM]


def check(config: Mapping[str, Any]) -> None:
    """What the schema cannot say: no protocol, eps or post listed twice. One line naming the key."""
    study = study_config(config, STUDY)
    for name in ("protocols", "eps", "posts"):
        if len(set(study[name])) != len(study[name]):
            raise ValueError(f"config key {STUDY}.{name}: lists a value twice")


def categorical_alphabet(values: Sequence[str], column: str) -> tuple[dict, np.ndarray]:
    """The categorical dataset's alphabet file content and theta: the column's categories in sorted order and their
    empirical frequencies."""
    categories, counts = np.unique(np.asarray(values, dtype=str), return_counts=True)
    if categories.size < 2:
        raise ValueError(f"config key {STUDY}.categorical.column: {column!r} holds fewer than 2 categories")
    label = f"X = the {categories.size} categories of Adult's {column}, θ their empirical distribution"
    return {"kind": "categorical", "k": int(categories.size), "categories": categories.tolist(), "label": label}, (
        counts / counts.sum())


def distance(estimate: np.ndarray, theta: np.ndarray, ordinal: bool) -> float:
    """EMD (ordinal, steps of 1: sum |F-hat - F|) or total variation (categorical) between any vector and theta: the
    library's ``privest.emd_1d(estimate, theta, signed=True)`` or ``privest.total_variation(..., signed=True)``."""
    if ordinal:
        return privest.emd_1d(estimate, theta, signed=True)
    return privest.total_variation(estimate, theta, signed=True)


def _one_run(kind: str, eps: float, theta: np.ndarray, n: int, rng: np.random.Generator, posts: Sequence[str],
             stopping: Mapping[str, Any], level: float) -> list[tuple[str, np.ndarray, float, int]]:
    """Every method's estimate from one run's reports: (method, estimate, coverage of the MLE's intervals or NaN,
    iterations or 0)."""
    k = theta.size
    secret_counts = rng.multinomial(n, theta)
    rule = {**privest.estimators.PLAIN_IBU, "delta": float(stopping["delta"]), "max_iter": int(stopping["max_iter"]),
            "accelerate": stopping.get("accelerate")}
    if kind == "geometric":
        A = privest.geometric(k, eps)
        counts = privest.sample_counts(A, secret_counts, rng)
        raw, variance = privest.inv(A, counts), np.maximum(privest.inv_variance(A, counts), 1e-300)
        mle = privest.ibu(A, counts, **rule)
        closed = None
    else:
        protocol = protocols.by_name(kind, k, eps)
        reports = protocol.sample(rng.permutation(np.repeat(np.arange(k), secret_counts)), rng, packed=True)
        raw = protocol.estimate(reports)
        variance = protocol.q_star * (1 - protocol.q_star) / (n * (protocol.p_star - protocol.q_star) ** 2)
        mle = privest.gibu([(protocol, reports)], **rule)
        closed = privest.krr_mle(np.bincount(reports, minlength=k), eps) if kind == "grr" else None
    out = [(post, consistency.apply(raw, post, variance=variance, n=n), np.nan, 0) for post in posts]
    out.append((MLE, mle.theta, float(mle.interval(level).covers(theta).mean()), int(mle.iterations)))
    if closed is not None:
        out.append((CLOSED_FORM, closed, np.nan, 0))
    return out


def protocols_of(dataset: str, config: Mapping[str, Any]) -> list[str]:
    """The protocols the study runs on a dataset, in the config's order: the geometric mechanism on the ordinal
    datasets only. One ``ec_estimate`` job each."""
    return [kind for kind in study_config(config, STUDY)["protocols"] if kind != "geometric" or ORDINAL[dataset]]


def run_protocol(dataset: str, kind: str, theta: np.ndarray, ordinal: bool, config: Mapping[str, Any]) -> list[dict]:
    """The tidy score rows of one protocol on one dataset: every (eps, run) and method. Each run's draws come from
    rng_for(seed, study, dataset, protocol, eps, run), so a protocol's rows do not depend on the others'."""
    if kind == "geometric" and not ordinal:
        raise ValueError(f"config key {STUDY}.protocols: the geometric mechanism needs an ordinal dataset, "
                         f"{dataset!r} is categorical")
    study, scale = study_config(config, STUDY), scale_config(config, STUDY)
    n, runs = int(scale["n"]), int(scale["runs"])
    rows = []
    for eps in study["eps"]:
        for run in range(runs):
            rng = privest.rng_for(int(config["seed"]), STUDY, dataset, kind, float(eps), run)
            for method, estimate, coverage, iterations in _one_run(kind, float(eps), theta, n, rng,
                                                                    study["posts"], study["ibu"], study["level"]):
                rows.append({"dataset": dataset, "protocol": kind, "eps": float(eps), "n": n, "run": run,
                             "method": method, "distance": distance(estimate, theta, ordinal),
                             "l2sq": float(((estimate - theta) ** 2).sum()), "coverage": coverage,
                             "iterations": iterations})
    return rows


SUMMARY_COLUMNS = ["dataset", "protocol", "eps", "method", "runs", "distance_mean", "l2sq_mean", "coverage_mean",
                   "rank"]


def summary(rows: Sequence[Mapping[str, Any]]) -> list[dict]:
    """Per (dataset, protocol, eps, method): the mean distance, mean l2^2 and mean MLE coverage over runs, and the
    method's rank by mean distance within its (dataset, protocol, eps) (1 = the winner)."""
    groups: dict[tuple, list[Mapping]] = {}
    for row in rows:
        groups.setdefault((row["dataset"], row["protocol"], float(row["eps"]), row["method"]), []).append(row)
    out = []
    for key, runs in groups.items():
        coverage = np.array([float(r["coverage"]) for r in runs])
        out.append(dict(zip(("dataset", "protocol", "eps", "method"), key, strict=True)) | {
            "runs": len(runs), "distance_mean": float(np.mean([float(r["distance"]) for r in runs])),
            "l2sq_mean": float(np.mean([float(r["l2sq"]) for r in runs])),
            "coverage_mean": float(np.nanmean(coverage)) if np.isfinite(coverage).any() else np.nan})
    cells: dict[tuple, list[dict]] = {}
    for line in out:
        cells.setdefault((line["dataset"], line["protocol"], line["eps"]), []).append(line)
    for lines in cells.values():
        for rank, line in enumerate(sorted(lines, key=lambda line: line["distance_mean"]), start=1):
            line["rank"] = rank
    return out


def metric_name(dataset: str) -> str:
    """The distance of a dataset, as the figures and table name it."""
    return "total variation" if dataset == "adult" else "EMD (steps of 1)"


def protocol_label(kind: str) -> str:
    return "geometric" if kind == "geometric" else KIND_NAMES.get(kind, kind.upper())


def summary_markdown(lines: Sequence[Mapping[str, Any]], config: Mapping[str, Any], labels: Mapping[str, str]) -> str:
    """Per dataset, one row per (protocol, eps): the winner by mean distance, its mean, the MLE's, Norm-Sub's and the
    raw estimate's, the MLE's 95% coverage and the wins of each method over the dataset."""
    scale = scale_config(config, STUDY)
    out = ["# Every estimator across every protocol: who wins where", "",
           f"n = {scale['n']:,} users drawn i.i.d. from θ per run; runs per (protocol, ε): {scale['runs']} "
           f"(scale: {config['scale']}); the winner has the smallest mean distance to θ. The raw estimate (base) and "
           "norm may be negative and norm-cut and power need not sum to 1: their distance is computed as they are.",
           ""]
    for dataset in dict.fromkeys(line["dataset"] for line in lines):
        mine = [line for line in lines if line["dataset"] == dataset]
        cell = {(line["protocol"], line["eps"], line["method"]): line for line in mine}
        rows = []
        for protocol, eps in dict.fromkeys((line["protocol"], line["eps"]) for line in mine):
            winner = next(line for line in mine if line["protocol"] == protocol and line["eps"] == eps
                          and line["rank"] == 1)

            def mean(method: str, protocol: str = protocol, eps: float = eps,
                     cell: Mapping[tuple, Mapping] = cell) -> str:
                line = cell.get((protocol, eps, method))
                return f"{line['distance_mean']:.4g}" if line else "—"

            coverage = cell.get((protocol, eps, MLE), {}).get("coverage_mean", np.nan)
            rows.append({"protocol": protocol_label(protocol), "ε": f"{eps:g}", "winner": winner["method"],
                         "winner's mean": f"{winner['distance_mean']:.4g}", "MLE": mean(MLE),
                         "norm-sub": mean("norm-sub"), "base (raw)": mean("base"),
                         "MLE 95% coverage": f"{coverage:.3f}"})
        wins: dict[str, int] = {}
        for line in mine:
            if line["rank"] == 1:
                wins[line["method"]] = wins.get(line["method"], 0) + 1
        out += [f"## {TITLES.get(dataset, dataset)}: {labels.get(dataset, '')}", "",
                f"Mean {metric_name(dataset)} to θ.", "",
                tables.markdown_table(rows, list(rows[0])), "",
                "Wins: " + ", ".join(f"{method} {count}" for method, count in sorted(wins.items(),
                                                                                    key=lambda item: -item[1])), ""]
    return "\n".join(out)


def ratio_grid(lines: Sequence[Mapping[str, Any]], dataset: str, order: Sequence[str]
               ) -> tuple[list[tuple[str, float]], list[str], np.ndarray, np.ndarray]:
    """A dataset's heatmap: its (protocol, eps) columns in study order, the methods (rows) of ``order`` that ran, each
    cell's mean distance over the column's best (1 = the winner; NaN where the method did not run), and the MLE's
    mean coverage per column."""
    mine = [line for line in lines if line["dataset"] == dataset]
    columns = list(dict.fromkeys((line["protocol"], float(line["eps"])) for line in mine))
    rows = [method for method in order if any(line["method"] == method for line in mine)]
    cell = {(line["protocol"], float(line["eps"]), line["method"]): line for line in mine}
    ratio = np.full((len(rows), len(columns)), np.nan)
    coverage = np.full(len(columns), np.nan)
    for j, (protocol, eps) in enumerate(columns):
        best = min(line["distance_mean"] for line in mine if (line["protocol"], float(line["eps"])) == (protocol, eps))
        for i, method in enumerate(rows):
            if (protocol, eps, method) in cell:
                ratio[i, j] = cell[protocol, eps, method]["distance_mean"] / best
        if (protocol, eps, MLE) in cell:
            coverage[j] = cell[protocol, eps, MLE]["coverage_mean"]
    return columns, rows, ratio, coverage
