"""Beyond the papers (issue 51, item 5): frequent items of domains too large to enumerate, found and estimated by the
sketch oracles of ``privest.protocols`` (CMS, HCMS, FLH, HM, PCS, RAPPOR-Bloom: ``by_name``, config ``oracles``) and
by the heavy-hitter protocols of ``privest.heavy_hitters`` (PEM, TreeHist, SFP: config ``heavy_hitters``).

Two datasets, every user reporting once a run:

- ``zipf``: a Zipf over a domain of 2^bits items (bits = 32 by default): user ranks r in 1..2^bits with
  P(r) proportional to r^-exponent (numpy's unbounded Zipf draw, ranks above 2^bits drawn again: exactly the
  truncated law), each rank mapped to its item id by the bijection id = (a (r - 1) + b) mod 2^bits, a odd and b
  drawn once from the config seed (``zipf_map``), so that the frequent items are scattered over the domain and no
  two ranks share an id. n users per (n, run), drawn afresh each run.
- ``gowalla``: the Gowalla check-ins of the San Francisco box (config ``regions.san_francisco.box``) on cells of
  ``cell_degrees`` degrees (1e-4 by default: 718 x 1364 = 979,352 cells, about 2^20, each about 11 m x 9 m); the cell
  id ``row * columns + column`` is the item (``degree_cells``). Every check-in is a user; n users per run are a
  subsample without replacement, or every check-in (n "all").

What is scored, per (protocol, eps, n, run), against the users' own shares (the empirical frequencies, which the
oracles estimate without bias):

- the candidate list C: the true top ``candidates`` items (by count, ties by smaller id): a list of plausible items
  the analyst is assumed to hold (a dictionary, a map of venues); the oracle is asked about C only;
- the error of the top items' frequencies: over the true top ``top`` items (the first ``top`` of C), the mean
  absolute error (``mae``) and the largest (``max_error``) of each estimate, in shares of the users;
- precision and recall of the top ``top`` found: the ``top`` items of C with the largest estimates (ties by C's
  order) against the true top set, every item whose count reaches the ``top``-th largest count (more than ``top``
  items where counts tie at the boundary, so recall may fall below precision), and their normalised cumulative rank
  (``ncr``: the true top ``top`` items weighted ``top``, ..., 1 by rank, the found ones' share of the weights);
- two estimators on the same reports: the unbiased estimate (``Sketch.estimate``) and the candidate MLE, GIBU on
  ``Sketch.candidate_group`` (C plus an "other" cell; not for HM, which has no such likelihood);
- a heavy-hitter protocol (``privest.heavy_hitters.<name>(k, eps, **options).run(values, rng, top)``) finds its own
  list, without C: precision and recall of what it returns, and its frequencies' errors over the true top items
  (an item it does not return estimated 0).

Config: ``large_domains``; sizes: ``scales.<scale>.large_domains``. One job per (dataset, protocol) runs every (eps,
n, run) and writes the tidy table of its rows; the summary gathers them, one figure per dataset.
"""

import importlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

import privest
from privest import heavy_hitters, protocols
from privest.sampling import rng_for
from privest_studies.configuration import scale_config, study_config
from privest_studies.regions import Box

STUDY = "large_domains"
RESULTS = f"results/{STUDY}"
DATASETS = ("zipf", "gowalla")
TITLES = {"zipf": "Zipf (exponent {exponent:g}) over 2^{bits} item ids",
          "gowalla": "Gowalla check-ins, San Francisco, {cell:g}° cells"}
UNBIASED, MLE, FOUND = "unbiased", "MLE", "heavy hitter"
METHODS = (UNBIASED, MLE, FOUND)
RUN_COLUMNS = ["dataset", "protocol", "method", "eps", "n", "run", "k", "mae", "max_error", "precision", "recall",
               "ncr", "found", "iterations", "capped"]
SUMMARY_COLUMNS = ["dataset", "protocol", "method", "eps", "n", "k", "runs", "mae_mean", "mae_sd", "max_error_mean",
                   "max_error_sd", "precision_mean", "recall_mean", "ncr_mean", "iterations_mean", "capped_runs"]
ALL = "all"
"""The Gowalla size that takes every check-in (scales.<scale>.large_domains.gowalla_n)."""


def protocols_of(config: Mapping[str, Any]) -> list[str]:
    """Every protocol of the study, in the figures' order: the oracles, then the heavy-hitter protocols."""
    study = study_config(config, STUDY)
    return [*study["oracles"], *study["heavy_hitters"]]


def check(config: Mapping[str, Any]) -> None:
    """What the schema cannot say: no value listed twice, ``top`` at most ``candidates``, and only heavy-hitter
    protocols of ``privest.heavy_hitters`` listed. One line naming the key."""
    study = study_config(config, STUDY)
    for name in ("oracles", "heavy_hitters", "eps"):
        if len(set(study[name])) != len(study[name]):
            raise ValueError(f"config key {STUDY}.{name}: lists a value twice")
    if study["top"] > study["candidates"]:
        raise ValueError(f"config key {STUDY}.top: {study['top']} exceeds {STUDY}.candidates "
                         f"({study['candidates']}): the true top items must be candidates")
    for name in study["heavy_hitters"]:
        heavy_hitter_factory(name)
    sizes = scale_config(config, STUDY)
    for name in ("zipf_n", "gowalla_n"):
        if len(set(map(str, sizes[name]))) != len(sizes[name]):
            raise ValueError(f"config key scales.{config['scale']}.{STUDY}.{name}: lists a value twice")


HEAVY_HITTERS = ("pem", "treehist", "sfp")
"""The heavy-hitter protocols a study may list (``privest.heavy_hitters``)."""


def heavy_hitter_factory(name: str) -> Callable[..., Any]:
    """``privest.heavy_hitters.<name>``, the factory ``(k, eps, **options)`` of a heavy-hitter protocol with
    ``run(values, rng, top)``; ValueError naming the config key for a name not in HEAVY_HITTERS."""
    if name not in HEAVY_HITTERS:
        raise ValueError(f"config key {STUDY}.heavy_hitters: {name!r} is not a heavy-hitter protocol; one of "
                         f"{', '.join(HEAVY_HITTERS)}")
    return getattr(importlib.import_module("privest.heavy_hitters"), name)


def degree_cells(lat: np.ndarray, lon: np.ndarray, box: Box, step: float) -> tuple[np.ndarray, int, int]:
    """The cell id of each point inside ``box`` on cells of ``step`` degrees, and the grid's (rows, columns).

    Row floor((lat - lat_min) / step) and column floor((lon - lon_min) / step), the quotients rounded to 1e-6 of a
    cell first (so that a coordinate written on a grid line falls in the cell above it despite its binary
    representation), the top and right bounds (inclusive) in the last row and column; rows = ceil((lat_max -
    lat_min) / step), columns likewise (the quotients rounded alike). Cell id = row * columns + column, in
    0..rows * columns - 1. A point outside the box raises ValueError.
    """
    lat, lon = np.asarray(lat, dtype=np.float64), np.asarray(lon, dtype=np.float64)
    if not step > 0:
        raise ValueError(f"step must be a positive number of degrees, got {step!r}")
    inside = box.contains(lat, lon)
    if not inside.all():
        raise ValueError(f"{int((~inside).sum())} points lie outside the box {box}: drop them first")
    rows = int(np.ceil(np.round((box.lat_max - box.lat_min) / step, 6)))
    columns = int(np.ceil(np.round((box.lon_max - box.lon_min) / step, 6)))
    row = np.minimum(np.floor(np.round((lat - box.lat_min) / step, 6)).astype(np.int64), rows - 1)
    column = np.minimum(np.floor(np.round((lon - box.lon_min) / step, 6)).astype(np.int64), columns - 1)
    return row * columns + column, rows, columns


def gowalla_cells(lat: np.ndarray, lon: np.ndarray, box: Box, step: float) -> dict[str, np.ndarray]:
    """The data file of the Gowalla dataset: the cell of every check-in inside ``box`` (``degree_cells``; the others
    dropped and counted), the domain size k = rows * columns, the grid and the counts read and dropped."""
    lat, lon = np.asarray(lat, dtype=np.float64), np.asarray(lon, dtype=np.float64)
    inside = box.contains(lat, lon)
    cells, rows, columns = degree_cells(lat[inside], lon[inside], box, step)
    return {"cells": cells, "k": np.int64(rows * columns), "rows": np.int64(rows), "columns": np.int64(columns),
            "step": np.float64(step), "read": np.int64(lat.size), "dropped": np.int64((~inside).sum())}


def zipf_ranks(n: int, exponent: float, bits: int, rng: np.random.Generator) -> np.ndarray:
    """n ranks in 1..2^bits (uint64) drawn i.i.d. with P(r) = r^-exponent / sum_{s <= 2^bits} s^-exponent: numpy's
    unbounded Zipf draw (exponent > 1), the ranks above 2^bits drawn again until none is left (rejection: exactly the
    truncated law)."""
    if not exponent > 1:
        raise ValueError(f"exponent must exceed 1 (numpy's Zipf draw), got {exponent!r}")
    ranks = rng.zipf(exponent, n).astype(np.uint64)  # a rank beyond 2^63 saturates: redrawn below like any other
    bad = np.flatnonzero((ranks > np.uint64(1) << np.uint64(bits)) | (ranks == 0))
    while bad.size:
        ranks[bad] = rng.zipf(exponent, bad.size).astype(np.uint64)
        bad = bad[(ranks[bad] > np.uint64(1) << np.uint64(bits)) | (ranks[bad] == 0)]
    return ranks


def zipf_map(bits: int, rng: np.random.Generator) -> tuple[int, int]:
    """(a, b) of the rank-to-id bijection ``zipf_ids``: a odd and b uniform in 0..2^bits - 1."""
    a = int(rng.integers(0, 1 << (bits - 1), dtype=np.uint64)) * 2 + 1
    return a, int(rng.integers(0, 1 << bits, dtype=np.uint64))


def zipf_ids(ranks: np.ndarray, bits: int, a: int, b: int) -> np.ndarray:
    """The item id of each rank: (a (r - 1) + b) mod 2^bits (uint64), a bijection of 0..2^bits - 1 since a is odd.
    The products wrap modulo 2^64, which 2^bits divides (bits <= 32, so a (r - 1) < 2^64 anyway)."""
    if a % 2 == 0 or not 1 <= bits <= 32:
        raise ValueError(f"zipf_ids needs an odd a and 1 <= bits <= 32, got a = {a}, bits = {bits}")
    mask = np.uint64((1 << bits) - 1)
    ranks = np.asarray(ranks, dtype=np.uint64)
    return ((ranks - np.uint64(1)) * np.uint64(a) + np.uint64(b)) & mask


def true_top(values: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``count`` most frequent items of ``values`` (by count, ties by the smaller item) and their shares."""
    items, counts = np.unique(values, return_counts=True)
    order = np.lexsort((items, -counts))[:count]
    return items[order], counts[order] / values.size


def top_set(items: np.ndarray, shares: np.ndarray, top: int) -> np.ndarray:
    """The true top set: every item of the ranked list ``items`` whose share reaches the ``top``-th largest (more than
    ``top`` where shares tie at the boundary; ``items`` must hold every item that ties)."""
    return items[shares >= shares[min(top, shares.size) - 1]]


def scores(found: np.ndarray, truth: np.ndarray, ranked: np.ndarray) -> dict[str, float]:
    """Precision and recall of the found items against the true top set ``truth`` and their normalised cumulative
    rank against the true top items ``ranked`` (most frequent first): ``privest.heavy_hitters``' scores."""
    return {"precision": heavy_hitters.precision(found, truth), "recall": heavy_hitters.recall(found, truth),
            "ncr": heavy_hitters.ncr(found, ranked)}


def ranked_found(candidates: np.ndarray, estimates: np.ndarray, top: int) -> np.ndarray:
    """The ``top`` candidates with the largest estimates, ties by the candidates' order."""
    return candidates[np.argsort(-estimates, kind="stable")[:top]]


def errors(estimates: np.ndarray, shares: np.ndarray) -> tuple[float, float]:
    """The mean and the largest absolute error of the estimates of the true top items' shares."""
    gap = np.abs(np.asarray(estimates, dtype=np.float64) - shares)
    return float(gap.mean()), float(gap.max())


def found_estimates(items: np.ndarray, found: np.ndarray, frequencies: np.ndarray) -> np.ndarray:
    """A heavy-hitter protocol's estimate of each of ``items``: its frequency where it found the item, else 0."""
    position = {int(item): i for i, item in enumerate(np.asarray(found).tolist())}
    return np.array([frequencies[position[int(x)]] if int(x) in position else 0.0 for x in items.tolist()])


def heavy_hitter_result(result: Any) -> tuple[np.ndarray, np.ndarray]:
    """(items, frequencies) of a heavy-hitter protocol's ``run``: an object with ``items`` and ``frequencies``, or
    the pair itself (issue 51, item 3: "the top items and their estimated frequencies")."""
    if hasattr(result, "items") and hasattr(result, "frequencies"):
        items, frequencies = result.items, result.frequencies
    else:
        items, frequencies = result
    return np.asarray(items, dtype=np.uint64), np.asarray(frequencies, dtype=np.float64)


def oracle_rows(name: str, k: int, eps: float, values: np.ndarray, ranked: tuple[np.ndarray, np.ndarray],
                 rng: np.random.Generator, study: Mapping[str, Any], mle: bool = True) -> list[dict]:
    """The unbiased estimate's row and, where the oracle has a candidate likelihood (and ``mle``), the MLE's, on one
    run's reports."""
    candidates, shares = ranked
    top = int(study["top"])
    truth = top_set(candidates, shares, top)
    oracle = protocols.by_name(name, k, eps, **study["options"].get(name, {}))
    reports = oracle.sample(values, rng)
    estimates = {UNBIASED: (oracle.estimate(reports, candidates), 0, False)}
    if name != "hm" and mle:
        rule = study["ibu"]
        result = privest.gibu([oracle.candidate_group(reports, candidates)], delta=float(rule["delta"]),
                              max_iter=int(rule["max_iter"]), accelerate=rule["accelerate"])
        estimates[MLE] = (result.theta[:-1], int(result.iterations), bool(result.capped))
    rows = []
    for method, (estimate, iterations, capped) in estimates.items():
        mae, largest = errors(estimate[:top], shares[:top])
        rows.append({"method": method, "mae": mae, "max_error": largest,
                     **scores(ranked_found(candidates, estimate, top), truth, candidates[:top]),
                     "found": top, "iterations": iterations, "capped": capped})
    return rows


def heavy_hitter_rows(name: str, k: int, eps: float, values: np.ndarray, ranked: tuple[np.ndarray, np.ndarray],
                      rng: np.random.Generator, study: Mapping[str, Any]) -> tuple[list[dict], np.ndarray]:
    """The row of one heavy-hitter protocol's run: what it found, scored as the module docstring says; and the items
    it found."""
    candidates, shares = ranked
    top = int(study["top"])
    protocol = heavy_hitter_factory(name)(k, eps, **study["heavy_hitter_options"].get(name, {}))
    found, frequencies = heavy_hitter_result(protocol.run(values, rng, top))
    mae, largest = errors(found_estimates(candidates[:top], found, frequencies), shares[:top])
    return [{"method": FOUND, "mae": mae, "max_error": largest,
             **scores(found, top_set(candidates, shares, top), candidates[:top]),
             "found": int(found.size), "iterations": 0, "capped": False}], found


def sizes(dataset: str, config: Mapping[str, Any]) -> list[int | str]:
    """The n of a dataset at the active scale (Gowalla's may be ``ALL``)."""
    return list(scale_config(config, STUDY)[f"{dataset}_n"])


def users(dataset: str, n: int | str, run: int, data: Mapping[str, np.ndarray], config: Mapping[str, Any]
          ) -> tuple[np.ndarray, int]:
    """One run's users' items and the domain size k: the Zipf drawn afresh (rng_for(seed, study, "zipf", n, run)),
    or Gowalla's check-ins, every one (n "all") or a subsample (rng_for(seed, study, "gowalla", n, run))."""
    seed, study = int(config["seed"]), study_config(config, STUDY)
    if dataset == "zipf":
        spec = study["zipf"]
        bits = int(spec["bits"])
        a, b = zipf_map(bits, rng_for(seed, STUDY, "zipf", "ids"))
        ranks = zipf_ranks(int(n), float(spec["exponent"]), bits, rng_for(seed, STUDY, "zipf", n, run))
        return zipf_ids(ranks, bits, a, b), 1 << bits
    cells, k = data["cells"], int(data["k"])
    if n == ALL:
        return cells, k
    if int(n) > cells.size:
        raise ValueError(f"config key scales.{config['scale']}.{STUDY}.gowalla_n: {n} exceeds the "
                         f"{cells.size} check-ins")
    return cells[rng_for(seed, STUDY, "gowalla", n, run).choice(cells.size, int(n), replace=False)], k


def run_job(dataset: str, protocol: str, data: Mapping[str, np.ndarray], config: Mapping[str, Any]) -> list[dict]:
    """Every (eps, n, run) of one protocol on one dataset: the tidy rows of ``RUN_COLUMNS``. The users of a (n, run)
    are the same for every protocol (paired); the reports come from rng_for(seed, study, dataset, protocol, eps, n,
    run)."""
    study = study_config(config, STUDY)
    runs = int(scale_config(config, STUDY)["runs"])
    heavy = protocol in study["heavy_hitters"]
    rows = []
    for n in sizes(dataset, config):
        for run in range(runs):
            values, k = users(dataset, n, run, data, config)
            ranked = true_top(values, int(study["candidates"]))
            for eps in study["eps"]:
                rng = rng_for(int(config["seed"]), STUDY, dataset, protocol, eps, n, run)
                found = (heavy_hitter_rows(protocol, k, float(eps), values, ranked, rng, study)[0] if heavy
                         else oracle_rows(protocol, k, float(eps), values, ranked, rng, study))
                for row in found:
                    rows.append({"dataset": dataset, "protocol": protocol, "eps": float(eps), "n": int(values.size),
                                 "run": run, "k": k, **row})
    return rows


def summary(rows: Sequence[Mapping[str, Any]]) -> list[dict]:
    """The mean (and s.d.) over runs of each (dataset, protocol, method, eps, n), in the rows' first-seen order."""
    groups: dict[tuple, list[Mapping[str, Any]]] = {}
    for row in rows:
        key = tuple(row[c] for c in ("dataset", "protocol", "method", "eps", "n"))
        groups.setdefault(key, []).append(row)
    lines = []
    for key, group in groups.items():
        line = dict(zip(("dataset", "protocol", "method", "eps", "n"), key, strict=True))
        line["k"], line["runs"] = group[0]["k"], len(group)
        for metric in ("mae", "max_error"):
            values = np.array([r[metric] for r in group], dtype=np.float64)
            line[f"{metric}_mean"] = float(values.mean())
            line[f"{metric}_sd"] = float(values.std(ddof=1)) if values.size > 1 else float("nan")
        for metric in ("precision", "recall", "ncr", "iterations"):
            line[f"{metric}_mean"] = float(np.mean([float(r[metric]) for r in group]))
        line["capped_runs"] = int(sum(bool(r["capped"]) for r in group))
        lines.append(line)
    return lines


def mle_verdicts(lines: Sequence[Mapping[str, Any]]) -> dict[tuple[str, str], str]:
    """The decision rule of the catalogue (written before the results), per (dataset, oracle with an MLE): "MLE more
    accurate" when the MLE's mean MAE is below the unbiased estimate's at every (eps, n), "unbiased more accurate"
    when above at every one, else "mixed"."""
    mae = {(x["dataset"], x["protocol"], x["method"], x["eps"], x["n"]): x["mae_mean"] for x in lines}
    below: dict[tuple[str, str], list[bool]] = {}
    for (dataset, protocol, method, eps, n), value in mae.items():
        if method == MLE:
            below.setdefault((dataset, protocol), []).append(value < mae[(dataset, protocol, UNBIASED, eps, n)])
    return {key: "MLE more accurate" if all(flags) else "unbiased more accurate" if not any(flags) else "mixed"
            for key, flags in below.items()}


def title(dataset: str, config: Mapping[str, Any], k: int | None = None) -> str:
    """The dataset's name with its domain (and its size k where given), for titles."""
    study = study_config(config, STUDY)
    name = TITLES[dataset].format(bits=study["zipf"]["bits"], exponent=study["zipf"]["exponent"],
                                  cell=study["gowalla"]["cell_degrees"])
    return name + (f" (k = {k:,})" if k is not None else "")


def n_label(n: int, dataset: str, config: Mapping[str, Any], total: int | None = None) -> str:
    """A panel's n: "n = 10,000", or "n = 123,026 (every check-in)"."""
    every = dataset == "gowalla" and total is not None and n == total and ALL in sizes(dataset, config)
    return f"n = {n:,}" + (" (every check-in)" if every else "")


def summary_markdown(lines: Sequence[Mapping[str, Any]], config: Mapping[str, Any]) -> str:
    """The summary as markdown: one table per dataset, a line per (protocol, method, eps, n)."""
    study = study_config(config, STUDY)
    out = [f"# Frequent items of large domains (issue 51, item 5; scale {config['scale']})", "",
           f"Top {study['top']} items; candidate list: the true top {study['candidates']}; errors in shares of the "
           "users (mean over runs).", ""]
    for dataset in DATASETS:
        chosen = [line for line in lines if line["dataset"] == dataset]
        if not chosen:
            continue
        out += [f"## {title(dataset, config)}", "",
                "| protocol | method | eps | n | runs | MAE top | max error top | precision | recall | NCR |",
                "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        out += [f"| {x['protocol']} | {x['method']} | {x['eps']:g} | {x['n']:,} | {x['runs']} | {x['mae_mean']:.5f} | "
                f"{x['max_error_mean']:.5f} | {x['precision_mean']:.2f} | {x['recall_mean']:.2f} | "
                f"{x['ncr_mean']:.2f} |" for x in chosen]
        verdicts = {p: v for (d, p), v in mle_verdicts(lines).items() if d == dataset}
        if verdicts:
            out += ["", "Decision rule (catalogue, written before the results): the MLE is more accurate when its mean "
                    "MAE is lower at every (eps, n). " + "; ".join(f"{p}: {v}" for p, v in verdicts.items()) + "."]
        out.append("")
    return "\n".join(out)
