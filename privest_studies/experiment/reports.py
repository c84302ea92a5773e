"""The users' reports: drawn for every (point, run) of an experiment (rule perturb), stored, and read back point by
point (rule estimate).

Storage (npz): ``points`` (P,), ``runs``, ``secret_counts`` (P, R, M, k), and ``counts`` (P, R, M, m) when every
mechanism is a matrix, else each group's reports under the prefix ``p{point}_r{run}_m{mechanism}_``: a RAPPOR group's
distinct bit vectors, a protocol's reports as ``Protocol.to_arrays`` writes them (then ``protocol_reports`` is set), a
matrix's counts. An experiment of rounds (``Experiment.rounds``) stores every round of every run as a run of its own
(R = ``Experiment.slots``, slot = run x rounds + round - 1), with ``eps_spent`` and ``eps_spent_max`` (P, R): the mean
and the largest over the round's users of the eps their reports have spent so far, the member's eps times the distinct
values the user has reported (the longitudinal protocols' bound: eps for each value's memo). A numeric mechanism's
reports (``NumericOnBins``: one number a user) are stored as ``p{point}_r{run}_m0_values``.
"""

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from privest.protocols import Rounds
from privest.rappor import RapporReports
from privest.sampling import population, rng_for, split_secrets, split_users
from privest_studies.experiment.mechanisms import is_numeric, is_protocol
from privest_studies.experiment.spec import Experiment

__all__ = ["PointRuns", "perturb", "population_reports", "reports_from_arrays", "reports_to_arrays", "run_to_arrays"]


def population_reports(mechanisms: Sequence[Any], secret_counts: np.ndarray, rng: np.random.Generator) -> list:
    """``privest.sampling.population`` for points whose mechanisms include protocols: each group in turn from the one
    generator, a protocol's users (secrets in increasing order) through ``Protocol.sample(..., packed=True)`` (the bit
    protocols' reports drawn straight into packed bytes, never the (n, k) bool matrix), the others as ``population``
    draws them."""
    reports = []
    for mechanism, counts in zip(mechanisms, np.asarray(secret_counts), strict=True):
        if is_protocol(mechanism):
            reports.append(mechanism.sample(np.repeat(np.arange(mechanism.k), counts), rng, packed=True))
        else:
            reports.append(population([mechanism], counts[None], rng)[0])
    return reports


def perturb(experiment: Experiment, built: Sequence[Any], data: Mapping[str, np.ndarray], seed: int
            ) -> dict[str, np.ndarray]:
    """Every (point, run)'s reports, as the arrays of a reports archive.

    The users of a run are the dataset's own (every record once, assigned at random to the point's mechanisms when
    there are several) or ``point.users`` drawn i.i.d. from the dataset's theta and split equally. Each run's
    generator is ``rng_for(seed, *experiment.seed_keys(point, run))``.
    """
    k = int(np.asarray(data["theta"]).size)
    own = np.bincount(data["secrets"], minlength=k) if "secrets" in data else None
    if (experiment.rounds or 1) > 1:
        return _perturb_rounds(experiment, built, data, own, seed)
    if any(is_numeric(m) for m in built):
        return _perturb_numbers(experiment, built, data, own, seed)
    sets = any(is_protocol(m) for m in built)
    # Protocols' reports (k bits a user for SUE, OUE and SS) are drawn packed and stored as drawn: the archive's arrays
    # hold 1/8 of the unpacked bits, and the bool matrix is never formed.
    reports, secret_counts, packed = [], [], {"protocol_reports": np.bool_(True)} if sets else {}
    for p, point in enumerate(experiment.points):
        point_mechanisms = [built[j] for j in point.mechanisms]
        by_run, counts_by_run = [], []
        for run in range(experiment.runs):
            rng = rng_for(seed, *experiment.seed_keys(point, run))
            counts = _users(experiment, point, len(point_mechanisms), data, own, rng)
            if sets:
                packed |= run_to_arrays(p, run, population_reports(point_mechanisms, counts, rng), point_mechanisms)
            else:
                by_run.append(population(point_mechanisms, counts, rng))
            counts_by_run.append(counts)
        reports.append(by_run)
        secret_counts.append(counts_by_run)
    secret_counts = np.array(secret_counts, dtype=np.int64)
    spent = {}
    if experiment.rounds == 1:  # one report a user: each user's member's eps
        users = secret_counts.sum(axis=3)  # (P, R, M)
        eps = np.array([[experiment.members[j].parameter for j in point.mechanisms] for point in experiment.points])
        spent = {"eps_spent": (users * eps[:, None, :]).sum(axis=2) / users.sum(axis=2),
                 "eps_spent_max": np.where(users > 0, eps[:, None, :], -np.inf).max(axis=2)}
    return {"points": np.array([p.value for p in experiment.points], dtype=np.float64),
            "runs": np.int64(experiment.runs), "secret_counts": secret_counts, **spent,
            **(packed if sets else reports_to_arrays(reports))}


def _values_of(counts: np.ndarray | None, data: Mapping[str, np.ndarray], rng: np.random.Generator) -> np.ndarray:
    """The raw values of one run's users of a numeric alphabet: every record's value (``counts`` None: the dataset's
    own users), else, for users whose bins ``counts`` (k,) holds, each user's value drawn from the records of the
    user's bin (the records' empirical distribution within it), in bin order."""
    secrets, values = np.asarray(data["secrets"]), np.asarray(data["values"], dtype=np.float64)
    if counts is None:
        return values
    k = counts.size
    own = np.bincount(secrets, minlength=k)
    order = np.argsort(secrets, kind="stable")
    start = np.concatenate([[0], np.cumsum(own)[:-1]])
    users = np.repeat(np.arange(k), counts)
    return values[order[start[users] + np.floor(rng.random(users.size) * own[users]).astype(np.int64)]]


def _perturb_numbers(experiment: Experiment, built: Sequence[Any], data: Mapping[str, np.ndarray],
                     own: np.ndarray | None, seed: int) -> dict[str, np.ndarray]:
    """``perturb`` for a numeric mechanism (alone at its points): each run's users drawn as ``perturb`` draws them
    (their bins, from the run's generator: a comparison's kinds share them), their raw values (``_values_of``), then
    one report each through the mechanism, on the values."""
    if "values" not in data:
        raise ValueError(f"experiment {experiment.name}: a numeric mechanism needs the data's raw values (alphabet "
                         "kind numeric)")
    arrays, secret_counts = {}, []
    for p, point in enumerate(experiment.points):
        (mechanism,) = [built[j] for j in point.mechanisms]
        counts_by_run = []
        for run in range(experiment.runs):
            rng = rng_for(seed, *experiment.seed_keys(point, run))
            counts = _users(experiment, point, 1, data, own, rng)
            values = _values_of(None if point.users is None else counts[0], data, rng)
            reports = mechanism.mechanism.sample(values, rng)
            arrays[f"p{p}_r{run}_m0_values"] = reports
            counts_by_run.append(counts)
        secret_counts.append(counts_by_run)
    if experiment.rounds == 1:  # one report a user: the member's eps (as ``perturb`` records it)
        eps = np.array([[experiment.members[p.mechanisms[0]].parameter] * experiment.runs for p in experiment.points])
        arrays |= {"eps_spent": eps, "eps_spent_max": eps}
    return {"points": np.array([p.value for p in experiment.points], dtype=np.float64),
            "runs": np.int64(experiment.runs), "secret_counts": np.array(secret_counts, dtype=np.int64), **arrays}


def _users(experiment: Experiment, point: Any, mechanisms: int, data: Mapping[str, np.ndarray],
           own: np.ndarray | None, rng: np.random.Generator) -> np.ndarray:
    """(mechanisms, k) the secret counts of one run's users on each of a point's mechanisms: ``point.users`` drawn
    from theta and split equally, or the dataset's own records (assigned at random where there are several)."""
    k = own.size if own is not None else int(np.asarray(data["theta"]).size)
    if point.users is not None:
        return split_users(int(point.users), mechanisms, data["theta"], rng)
    if own is None:
        raise ValueError(f"experiment {experiment.name}: the dataset has no users' secrets; give users")
    return own[None] if mechanisms == 1 else split_secrets(data["secrets"], k, mechanisms, rng)


def _perturb_rounds(experiment: Experiment, built: Sequence[Any], data: Mapping[str, np.ndarray],
                    own: np.ndarray | None, seed: int) -> dict[str, np.ndarray]:
    """``perturb`` with rounds, one (point, run) at a time: its users as ``perturb`` draws them (from the run's
    generator), each mechanism's users reporting through ``privest.protocols.Rounds`` (their hash seeds from the run's
    generator), every round's draws from ``rng_for(seed, *experiment.seed_keys(point, run, round))``: first, after the
    first round, each user's value redrawn from theta with probability ``experiment.redraw`` (else kept), then the
    round's reports, a user whose value has a memo reusing it. One round's users and reports are one stored run."""
    theta = np.asarray(data["theta"], dtype=np.float64)
    k, rounds = theta.size, int(experiment.rounds)
    arrays: dict[str, np.ndarray] = {"protocol_reports": np.bool_(True)}
    shape = (len(experiment.points), experiment.slots)
    secret_counts, spent, spent_max = [], np.zeros(shape), np.zeros(shape)
    for p, point in enumerate(experiment.points):
        mechanisms = [built[j] for j in point.mechanisms]
        by_slot = []
        for run in range(experiment.runs):
            rng = rng_for(seed, *experiment.seed_keys(point, run))
            counts = _users(experiment, point, len(mechanisms), data, own, rng)
            values = [np.repeat(np.arange(k), c) for c in counts]  # user i of mechanism j: values[j][i]
            users = [Rounds(m, v.size, rng) if v.size else None for m, v in zip(mechanisms, values, strict=True)]
            held = [np.zeros(0, dtype=np.int64) for _ in mechanisms]  # user * k + value, every value reported
            eps = np.concatenate([np.full(v.size, experiment.members[j].parameter)
                                  for j, v in zip(point.mechanisms, values, strict=True)])
            for t in range(rounds):
                draw = rng_for(seed, *experiment.seed_keys(point, run, t + 1))
                reports = []
                for j, (mechanism, v) in enumerate(zip(mechanisms, values, strict=True)):
                    if t and experiment.redraw:
                        changed = draw.random(v.size) < experiment.redraw
                        v[changed] = draw.choice(k, int(changed.sum()), p=theta)
                    held[j] = np.union1d(held[j], np.arange(v.size, dtype=np.int64) * k + v)
                    reports.append(users[j].report(v, draw, packed=True) if v.size else mechanism.sample(v, draw,
                                                                                                      packed=True))
                slot = run * rounds + t
                arrays |= run_to_arrays(p, slot, reports, mechanisms)
                by_slot.append([np.bincount(v, minlength=k) for v in values])
                distinct = np.concatenate([np.bincount(h // k, minlength=v.size) for h, v in zip(held, values,
                                                                                                   strict=True)])
                spent[p, slot], spent_max[p, slot] = np.mean(eps * distinct), np.max(eps * distinct)
        secret_counts.append(by_slot)
    return {"points": np.array([p.value for p in experiment.points], dtype=np.float64),
            "runs": np.int64(experiment.slots), "secret_counts": np.array(secret_counts, dtype=np.int64),
            "eps_spent": spent, "eps_spent_max": spent_max, **arrays}


def run_to_arrays(point: int, run: int, by_mechanism: Sequence[Any], mechanisms: Sequence[Any] | None = None
                  ) -> dict[str, np.ndarray]:
    """The arrays of one (point, run)'s reports, each mechanism's under the prefix ``p{point}_r{run}_m{mechanism}_``:
    a protocol's as ``Protocol.to_arrays`` writes them (``mechanisms`` gives the point's mechanisms), a RAPPOR
    group's distinct bit vectors, or a matrix mechanism's ``counts``."""
    arrays: dict[str, np.ndarray] = {}
    for j, group in enumerate(by_mechanism):
        prefix, mechanism = f"p{point}_r{run}_m{j}_", None if mechanisms is None else mechanisms[j]
        arrays |= (mechanism.to_arrays(group, prefix) if is_protocol(mechanism)
                   else group.to_arrays(prefix) if isinstance(group, RapporReports)
                   else {f"{prefix}counts": np.asarray(group, dtype=np.int64)})
    return arrays


def reports_to_arrays(reports: Sequence[Sequence[Sequence[Any]]], mechanisms: Sequence[Sequence[Any]] | None = None
                      ) -> dict[str, np.ndarray]:
    """Arrays for an npz of the reports indexed [point][run][mechanism]: ``counts`` (P, R, M, m) when every mechanism
    is a matrix; else each mechanism's reports under the prefix ``p{point}_r{run}_m{mechanism}_``: a RAPPOR group's
    distinct bit vectors, or a matrix mechanism's ``counts``. With protocols among the mechanisms of the points
    (``mechanisms[point][mechanism]``), a protocol's reports as ``Protocol.to_arrays`` writes them, and the flag
    ``protocol_reports``."""
    protocols = mechanisms is not None and any(is_protocol(m) for by_point in mechanisms for m in by_point)
    if not protocols and all(not isinstance(r, RapporReports)
                             for by_run in reports for by_mechanism in by_run for r in by_mechanism):
        return {"counts": np.array(reports, dtype=np.int64)}
    arrays: dict[str, np.ndarray] = {"protocol_reports": np.bool_(True)} if protocols else {}
    for p, by_run in enumerate(reports):
        for r, by_mechanism in enumerate(by_run):
            arrays |= run_to_arrays(p, r, by_mechanism, mechanisms[p] if protocols else None)
    return arrays


class PointRuns(Sequence):
    """One point's reports [run][mechanism], read from a reports archive's arrays only when a run is asked for: a bit
    protocol's reports come back packed (``PackedBits``, as ``Protocol.from_arrays`` reads them), never unpacked
    here."""

    def __init__(self, arrays: Mapping[str, np.ndarray], point: int, mechanisms: Sequence[Any] | None) -> None:
        self._arrays, self._point, self._mechanisms = arrays, point, mechanisms
        self._runs, self._members = arrays["secret_counts"].shape[1:3]

    def __len__(self) -> int:
        return int(self._runs)

    def __getitem__(self, run: Any) -> Any:
        if isinstance(run, slice):
            return [self[r] for r in range(*run.indices(len(self)))]
        run = range(len(self))[run]  # negative indices, and IndexError past the end

        def group(j: int) -> Any:
            prefix = f"p{self._point}_r{run}_m{j}_"
            mechanism = None if self._mechanisms is None else self._mechanisms[j]
            if is_protocol(mechanism):
                return mechanism.from_arrays(self._arrays, prefix)
            if f"{prefix}values" in self._arrays:
                return self._arrays[f"{prefix}values"]
            if f"{prefix}bits" in self._arrays:
                return RapporReports.from_arrays(self._arrays, prefix)
            return self._arrays[f"{prefix}counts"]

        return [group(j) for j in range(self._members)]


def reports_from_arrays(arrays: Mapping[str, np.ndarray], mechanisms: Sequence[Sequence[Any]] | None = None
                        ) -> list[Sequence[list[Any]]]:
    """The reports stored by ``perturb``, indexed [point][run][mechanism]; protocols' reports need the mechanisms of
    each point (``mechanisms[point][mechanism]``) to be read. Each point's runs are a ``PointRuns`` (read run by run)
    unless every mechanism is a matrix (one counts array)."""
    points, runs = arrays["secret_counts"].shape[:2]
    if "counts" in arrays:
        return [[list(arrays["counts"][p, r]) for r in range(runs)] for p in range(points)]
    if "protocol_reports" in arrays and mechanisms is None:
        raise ValueError("these are protocols' reports: give the mechanisms of each point to read them")
    return [PointRuns(arrays, p, None if mechanisms is None else mechanisms[p]) for p in range(points)]
