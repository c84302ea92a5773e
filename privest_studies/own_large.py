"""A researcher's experiments on a large alphabet (``alphabet: {kind: large}``: a CSV column of arbitrary strings or
integers, each distinct cell a 64-bit item, ``privest_studies.own_items``): the sketch oracles of
``privest.protocols`` and the heavy-hitter protocols of ``privest.heavy_hitters``, scored on the column's top items as
the large-domains study scores them (``privest_studies.large_domains``).

    studies:
      words:
        data: {csv: words.csv, column: word, missing: drop}
        alphabet: {kind: large}
        runs: 3
        experiments:
          frequent_words:
            compare: [cms, flh, pcs, pem, sfp]   # sketch oracles and heavy-hitter protocols, each on its own
            eps: [1.0, 2.0, 4.0]
            estimators: [unbiased, mle]          # a sketch's estimates: Sketch.estimate, and the candidate MLE
            top: 10                              # T, the top items scored (default 10)
            candidates: 40                       # the true top items the sketches are asked about (default 4 T)

Every kept record is a user, reporting once a run at each eps. At each (eps, run), in this order:

1. each heavy-hitter protocol finds its own top T, without a candidate list
   (``privest.heavy_hitters.<name>(k, eps).run(items, rng, T)``, k the alphabet's domain; SFP on CMS fragments,
   ``HEAVY_HITTER_OPTIONS``);
2. each sketch oracle's reports are queried on the column's true top ``candidates`` items (by count, ties by the
   smaller item) followed by every item a heavy-hitter protocol of the experiment found at this (eps, run) that is
   not among them: the unbiased estimate (``Sketch.estimate``) and, with ``mle`` (not for HM), GIBU on
   ``Sketch.candidate_group`` (the list plus an "other" cell), stopped by the study's ``ibu``; its top T found are
   the listed items with the largest estimates;
3. scores (``large_domains.errors`` and ``scores``): the mean absolute and the largest error of the true top T
   items' frequencies (shares of the records; an item a protocol did not return estimated 0), and the precision,
   recall (against every item whose count reaches the T-th largest) and normalised cumulative rank of the top T
   found.

Run r of protocol p at eps draws from ``rng_for(seed, study, experiment, p, eps, r)``. The runs' rows
(``large_domains.RUN_COLUMNS``, ``dataset`` the experiment's name) are averaged over runs by ``large_domains.summary``
and drawn against eps by ``large_figures.draw``.

``check`` refuses, in one line naming the key, any mechanism but these protocols on a large alphabet (the chain's
estimators need the likelihood of every secret of an enumerated alphabet), and ``own_study`` refuses these protocols
on an enumerated one (its experiments run through the chain, which estimates every secret, not a queried list).
"""

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from privest.protocols import SKETCH_NAMES, by_name
from privest.sampling import rng_for
from privest_studies import large_domains as ld

__all__ = ["ESTIMATORS", "HEAVY_HITTERS", "KEYS", "PROTOCOLS", "check", "check_alphabet", "is_large", "notes",
           "protocols_of", "run_rows", "spec_of", "title"]

HEAVY_HITTERS = ld.HEAVY_HITTERS
PROTOCOLS = (*SKETCH_NAMES, *HEAVY_HITTERS)
"""What an experiment on a large alphabet may run: the sketch oracles, then the heavy-hitter protocols."""
ESTIMATORS = {"unbiased": ld.UNBIASED, "mle": ld.MLE}
"""A sketch oracle's estimators (config name -> method of the rows); a heavy-hitter protocol gives its own list."""
KEYS = ("compare", "mechanisms", "eps", "estimators", "top", "candidates")
HEAVY_HITTER_OPTIONS = {"sfp": {"oracle": "cms"}}
"""The heavy-hitter protocols' options beside their defaults: SFP on CMS fragments, as the large-domains study runs
it (on its default FLH, 400 users of a 2^64 domain took 17 s of CPU where on CMS 4.2 s: measured)."""
TOP, CANDIDATES_PER_TOP = 10, 4
STOPPING = {"delta": 1e-10, "max_iter": 10_000, "accelerate": "squarem-direct"}


def is_large(study: Mapping[str, Any]) -> bool:
    """Whether a study's alphabet is large (its experiments run here, not through the chain)."""
    return study.get("alphabet", {}).get("kind") == "large"


def protocols_of(spec: Mapping[str, Any]) -> list[str]:
    """The protocols of an experiment (its ``compare`` list, or its one mechanism), as the config names them."""
    entries = spec["compare"] if "compare" in spec else spec["mechanisms"]
    return [entry if isinstance(entry, str) else entry["kind"] for entry in entries]


def check_alphabet(key: str, study: Mapping[str, Any]) -> None:
    """One line naming ``key`` (the study's config key) when a large alphabet is given more than its kind (its items
    are the column's cells, none outside it) or a prebuilt dataset (ages and planar are on alphabets of their own).
    Nothing for a study on another alphabet."""
    if not is_large(study):
        return
    if extra := [name for name in study["alphabet"] if name not in ("kind", "outside")]:
        raise ValueError(f"{key}.alphabet.{extra[0]}: a large alphabet takes only kind (its items are the column's "
                         "distinct cells, read as written: own_items)")
    if study["data"].get("builtin") in ("ages", "planar"):
        raise ValueError(f"{key}.data.builtin: {study['data']['builtin']} is prebuilt on its own alphabet; a large "
                         "alphabet reads a column of a CSV (data.csv and data.column) or of Adult (builtin: adult)")


def check(key: str, spec: Mapping[str, Any]) -> None:
    """Everything an experiment on a large alphabet must hold, before any job; one line naming the key.

    ``key``: the experiment's config key (``config key studies.<study>.experiments.<label>``)."""
    if int(spec.get("rounds", 1)) != 1:  # the schema's default is 1
        raise ValueError(f"{key}.rounds: an experiment on a large alphabet reports each record once a run; rounds "
                         "are for the longitudinal protocols of an enumerated alphabet")
    if unknown := [name for name in spec if name not in KEYS and name != "rounds"]:
        why = {"n": "every record reports once a run; n (users drawn) is for an enumerated alphabet",
               "users": "every record reports once a run", "columns": "it reads one column, data.column"}
        raise ValueError(f"{key}.{unknown[0]}: an experiment on a large alphabet takes only {', '.join(KEYS)}"
                         + (f" ({why[unknown[0]]})" if unknown[0] in why else ""))
    if ("compare" in spec) == ("mechanisms" in spec) or "eps" not in spec:
        raise ValueError(f"{key}: an experiment on a large alphabet needs eps and either compare (protocols each on "
                         "its own) or mechanisms (one protocol)")
    field = "compare" if "compare" in spec else "mechanisms"
    if field == "mechanisms" and len(spec[field]) > 1:
        raise ValueError(f"{key}.mechanisms: a large alphabet's users are not split over protocols; list them under "
                         "compare (each on its own at every eps, on the same records)")
    kinds = []
    for i, entry in enumerate(spec[field]):
        kind = entry if isinstance(entry, str) else entry.get("kind")
        if not isinstance(entry, str) and set(entry) != {"kind"}:
            raise ValueError(f"{key}.{field}[{i}]: on a large alphabet a protocol is named alone (its defaults), "
                             f"got {dict(entry)!r}")
        if kind not in PROTOCOLS:
            raise ValueError(f"{key}.{field}[{i}]: {kind!r} cannot run on a large alphabet (items up to 2^64, never "
                             "enumerated): only the sketch oracles (" + ", ".join(SKETCH_NAMES) + ") and the "
                             "heavy-hitter protocols (" + ", ".join(HEAVY_HITTERS) + ")")
        kinds.append(kind)
    if len(set(kinds)) < len(kinds):
        raise ValueError(f"{key}.{field}: a protocol listed twice")
    if len(set(map(float, spec["eps"]))) < len(spec["eps"]):
        raise ValueError(f"{key}.eps: a level listed twice; each is one point of the grid")
    for kind in kinds:  # what only the protocol knows (HM's coefficients below eps ~ 11, FLH's eps below 22, ...)
        for eps in map(float, spec["eps"]):
            try:
                if kind in HEAVY_HITTERS:
                    ld.heavy_hitter_factory(kind)(2**64, eps, **HEAVY_HITTER_OPTIONS.get(kind, {}))
                else:
                    by_name(kind, 2**64, eps)
            except ValueError as error:
                raise ValueError(f"{key}.eps: {kind} at eps = {eps:g}: {error}") from None
    estimators = spec["estimators"]
    if not estimators or [f for f in estimators if f not in ESTIMATORS] or len(set(estimators)) < len(estimators):
        raise ValueError(f"{key}.estimators: a sketch oracle's estimators on a large alphabet, each once: "
                         f"{' and/or '.join(ESTIMATORS)} (Sketch.estimate, the candidate MLE); got {estimators!r}")
    top, candidates = spec_of(spec)["top"], spec_of(spec)["candidates"]
    if candidates < top:
        raise ValueError(f"{key}.candidates: {candidates} is below top ({top}): the true top items must be among the "
                         "items the sketches are asked about")


def spec_of(spec: Mapping[str, Any]) -> dict[str, Any]:
    """An experiment's settings with their defaults: protocols, eps, estimators, top (``TOP``) and candidates
    (``CANDIDATES_PER_TOP`` times top)."""
    top = int(spec.get("top", TOP))
    return {"protocols": protocols_of(spec), "eps": [float(e) for e in spec["eps"]],
            "estimators": list(spec["estimators"]), "top": top,
            "candidates": int(spec.get("candidates", CANDIDATES_PER_TOP * top))}


def _with_found(ranked: tuple[np.ndarray, np.ndarray], found: Sequence[np.ndarray], items: np.ndarray,
                counts: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The ranked candidates followed by the found items not among them (in the order found), with their true
    shares (``items``, ``counts``: the column's distinct items, sorted, and their counts; a found item not in the
    column has share 0)."""
    candidates, shares = ranked
    listed = set(candidates.tolist())
    extra = [x for x in dict.fromkeys(np.concatenate([np.zeros(0, dtype=np.uint64), *found]).tolist())
             if x not in listed]
    if not extra:
        return ranked
    extra_items = np.array(extra, dtype=np.uint64)
    at = np.minimum(np.searchsorted(items, extra_items), items.size - 1)
    extra_shares = np.where(items[at] == extra_items, counts[at], 0) / n
    return np.concatenate([candidates, extra_items]), np.concatenate([shares, extra_shares])


def run_rows(study: str, label: str, spec: Mapping[str, Any], values: np.ndarray, k: int, runs: int, seed: int,
             stopping: Mapping[str, Any]) -> list[dict]:
    """Every (eps, run, protocol, method) of an experiment on a large alphabet (module docstring): the tidy rows of
    ``large_domains.RUN_COLUMNS``, ``dataset`` the experiment's name.

    Parameters
    ----------
    study, label : str
        The study's and the experiment's names (the seeds' keys).
    spec : Mapping
        The experiment's config (checked by ``check``).
    values : numpy.ndarray of uint64, shape (n,)
        Every kept record's item (``own_items``).
    k : int
        The alphabet's domain (its file's ``k``: 2^64 for strings).
    runs, seed : int
        The study's runs and the config's seed.
    stopping : Mapping
        The candidate MLE's stopping rule: delta, max_iter (and accelerate, default ``squarem-direct``).
    """
    settings = spec_of(spec)
    top = settings["top"]
    mle = "mle" in settings["estimators"]
    chosen = {ESTIMATORS[name] for name in settings["estimators"]} | {ld.FOUND}
    rule = {**STOPPING, **stopping}
    options = {"top": top, "options": {}, "heavy_hitter_options": HEAVY_HITTER_OPTIONS, "ibu": rule}
    values = np.asarray(values, dtype=np.uint64)
    ranked = ld.true_top(values, settings["candidates"])
    items, counts = np.unique(values, return_counts=True)
    heavy = [p for p in settings["protocols"] if p in HEAVY_HITTERS]
    sketches = [p for p in settings["protocols"] if p not in HEAVY_HITTERS]
    rows = []
    for eps in settings["eps"]:
        for run in range(runs):
            found, done = [], {}
            for protocol in heavy:
                protocol_rows, items_found = ld.heavy_hitter_rows(protocol, k, eps, values, ranked,
                                                                  rng_for(seed, study, label, protocol, eps, run),
                                                                  options)
                done[protocol] = protocol_rows
                found.append(items_found)
            listed = _with_found(ranked, found, items, counts, values.size)
            for protocol in sketches:
                done[protocol] = ld.oracle_rows(protocol, k, eps, values, listed,
                                                rng_for(seed, study, label, protocol, eps, run), options, mle)
            for protocol in settings["protocols"]:  # the config's order
                rows += [{"dataset": label, "protocol": protocol, "eps": eps, "n": int(values.size), "run": run,
                          "k": k, **row} for row in done[protocol] if row["method"] in chosen]
    return rows


def title(study: str, label: str, alphabet: Mapping[str, Any], top: int) -> str:
    """The figure's title: the study, experiment and column, its distinct items and domain."""
    return (f"{study}/{label}: the top {top} items of column {alphabet['column']} ({alphabet['distinct']:,} distinct "
            f"items, {alphabet['items']}, domain 2^{int(alphabet['k']).bit_length() - 1}): their frequencies and "
            f"the top {top} found by each protocol")


def notes(spec: Mapping[str, Any], runs: int, stopping: Mapping[str, Any], capped: int) -> list[str]:
    """The figure's notes: what was run and how it was scored."""
    settings = spec_of(spec)
    top, rule = settings["top"], {**STOPPING, **stopping}
    return [f"Mean over {runs} run{'s' if runs != 1 else ''}, every record a user reporting once a run. Sketches "
            f"asked about the true top {settings['candidates']} items plus the heavy hitters' finds; their top {top} "
            "found: the listed items with the largest estimates.",
            f"Truth: the records' own shares; the true top set: every item whose count reaches the {top}th largest. "
            f"NCR: the true top {top} weighted {top}, ..., 1 by rank, the found ones' share of the weights.",
            f"MLE: GIBU on Sketch.candidate_group (not for HM), stop at gap < {float(rule['delta']):g} or "
            f"{int(rule['max_iter']):,} updates; runs stopped by the cap: {capped}. Each protocol with its defaults "
            "(SFP on CMS fragments)."]
