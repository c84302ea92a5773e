"""A researcher's own study from config alone (config key ``studies``): their data, alphabet, mechanisms, estimators,
grid of eps or n, runs and seed, run through the one experiment chain (``privest_studies.experiment``).

    studies:
      ages_mixture:                                   # results/ages_mixture/...
        data: {csv: examples/own_study/ages.csv, column: age}     # or {builtin: ages} / {builtin: planar}
        alphabet: {kind: linear, k: 100}              # or {kind: planar, box: {...}, columns, rows, cell_km,
                                                      #     latitude: <column>, longitude: <column>}
                                                      # or {kind: numeric, min, max, bins, unit}
        runs: 10
        experiments:
          krr_vs_eps: {mechanisms: [krr], eps: [0.5, 1, 2], estimators: [inv, ibu]}
          mixture_vs_n: {mechanisms: [{kind: krr, eps: 2}, {kind: rappor, eps: 3}], n: [1000, 10000],
                         estimators: [gibu, ibu_r]}
          side_by_side: {compare: [krr, oue, olh], eps: [0.5, 1, 2], estimators: [inv, ibu]}

An experiment with ``eps`` has one point per eps, the listed mechanism kinds each at that eps (users split equally
over them when there are several); its users are the dataset's own records, each reporting once per run, or
``users`` drawn from the data's distribution. An experiment with ``n`` has one point per n, n users drawn from the
data's distribution and split equally over the listed mechanisms with their own eps (a free-will mixture). An
experiment with ``compare`` (instead of ``mechanisms``) runs each listed kind on its own at every eps, on the same
users: one experiment of the chain per kind (``<experiment>_<kind>``, drawn from the comparison's one seed), one
figure for all of them.

An experiment with ``columns`` (several CSV columns, one alphabet each, reported together by ``solution`` with
``protocol``) is a multi-column experiment: ``own_columns`` checks and runs it, outside the chain.

A study on a large alphabet (``alphabet: {kind: large}``, a column of arbitrary strings or integers) runs the sketch
oracles and heavy-hitter protocols in every experiment: ``own_large`` checks and runs them, outside the chain.

``check`` reads the CSV's header (``own_data.check_header``) and fails before any job, in one line naming the config
key or the file; the data job (``own_data.load``) reads every record and names the file and line of a bad one.
"""

import csv
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from privest import protocols
from privest.protocols.longitudinal import CALIBRATIONS
from privest_studies import cost, own_columns, own_csv, own_data, own_large
from privest_studies.experiment import (
    FAMILIES,
    KIND_OPTIONS,
    LONGITUDINAL_KINDS,
    MEMBER_OPTIONS,
    NUMERIC_KINDS,
    PROTOCOL_KINDS,
    Experiment,
    Member,
    Point,
    rounds_refusal,
)

KINDS = ("krr", "geometric", "laplace", "exponential", "rappor", *PROTOCOL_KINDS, *NUMERIC_KINDS)
"""The mechanisms a study may use: matrices, RAPPOR and the protocols of ``privest.protocols`` (with the options of
``experiment.KIND_OPTIONS``: local hashing's ``hashes``, the longitudinal protocols' ``eps1`` and ``calibration``),
and on a numeric alphabet the numeric mechanisms of ``privest.numeric`` (alone at each eps: their reports are numbers).
Shokri's LP is left to the free-will study: it is solved per alphabet and Q."""
GEOMETRIC_KINDS = ("geometric", "laplace")
"""The mechanisms that need a geometry (a linear or planar alphabet): categories have none."""
ONE_MECHANISM = ("inv", "rap", "ibu")
"""Estimator families that take one mechanism per point; the others ([e]_R, [e]_M, GIBU) take any mixture."""
RESERVED = ("data", "ibu_consistency", "free_will", "constrained_counts", "standard_protocols", "sw_vs_geometric",
            "report", "tables", "figures")
BUILTIN = {"ages": "results/data/ages", "planar": "results/data/checkins_planar"}
STOPPING = {"delta": 1e-10, "max_iter": 10_000}


def data_prefix(name: str, study: Mapping[str, Any]) -> str:
    """The path prefix of a study's data (<prefix>.npz, <prefix>_alphabet.json): its own, or a built-in dataset."""
    return BUILTIN[study["data"]["builtin"]] if study["data"].get("builtin") in BUILTIN else f"results/{name}/data"


def _members(key: str, spec: Mapping[str, Any], alphabet: Mapping[str, Any]) -> list:
    """The mechanisms of an experiment (its ``mechanisms`` or ``compare`` list) as (kind, eps or None, options: the
    ``Member`` options given); one line naming the key when a kind is unknown or does not apply to the alphabet, or an
    option is given to a kind that does not take it (``experiment.KIND_OPTIONS``) or has a bad value."""
    field = "compare" if "compare" in spec else "mechanisms"
    entries = []
    for i, entry in enumerate(spec[field]):
        kind, eps = (entry, None) if isinstance(entry, str) else (entry.get("kind"), entry.get("eps"))
        where = f"{key}.{field}[{i}]"
        if kind in own_large.PROTOCOLS:
            raise ValueError(f"{where}: {kind} is for a large alphabet (alphabet.kind: large, a column of strings or "
                             f"integers; own_large): a {alphabet['kind']} alphabet's experiments run through the "
                             "chain, whose estimators estimate every secret; use " + ", ".join(PROTOCOL_KINDS[:7]))
        if kind not in KINDS:
            raise ValueError(f"{where}: unknown mechanism {kind!r}; known: {', '.join(KINDS)}")
        if kind in GEOMETRIC_KINDS and alphabet["kind"] == "categorical":
            raise ValueError(f"{where}: the {kind} mechanism needs a geometry, and a categorical alphabet has none; "
                             "use krr, exponential, rappor or a standard protocol")
        if kind in NUMERIC_KINDS and alphabet["kind"] != "numeric":
            raise ValueError(f"{where}: the {kind} mechanism reports the numbers of a numeric column; it needs "
                             f"alphabet.kind numeric (with min, max, bins), not {alphabet['kind']}")
        if kind in NUMERIC_KINDS and ("n" in spec or (field == "mechanisms" and len(spec[field]) > 1)):
            raise ValueError(f"{where}: {kind} reports numbers, not the bins a mixture shares; it runs alone at each "
                             f"eps (mechanisms: [{kind}] with eps, or in compare)")
        if ("n" in spec) != (eps is not None):
            raise ValueError(f"{where}: needs " + ("{kind, eps} (an n grid gives each mechanism its eps)" if "n" in spec
                                                   else "a kind (the eps grid gives the eps)"))
        options = {} if isinstance(entry, str) else {name: entry[name] for name in MEMBER_OPTIONS if name in entry}
        grid = [float(eps)] if eps is not None else [float(e) for e in spec.get("eps", [])]
        entries.append((kind, eps, _options(where, kind, options, grid, alphabet)))
    return entries


def _options(where: str, kind: str, options: Mapping[str, Any], grid: Sequence[float],
             alphabet: Mapping[str, Any]) -> dict[str, Any]:
    """A member's options (hashes, eps1, calibration) checked against its kind and every eps it runs at (``grid``),
    as the protocol takes them; one line naming the key of a bad one."""
    for name in options:
        if name not in KIND_OPTIONS.get(kind, ()):
            takers = ", ".join(k for k, taken in KIND_OPTIONS.items() if name in taken)
            raise ValueError(f"{where}.{name}: {kind} takes no {name} ({OPTION_MEANING[name]}); only {takers} do")
    result = dict(options)
    if (hashes := options.get("hashes")) is not None:  # the schema's integer admits 5.0: the protocol takes an int
        if isinstance(hashes, bool) or not float(hashes).is_integer() or not 1 <= hashes <= 2**32:
            raise ValueError(f"{where}.hashes: a hash family size must be an integer in 1..2^32, got {hashes!r}")
        result["hashes"] = int(hashes)
    if (calibration := options.get("calibration")) is not None and calibration not in CALIBRATIONS:
        raise ValueError(f"{where}.calibration: unknown {calibration!r}; known: {', '.join(CALIBRATIONS)} "
                         "(one report exactly eps1-LDP, or multi-freq-ldpy's second step)")
    if (eps1 := options.get("eps1")) is not None:
        if isinstance(eps1, bool) or not isinstance(eps1, int | float) or not math.isfinite(eps1) or eps1 <= 0:
            raise ValueError(f"{where}.eps1: one report's level must be a number above 0, got {eps1!r}")
        if too_low := [e for e in grid if not eps1 < e]:
            raise ValueError(f"{where}.eps1: {eps1:g} must be below eps (the memo's level, the bound over every report "
                             f"of one value), and {kind} runs at eps = {', '.join(f'{e:g}' for e in too_low)}")
        result["eps1"] = float(eps1)
    if {"eps1", "calibration"} & set(result):
        for e in grid:  # what only the protocol knows (L-OUE's eps1 below ln((2 e^eps + 1) / 3), ...)
            try:
                protocols.by_name(kind, alphabet_k(alphabet), e, **result)
            except ValueError as error:
                raise ValueError(f"{where}.{'eps1' if 'eps1' in result else 'calibration'}: {kind} at eps = {e:g}: "
                                 f"{error}") from None
    return result


OPTION_MEANING = {"hashes": "a hash family size", "eps1": "one report's level, below the memo's eps",
                  "calibration": "how the second step meets eps1"}


def alphabet_k(alphabet: Mapping[str, Any]) -> int:
    """The number of secrets of a study's alphabet from its config alone; a categorical alphabet without given
    categories counts 2 (a lower bound: its categories are the data's)."""
    return int({"linear": lambda: alphabet["k"], "binned": lambda: alphabet["bins"],
                "numeric": lambda: alphabet["bins"],
                "planar": lambda: alphabet["columns"] * alphabet["rows"],
                "categorical": lambda: len(alphabet.get("categories") or [0, 1]),
                "large": lambda: 2**64}[alphabet["kind"]]())


def _experiment(name: str, study: Mapping[str, Any], label: str, spec: Mapping[str, Any]) -> list[Experiment]:
    """The experiments of one config entry: one, or one per kind of a comparison."""
    key = f"config key studies.{name}.experiments.{label}"
    if given := [field for field in ("solution", "protocol") if field in spec]:
        raise ValueError(f"{key}.{given[0]}: only a multi-column experiment (columns: each CSV column and its "
                         "alphabet) takes solution and protocol")
    if given := [field for field in ("top", "candidates") if field in spec]:
        raise ValueError(f"{key}.{given[0]}: only an experiment on a large alphabet (alphabet.kind: large) scores the "
                         "top items; an enumerated alphabet's experiments score the whole distribution")
    if ("eps" in spec) == ("n" in spec):
        raise ValueError(f"{key}: give either eps (a grid of eps) or n (a grid of users), not both or neither")
    if ("mechanisms" in spec) == ("compare" in spec):
        raise ValueError(f"{key}: give either mechanisms (split the users over them) or compare (each on its own, "
                         "side by side), not both or neither")
    for axis in ("eps", "n"):
        grid = [float(x) for x in spec.get(axis, [])]
        if twice := sorted({x for x in grid if grid.count(x) > 1}):
            raise ValueError(f"{key}.{axis}: {', '.join(f'{x:g}' for x in twice)} listed twice; each value is one "
                             "point of the grid, its runs the study's runs")
    if "compare" in spec and "n" in spec:
        raise ValueError(f"{key}.compare: compares kinds at every eps of an eps grid; with n, list mechanisms "
                         "(a free-will mixture)")
    entries = _members(key, spec, study["alphabet"])
    split = len(entries) if "mechanisms" in spec else 1
    for axis, sizes in (("n", spec.get("n", [])), ("users", [spec["users"]] if "users" in spec else [])):
        if sizes and (fewest := min(int(size) for size in sizes)) < split:
            raise ValueError(f"{key}.{axis}: {fewest} users cannot be split over the {split} mechanisms (each needs "
                             "at least one)")
    unknown = [f for f in spec["estimators"] if f not in FAMILIES]
    if unknown:
        raise ValueError(f"{key}.estimators: unknown {unknown}; known: {', '.join(FAMILIES)}")
    if "mechanisms" in spec and len(entries) > 1 and (one := [f for f in spec["estimators"] if f in ONE_MECHANISM]):
        raise ValueError(f"{key}.estimators: {one} take one mechanism per point; for a mixture use gibu, "
                         "inv_r, ibu_r, rap_r, inv_m, ibu_m or rap_m")
    rounds = _rounds(key, spec, entries)
    stopping = {**STOPPING, **study.get("ibu", {})}
    common = {"study": name, "runs": int(study["runs"]), "families": tuple(spec["estimators"]), **rounds,
              "data": data_prefix(name, study), "point_column": "point", "score_noisy": True,
              "stopping": (("delta", float(stopping["delta"])), ("max_iter", int(stopping["max_iter"])))}
    if "compare" in spec:
        names = comparison_names(label, entries)
        return [_by_eps(experiment, [entry], spec, common, seed_name=label)
                for experiment, entry in zip(names, entries, strict=True)]
    if "eps" in spec:
        return [_by_eps(label, entries, spec, common)]
    members = tuple(Member(kind, float(eps), **options) for kind, eps, options in entries)
    points = tuple(Point(int(n), tuple(range(len(entries))), int(n)) for n in spec["n"])
    return [Experiment(name=label, axis="n", members=members, points=points,
                       labels=(("study", name), ("experiment", label), ("axis", "n")), **common)]


def _rounds(key: str, spec: Mapping[str, Any], entries: Sequence[tuple]) -> dict[str, Any]:
    """An experiment's rounds of collection and the probability of a user's value being redrawn each round after the
    first (``Experiment.rounds``, ``redraw``); one line naming the key when a kind cannot report over rounds, redraw
    is given without them or gibu_joint without rounds or with redraw."""
    rounds, redraw = int(spec.get("rounds", 1)), float(spec.get("redraw", 0.0))
    field = "compare" if "compare" in spec else "mechanisms"
    one = [(i, kind) for i, (kind, _, _) in enumerate(entries) if kind not in LONGITUDINAL_KINDS]
    if rounds > 1 and one:
        raise ValueError(f"{key}.rounds: {one[0][1]} ({field}[{one[0][0]}]) cannot report over rounds; rounds need "
                         "longitudinal protocols, which keep each user's memo of a value: "
                         f"{', '.join(LONGITUDINAL_KINDS)}")
    if "redraw" in spec and rounds == 1:
        raise ValueError(f"{key}.redraw: how often a user's value changes between rounds needs rounds (2 or more)")
    if not 0 <= redraw <= 1:
        raise ValueError(f"{key}.redraw: a probability per round in [0, 1], got {redraw!r}")
    if why := rounds_refusal(spec["estimators"], rounds, redraw):
        raise ValueError(f"{key}.{'redraw' if rounds > 1 else 'rounds'}: {why}")
    return {"rounds": rounds, "redraw": redraw}


def _by_eps(label: str, entries: Sequence[tuple], spec: Mapping[str, Any], common: Mapping[str, Any],
            seed_name: str = "") -> Experiment:
    """An experiment with one point per eps of the grid, the kinds of ``entries`` each at that eps."""
    grid = [float(e) for e in spec["eps"]]
    members = tuple(Member(kind, e, **options) for e in grid for kind, _, options in entries)
    points = tuple(Point(e, tuple(range(i * len(entries), (i + 1) * len(entries))), spec.get("users"))
                   for i, e in enumerate(grid))
    return Experiment(name=label, axis="eps", members=members, points=points, seed_name=seed_name,
                      labels=(("study", common["study"]), ("experiment", label), ("axis", "eps")), **common)


def comparison_names(label: str, entries: Sequence[tuple]) -> list[str]:
    """The experiment of each kind of a comparison: <label>_<kind>, followed by the options given (_<hashes> for a
    hash family size, _eps1_<eps1> with p for the point, _<calibration>: side_l_grr_eps1_0p5_peer), <label>_<kind>_<i>
    for a kind listed twice alike."""
    names = [f"{label}_{kind}" + "".join(f"_{value}" if name == "hashes" else f"_eps1_{value:g}".replace(".", "p")
                                         if name == "eps1" else f"_{value}" for name, value in options.items())
             for kind, _, options in entries]
    return [f"{n}_{i}" if names.count(n) > 1 else n for i, n in enumerate(names)]


def config_label(experiment: Experiment) -> str:
    """The name under studies.<study>.experiments that an experiment of an own study comes from: a comparison's
    experiments (<label>_<kind>) share it as their seed name (``_experiment``); any other is named by it."""
    return experiment.seed_name or experiment.name


def experiments(config: Mapping[str, Any]) -> dict[str, dict[str, Experiment]]:
    """Every configured study's experiments: study name -> experiment name -> Experiment (a comparison's kinds each
    an experiment of their own). One line naming the key when a comparison's experiment takes a configured name."""
    result: dict[str, dict[str, Experiment]] = {}
    for name, study in config.get("studies", {}).items():
        result[name] = {}
        for label, spec in chain_experiments(study).items():
            for experiment in _experiment(name, study, label, spec):
                if experiment.name in result[name] or experiment.name in set(study["experiments"]) - {label}:
                    raise ValueError(f"config key studies.{name}.experiments.{label}: its experiment "
                                     f"{experiment.name!r} takes the name of another; rename one of them")
                result[name][experiment.name] = experiment
    return result


def chain_experiments(study: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """A study's experiments that run through the one chain: all but its multi-column ones (``own_columns``), none
    on a large alphabet (``own_large``)."""
    return {} if own_large.is_large(study) else {label: spec for label, spec in study["experiments"].items()
                                                 if not own_columns.is_columns(spec)}


def column_experiments(config: Mapping[str, Any]) -> dict[str, dict[str, Mapping[str, Any]]]:
    """Every configured study's multi-column experiments (``own_columns``): study -> label -> its config."""
    return {name: {label: spec for label, spec in study["experiments"].items() if own_columns.is_columns(spec)
                   and not own_large.is_large(study)}
            for name, study in config.get("studies", {}).items()}


def large_experiments(config: Mapping[str, Any]) -> dict[str, dict[str, Mapping[str, Any]]]:
    """Every configured study's experiments on a large alphabet (``own_large``): study -> label -> its config."""
    return {name: dict(study["experiments"]) if own_large.is_large(study) else {}
            for name, study in config.get("studies", {}).items()}


def figures(config: Mapping[str, Any]) -> dict[str, dict[str, list[str]]]:
    """Every figure of the configured studies: study -> figure (the experiment's config name) -> the experiments it
    shows (one, or each kind of a comparison)."""
    return {name: {label: [e.name for e in _experiment(name, study, label, spec)]
                   for label, spec in chain_experiments(study).items()}
            for name, study in config.get("studies", {}).items()}


ADULT_RECORDS = 48_842
"""The records of Adult (adult.data and adult.test) and of the built-in ages."""


def prior_size(study: Mapping[str, Any], table: own_csv.Csv | None = None) -> tuple[int, float] | None:
    """(k, the dataset's records) of a study before its data job ran, from the config and the CSV's header and size
    (``own_csv.Csv.records_guess``; ``table``: the CSV as ``own_data.check_header`` inspected it, else inspected
    here); a categorical alphabet without given categories counts 2 (a lower bound). None for the built-in planar
    dataset (its size is its region's) and for a study of multi-column experiments only (it has no data job)."""
    if "alphabet" not in study:  # multi-column experiments only (check): no data job, no chain
        return None
    data, alphabet = study["data"], study["alphabet"]
    if data.get("builtin") == "planar":
        return None
    k = alphabet_k(alphabet)
    if "csv" in data:
        records = (own_csv.inspect(data["csv"], data) if table is None else table).records_guess
    else:
        records = ADULT_RECORDS
    return int(k), float(records)


def check_resources(name: str, study: Mapping[str, Any], built: Mapping[str, Experiment] | None = None,
                    size: tuple[int, float] | None = None) -> None:
    """One line naming the experiment (its config key, and which kind of a comparison) whose largest job the memory
    model (``cost.largest_job``) puts above this machine's memory, with what drives it, before any job runs.
    ``built``: the study's experiments (name -> Experiment) and ``size``: its ``prior_size``, where the caller has
    them (else built and read here)."""
    if (size := size or prior_size(study)) is None:
        return
    limit = cost.machine_megabytes()
    built = experiments({"studies": {name: study}})[name] if built is None else built
    for experiment in built.values():
        job, megabytes = cost.largest_job(experiment, *size)
        if megabytes > limit:
            label = config_label(experiment)
            of = "" if experiment.name == label else f" of {experiment.name}"
            raise ValueError(f"config key studies.{name}.experiments.{label}: its {job} job{of} needs about "
                             f"{megabytes / 1000:,.0f} GB (k = {size[0]:,}, about {size[1]:,.0f} records, "
                             f"{experiment.runs:,} runs), more than this machine's {limit / 1000:,.0f} GB; lower k, "
                             "n, users or runs")


def data_megabytes(study: Mapping[str, Any], size: tuple[int, float] | None = None) -> int:
    """The memory (MB) a study's data job declares (``cost.data_megabytes`` of its likely records: those of ``size``,
    the study's ``prior_size`` as ``check`` returned it, else of ``prior_size`` read here)."""
    size = size or prior_size(study)
    return cost.data_megabytes(size[1] if size else 0)


def prior_sizes(config: Mapping[str, Any]) -> dict[str, tuple[int, float]]:
    """``prior_size`` of every configured study that has one (the cost model's sizes before the data jobs ran)."""
    return {name: size for name, study in config.get("studies", {}).items() if (size := prior_size(study))}


def check(config: Mapping[str, Any]) -> dict[str, tuple[int, float]]:
    """Everything the schema cannot say of the configured studies, before any job: names, mechanisms, estimators,
    the data's source and header (``own_data.check_header``: the file, its encoding and columns; its records are
    the data job's) and the memory model (``check_resources``). One line naming the key or the file.

    Returns ``prior_sizes(config)``, from the headers read here (each CSV's header is read once): the cost model's
    sizes and the data jobs' memory."""
    sizes = {}
    for name, study in config.get("studies", {}).items():
        key = f"config key studies.{name}"
        if name in RESERVED:
            raise ValueError(f"{key}: {name!r} is taken by the pipeline; choose another study name")
        own_large.check_alphabet(key, study)
        table = _check_single_column_data(key, study)
        for label, spec in study["experiments"].items():
            if own_large.is_large(study):
                own_large.check(f"{key}.experiments.{label}", spec)
            elif own_columns.is_columns(spec):
                own_columns.check(f"{key}.experiments.{label}", study, spec)
        built = experiments({"studies": {name: study}})[name]
        if (size := prior_size(study, table)) is not None:
            sizes[name] = size
        check_resources(name, study, built, size)
    return sizes


def _check_single_column_data(key: str, study: Mapping[str, Any]) -> own_csv.Csv | None:
    """The ``alphabet`` and ``data.column`` its single-column (or large-alphabet) experiments read: one line naming the
    key one needs and the config lacks. Multi-column experiments alone go without both, and are refused either."""
    single = list(study["experiments"] if own_large.is_large(study) else chain_experiments(study))
    data = study["data"]
    if not single:
        if given := [name for name, held in (("alphabet", "alphabet" in study), ("data.column", "column" in data))
                     if held]:
            raise ValueError(f"{key}.{given[0]}: no experiment of this study reads it: each is multi-column, its "
                             "columns' alphabets under columns; remove it")
        return None
    if "alphabet" not in study:
        raise ValueError(f"{key}.alphabet: the single-column experiment {single[0]} needs the study's alphabet (only "
                         "multi-column experiments, each column with its own alphabet, go without)")
    if ("column" not in data and data.get("builtin") not in ("ages", "planar")
            and study["alphabet"].get("kind") != "planar"):
        raise ValueError(f"{key}.data.column: the single-column experiment {single[0]} reads its secrets from one "
                         "column: name it (only multi-column experiments, each with its columns, go without)")
    return own_data.check_header(f"{key}.data", data, study["alphabet"])


def error_of(columns: Sequence[str]) -> str:
    """The error column of a study's scores (``experiment.error_column``: ``emd``, or ``tv`` on categories)."""
    if (found := [c for c in ("emd", "tv") if c in columns]) == []:
        raise ValueError(f"scores: no error column (emd or tv) among {list(columns)}")
    return found[0]


def summary_columns(error: str) -> list[str]:
    """The columns of summary.csv, the error's named by its metric (``emd_mean``, or ``tv_mean`` on categories)."""
    return ["figure", "experiment", "axis", "point", "round", "method", "runs", f"{error}_mean", f"{error}_sd", "rank",
            "best", "eps_spent"]


def summary(rows: Sequence[Mapping[str, Any]], figures: Mapping[str, Sequence[str]] | None = None) -> list[dict]:
    """Mean and standard deviation of the error (``emd`` or ``tv``, as the scores name it) over runs per (experiment,
    point, round, method), with the mean eps spent by the round's users (``eps_spent``), from tidy score rows (raw
    estimates and methods that could not run left out), and how the methods rank at each point (and round) of a
    figure: ``rank`` 1 for the lowest mean error (methods with equal means share the better
    rank), ``best`` the method(s) of rank 1, the same on every row of the point (and round). ``figures``: figure -> the
    experiments it shows (``figures(config)[study]``; a comparison's kinds rank together, named '<method>
    (<experiment>)' in ``best``); None: each experiment its own figure. The noisy reports are summarised, not ranked
    (no figure shows them)."""
    error = error_of(list(rows[0])) if rows else "emd"
    figure_of = {e: figure for figure, shown in (figures or {}).items() for e in shown}
    groups: dict[tuple, list[float]] = {}
    spent: dict[tuple, list[float]] = {}
    for row in rows:
        if np.isfinite(float(row[error])):
            key = (row["experiment"], row["axis"], float(row["point"]), int(row.get("round", 1)), row["method"])
            groups.setdefault(key, []).append(float(row[error]))
            spent.setdefault(key, []).append(float(row.get("eps_spent", "nan")))
    result = [{"figure": figure_of.get(e, e), "experiment": e, "axis": axis, "point": point, "round": r, "method": m,
               "runs": len(v), f"{error}_mean": float(np.mean(v)),
               f"{error}_sd": float(np.std(v, ddof=1)) if len(v) > 1 else 0.0, "rank": "", "best": "",
               "eps_spent": float(np.mean(spent[(e, axis, point, r, m)]))}
              for (e, axis, point, r, m), v in sorted(groups.items())]
    by_point: dict[tuple, list[dict]] = {}
    for row in result:
        if row["method"] != "noisy":
            by_point.setdefault((row["figure"], row["point"], row["round"]), []).append(row)
    for ranked in by_point.values():
        means = [row[f"{error}_mean"] for row in ranked]
        several = len({row["experiment"] for row in ranked}) > 1
        for row, mean in zip(ranked, means, strict=True):
            row["rank"] = 1 + sum(other < mean for other in means)
        best = [f"{row['method']} ({row['experiment']})" if several else row["method"]
                for row in ranked if row["rank"] == 1]
        for row in ranked:
            row["best"] = best[0] if len(best) == 1 else f"{', '.join(best)} (tied)"
    return result


CAPPED_COLUMNS = ["experiment", "axis", "point", "method", "capped_runs", "runs", "iterations", "rounds"]


def capped(rows: Sequence[Mapping[str, Any]]) -> list[dict]:
    """The (experiment, point, method)s of tidy score rows in which the iteration cap stopped IBU (or GIBU, [IBU]_R,
    [IBU]_M) in at least one run: how many runs of how many, and the iterations they reached (the cap); in an
    experiment of several rounds (``rounds``, 1 where one) a run is one round of one run."""
    groups: dict[tuple, list[tuple[bool, int]]] = {}
    rounds: dict[str, int] = {}
    for row in rows:
        key = (row["experiment"], row["axis"], float(row["point"]), row["method"])
        groups.setdefault(key, []).append((str(row["capped"]) in ("True", "true", "1"), int(float(row["iterations"]))))
        rounds[row["experiment"]] = max(rounds.get(row["experiment"], 1), int(row.get("round", 1)))
    return [{"experiment": e, "axis": axis, "point": point, "method": m, "capped_runs": sum(c for c, _ in runs),
             "runs": len(runs), "iterations": max(i for c, i in runs if c), "rounds": rounds[e]}
            for (e, axis, point, m), runs in sorted(groups.items()) if any(c for c, _ in runs)]


def capped_lines(study: str, rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """One line per row of ``capped`` (as read back from capped.csv): '<study>/<experiment>: IBU at eps=0.5 stopped
    at the cap (5,000 iterations) in 5 of 5 runs' ('... in 18 of 18 rounds of runs (6 rounds a run)' with rounds)."""
    return [f"{study}/{r['experiment']}: {r['method']} at {r['axis']}={float(r['point']):g} stopped at the cap "
            f"({int(r['iterations']):,} iterations) in {r['capped_runs']} of {r['runs']} "
            + ("runs" if int(r.get("rounds") or 1) == 1 else f"rounds of runs ({int(r['rounds'])} rounds a run)")
            for r in rows]


def capped_report(studies: Sequence[str], since: float) -> list[str]:
    """The end of a run's list of capped estimates: for each study whose results/<study>/tables/capped.csv this run
    wrote (modified at or after ``since``, the run's start) and lists any, where the list is and ``capped_lines``."""
    lines = []
    for study in studies:
        path = Path("results") / study / "tables" / "capped.csv"
        if path.is_file() and path.stat().st_mtime >= since:
            with open(path, newline="") as f:
                if rows := list(csv.DictReader(f)):
                    lines += [f"{study}: the iteration cap stopped {len(rows)} estimate(s) (listed in {path}):",
                              *(f"  {line}" for line in capped_lines(study, rows))]
    return lines


def figure_files(config: Mapping[str, Any]) -> list[str]:
    """Every figure of the configured studies: results/<study>/figures/<experiment>.{pdf,png} (a comparison's one
    figure under its config name)."""
    return [f"results/{name}/figures/{label}.{ext}" for name, study in config.get("studies", {}).items()
            for label in study["experiments"] for ext in ("pdf", "png")]
