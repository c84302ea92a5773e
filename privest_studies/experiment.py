"""The one experiment chain of every study: mechanisms -> perturb -> estimate (one job per estimator family) -> score.

An ``Experiment`` is a dataset on an alphabet, the mechanisms it uses, the points of its x axis (eps, or the number of
users n), the runs per point and the estimator families applied to the reports. At each point the users are split as
equally as possible over that point's mechanisms (NOTES 6) and each reports once. The IBU paper's experiments are
instances with one mechanism per eps point; the free-will paper's mechanism sets (Tables 4-8) are instances with the
whole set at every n point; a researcher's own study from config is another instance.

Every estimator family is named once, in ``FAMILIES``: the methods it computes from one pass over the reports of one
point (INV-N and INV-P from one factorisation, [INV]_M raw, normalised and projected, ...). A family that cannot run
on a point (INV on a singular matrix, RAP on matrix reports, ...) gives NaN estimates and the reason, the papers' "NA".

Storage (npz, written by the scripts of rules mechanisms, perturb and estimate):
- mechanisms: ``kinds`` and ``parameters`` (D,) of the experiment's distinct mechanisms, ``k``, and ``A`` (D, k, m)
  when every one is a matrix, else ``A{j}`` (k, m) for each matrix member j (RAPPOR has 2^k observables: never a
  matrix, NOTES 2; the standard protocols of ``privest.protocols`` report sets, not columns); ``hashes`` (D,) when a
  member is a protocol (BLH and OLH: the size of the hash family, -1 for seeds from 2^32; -1 for the others).
- reports: ``points`` (P,), ``runs``, ``secret_counts`` (P, R, M, k), and ``counts`` (P, R, M, m) when every mechanism
  is a matrix, else each group's reports under the prefix ``p{point}_r{run}_m{mechanism}_``: a RAPPOR group's distinct
  bit vectors, a protocol's reports as ``Protocol.to_arrays`` writes them (then ``protocol_reports`` is set), a
  matrix's counts.
- estimates: ``methods`` (F,), ``points`` (P,), ``theta`` (F, P, R, k), ``iterations`` and ``capped`` (F, P, R),
  ``notes`` (P,): why the family could not run at a point ('' where it ran).
"""

import contextlib
import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from privest import estimators, protocols
from privest.alphabets import Alphabet
from privest.estimators import gibu_matrix_runs
from privest.mechanisms import average, by_name
from privest.protocols import Protocol
from privest.rappor import RapporReports
from privest.sampling import Mechanism, Rappor, Reports, population, rng_for, split_secrets, split_users
from privest_studies.jobs import Progress

PROTOCOL_KINDS = protocols.NAMES
"""The standard LDP frequency oracles (``privest.protocols``: GRR, SUE, OUE, BLH, OLH, SS, HR): set-valued reports."""
HASHED_KINDS = ("blh", "olh")
"""The protocols that take a hash family size (``Member.hashes``)."""
MECHANISM_KINDS = ("krr", "geometric", "laplace", "exponential", "rappor", "shokri", *PROTOCOL_KINDS)
KIND_NAMES = {"krr": "k-RR", "geometric": "geometric", "laplace": "Laplace", "exponential": "exponential",
              "rappor": "RAPPOR", "shokri": "Shokri", **{kind: kind.upper() for kind in PROTOCOL_KINDS}}


@dataclass(frozen=True)
class Member:
    """One mechanism of an experiment: its kind (``MECHANISM_KINDS``) and parameter (eps, or Q for Shokri's); for BLH
    and OLH the size of the hash family (None: seeds from 2^32, as the peer libraries)."""

    kind: str
    parameter: float
    hashes: int | None = None

    @property
    def symbol(self) -> str:
        return "Q" if self.kind == "shokri" else "ε"


@dataclass(frozen=True)
class Point:
    """One point of an experiment's x axis.

    value: eps or n (the axis of the experiment); mechanisms: indices into ``Experiment.members``, the mechanisms the
    point's users are split over; users: users per run, drawn i.i.d. from theta, or None for every record of the
    dataset once (the dataset's own users).
    """

    value: float
    mechanisms: tuple[int, ...]
    users: int | None = None


@dataclass(frozen=True)
class Experiment:
    """Everything the chain needs to know about one experiment; plain data, passed to every job as a dict.

    data: the path prefix of the dataset, ``<data>.npz`` (theta; the users' secrets where points use the dataset's
    own users) and ``<data>_alphabet.json``. labels: the first columns of every score row (study, experiment, ...).
    score_against: 'theta' (the dataset's distribution) or 'users' (each run's drawn users, as the IBU paper scores
    its synthetic data). score_noisy: also score the pooled noisy reports where the observables are the secrets.
    shokri: the solved Shokri matrices the members need, one file per Shokri member, in member order. stopping: the
    rule of IBU and GIBU, (('delta', d), ('max_iter', m)): the change of the normalised log-likelihood below d, or m
    iterations; with ('accelerate', 'squarem') (protocol members only) GIBU runs SQUAREM and counts updates.
    point_column: the name of the score column that holds the point (default: the axis, eps or n; a study whose
    experiments have different axes names it 'point' and gives the axis as a label). seed_name: the name in the
    seed keys (default: the experiment's name); the experiments of a comparison share one, so that each kind's
    users are the same users.
    """

    study: str
    name: str
    axis: str
    members: tuple[Member, ...]
    points: tuple[Point, ...]
    runs: int
    families: tuple[str, ...]
    data: str
    labels: tuple[tuple[str, str], ...]
    score_against: str = "theta"
    score_noisy: bool = False
    shokri: tuple[str, ...] = ()
    stopping: tuple[tuple[str, float], ...] = (("delta", 1e-10), ("max_iter", 10_000))
    point_column: str = ""
    seed_name: str = ""

    def __post_init__(self) -> None:
        where = f"experiment {self.study}/{self.name}"
        if self.axis not in ("eps", "n"):
            raise ValueError(f"{where}: axis must be 'eps' or 'n', got {self.axis!r}")
        if self.score_against not in ("theta", "users"):
            raise ValueError(f"{where}: score_against must be 'theta' or 'users', got {self.score_against!r}")
        unknown = sorted({m.kind for m in self.members} - set(MECHANISM_KINDS))
        if unknown:
            raise ValueError(f"{where}: unknown mechanism kinds {unknown}; known: {', '.join(MECHANISM_KINDS)}")
        hashed = [m for m in self.members if m.hashes is not None and (m.kind not in HASHED_KINDS or m.hashes < 1)]
        if hashed:
            raise ValueError(f"{where}: hashes is a positive hash family size of {' and '.join(HASHED_KINDS)} "
                             f"members only, got {hashed[0]}")
        if "accelerate" in dict(self.stopping) and any(m.kind not in PROTOCOL_KINDS for m in self.members):
            raise ValueError(f"{where}: accelerate (SQUAREM) applies to protocol members only; the matrix families "
                             "batch plain IBU over runs")
        unknown = sorted(set(self.families) - set(FAMILIES))
        if unknown:
            raise ValueError(f"{where}: unknown estimator families {unknown}; known: {', '.join(FAMILIES)}")
        if not self.points or len({len(p.mechanisms) for p in self.points}) != 1:
            raise ValueError(f"{where}: needs points, each with the same number of mechanisms")
        if any(j >= len(self.members) for p in self.points for j in p.mechanisms):
            raise ValueError(f"{where}: a point names a mechanism it does not have")

    @property
    def data_file(self) -> str:
        """The dataset: theta, and the users' secrets where points use the dataset's own users."""
        return f"{self.data}.npz"

    @property
    def alphabet_file(self) -> str:
        """The dataset's alphabet (``privest.alphabets.Alphabet.from_dict`` reads it)."""
        return f"{self.data}_alphabet.json"

    @property
    def stopping_rule(self) -> dict:
        """The stopping rule as the estimators take it: {'delta': d, 'max_iter': m}."""
        return {key: int(value) if key == "max_iter" else value if key == "accelerate" else float(value)
                for key, value in self.stopping}

    def seed_keys(self, point: Point, run: int) -> tuple:
        """The keys of the generator of one (point, run), after the config seed: study, experiment, the point (eps as
        its repr, n as an integer) and the run. Adding a point or runs leaves every existing report unchanged."""
        value = repr(float(point.value)) if self.axis == "eps" else int(point.value)
        return (self.study, self.seed_name or self.name, value, run)

    def to_dict(self) -> dict[str, Any]:
        """The experiment as plain data (a member's hashes and the seed name only where set: the other studies' dicts
        are unchanged)."""
        spec = dataclasses.asdict(self)
        if not self.seed_name:
            del spec["seed_name"]
        spec["members"] = [{key: value for key, value in m.items() if key != "hashes" or value is not None}
                           for m in spec["members"]]
        return spec

    @classmethod
    def from_dict(cls, spec: Mapping[str, Any]) -> "Experiment":
        fields = dict(spec)
        fields["members"] = tuple(Member(str(m["kind"]), float(m["parameter"]),
                                         None if m.get("hashes") is None else int(m["hashes"]))
                                  for m in spec["members"])
        fields["points"] = tuple(Point(p["value"], tuple(p["mechanisms"]), p["users"]) for p in spec["points"])
        fields["families"] = tuple(spec["families"])
        fields["labels"] = tuple((str(k), str(v)) for k, v in spec["labels"])
        fields["shokri"] = tuple(spec["shokri"])
        fields["stopping"] = tuple((str(k), v) for k, v in spec["stopping"])
        return cls(**fields)


# --- mechanisms -------------------------------------------------------------------------------------------------------


def is_protocol(mechanism: Any) -> bool:
    """Whether a built mechanism is a standard protocol (``privest.protocols``): its reports are sets, not counts."""
    return isinstance(mechanism, Protocol)


def protocol(member: Member, k: int) -> Protocol:
    """A protocol member on k secrets (``privest.protocols.by_name``; BLH and OLH with their hash family size)."""
    options = {"hashes": member.hashes} if member.kind in HASHED_KINDS else {}
    return protocols.by_name(member.kind, k, member.parameter, **options)


def mechanism_k(mechanism: Any) -> int:
    """The number of secrets of a built mechanism (a matrix's rows)."""
    return mechanism.k if isinstance(mechanism, Rappor | Protocol) else np.asarray(mechanism).shape[0]


def build_mechanisms(members: Sequence[Member], alphabet: Alphabet, shokri: Mapping[float, np.ndarray] | None = None
                     ) -> list[Any]:
    """The mechanisms on an alphabet: matrices (``privest.mechanisms.by_name``; Shokri's from the solved matrices
    ``shokri[Q]``), ``Rappor`` for RAPPOR members, or a protocol of ``privest.protocols``."""
    result: list[Any] = []
    for m in members:
        if m.kind in PROTOCOL_KINDS:
            result.append(protocol(m, alphabet.k))
        elif m.kind == "rappor":
            result.append(Rappor(alphabet.k, m.parameter))
        elif m.kind == "shokri":
            if shokri is None or m.parameter not in shokri:
                raise ValueError(f"shokri: no solved matrix for Q = {m.parameter:g}")
            result.append(np.asarray(shokri[m.parameter], dtype=np.float64))
        else:
            result.append(by_name(m.kind, alphabet, m.parameter))
    return result


def mechanisms_to_arrays(members: Sequence[Member], built: Sequence[Any]) -> dict[str, np.ndarray]:
    """The arrays that store built mechanisms in an npz: kinds, parameters, k; ``A`` (D, k, m) when every one is a
    matrix, else each matrix member's own ``A{j}`` (j its index among the members: a mixture of matrices with RAPPOR
    or protocols, whatever the order of its kinds); and hashes (D,) when one is a protocol (-1 for None)."""
    arrays = {"kinds": np.array([m.kind for m in members]),
              "parameters": np.array([m.parameter for m in members], dtype=np.float64),
              "k": np.int64(mechanism_k(built[0]))}
    if not any(isinstance(m, Rappor | Protocol) for m in built):
        arrays["A"] = np.stack(built)
    else:
        arrays |= {f"A{j}": np.asarray(m, dtype=np.float64) for j, m in enumerate(built)
                   if not isinstance(m, Rappor | Protocol)}
    if any(is_protocol(m) for m in built):
        arrays["hashes"] = np.array([-1 if m.hashes is None else m.hashes for m in members], dtype=np.int64)
    return arrays


def mechanisms_from_arrays(arrays: Mapping[str, np.ndarray]) -> tuple[list[Member], list[Any]]:
    """The members and mechanisms stored by ``mechanisms_to_arrays``."""
    hashes = ([None if h < 0 else int(h) for h in arrays["hashes"]] if "hashes" in arrays
              else [None] * len(arrays["kinds"]))
    members = [Member(str(kind), float(p), h)
               for kind, p, h in zip(arrays["kinds"], arrays["parameters"], hashes, strict=True)]
    k = int(arrays["k"])

    def mechanism(j: int, m: Member) -> Any:
        if m.kind == "rappor":
            return Rappor(k, m.parameter)
        if m.kind in PROTOCOL_KINDS:
            return protocol(m, k)
        return arrays["A"][j] if "A" in arrays else arrays[f"A{j}"]

    return members, [mechanism(j, m) for j, m in enumerate(members)]


def describe(members: Sequence[Member]) -> str:
    """'10 k-RR, ε 3–8.08' or '5 geometric, ε 0.065–0.869 + 5 k-RR, ε 3–4.69': the mechanisms as the papers name
    them."""
    parts = []
    for kind in dict.fromkeys(m.kind for m in members):
        values = [m.parameter for m in members if m.kind == kind]
        symbol = "Q" if kind == "shokri" else "ε"
        span = f"{values[0]:g}" if len(values) == 1 else f"{min(values):g}–{max(values):g}"
        parts.append(f"{len(values)} {KIND_NAMES.get(kind, kind)}, {symbol} {span}")
    return " + ".join(parts)


# --- perturb ----------------------------------------------------------------------------------------------------------


def population_reports(mechanisms: Sequence[Any], secret_counts: np.ndarray, rng: np.random.Generator) -> list:
    """``privest.sampling.population`` for points whose mechanisms include protocols: each group in turn from the one
    generator, a protocol's users (secrets in increasing order) through ``Protocol.sample``, the others as
    ``population`` draws them."""
    reports = []
    for mechanism, counts in zip(mechanisms, np.asarray(secret_counts), strict=True):
        if is_protocol(mechanism):
            reports.append(mechanism.sample(np.repeat(np.arange(mechanism.k), counts), rng))
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
    sets = any(is_protocol(m) for m in built)
    # Protocols' reports (k bits a user for SUE, OUE and SS) are packed as soon as a run is drawn: the archive's arrays
    # then hold 1/8 of the unpacked bits, and no more than one run is ever held unpacked.
    reports, secret_counts, packed = [], [], {"protocol_reports": np.bool_(True)} if sets else {}
    for p, point in enumerate(experiment.points):
        point_mechanisms = [built[j] for j in point.mechanisms]
        by_run, counts_by_run = [], []
        for run in range(experiment.runs):
            rng = rng_for(seed, *experiment.seed_keys(point, run))
            if point.users is not None:
                counts = split_users(int(point.users), len(point_mechanisms), data["theta"], rng)
            elif own is None:
                raise ValueError(f"experiment {experiment.name}: the dataset has no users' secrets; give users")
            elif len(point_mechanisms) == 1:
                counts = own[None]
            else:
                counts = split_secrets(data["secrets"], k, len(point_mechanisms), rng)
            if sets:
                packed |= run_to_arrays(p, run, population_reports(point_mechanisms, counts, rng), point_mechanisms)
            else:
                by_run.append(population(point_mechanisms, counts, rng))
            counts_by_run.append(counts)
        reports.append(by_run)
        secret_counts.append(counts_by_run)
    return {"points": np.array([p.value for p in experiment.points], dtype=np.float64),
            "runs": np.int64(experiment.runs), "secret_counts": np.array(secret_counts, dtype=np.int64),
            **(packed if sets else reports_to_arrays(reports))}


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
    """One point's reports [run][mechanism], read from a reports archive's arrays only when a run is asked for: a
    protocol's packed bits are unpacked one run at a time, so an estimate job holds one run unpacked, never all."""

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


# --- estimator families -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Estimate:
    """One method's estimate from one run, with how IBU stopped (iterations 0 and capped False for closed forms)."""

    theta: np.ndarray
    iterations: int = 0
    capped: bool = False


def _one(mechanisms: Sequence[Mechanism], family: str) -> Mechanism:
    if len(mechanisms) != 1:
        raise ValueError(f"family {family} needs one mechanism per point, got {len(mechanisms)}")
    return mechanisms[0]


def _matrices(mechanisms: Sequence[Mechanism], method: str) -> list[np.ndarray]:
    if any(isinstance(m, Rappor) for m in mechanisms):
        raise ValueError(f"{method} needs matrix mechanisms; RAPPOR has 2^k observables")
    if any(is_protocol(m) for m in mechanisms):
        names = ", ".join(dict.fromkeys(m.name for m in mechanisms if is_protocol(m)))
        raise ValueError(f"{method} needs matrix mechanisms with one common set of observables; {names} report sets")
    return [np.asarray(m) for m in mechanisms]


def _counts(reports: Sequence[Sequence[Reports]]) -> np.ndarray:
    """(runs, M, m) report counts of matrix mechanisms."""
    return np.array([[np.asarray(r) for r in by_mechanism] for by_mechanism in reports], dtype=np.float64)


def _rappor(mechanisms: Sequence[Mechanism], reports: Sequence[Sequence[Reports]], method: str
            ) -> list[list[RapporReports]]:
    if not all(isinstance(m, Rappor) for m in mechanisms):
        raise ValueError(f"{method} needs RAPPOR mechanisms (its estimator works on bit sums)")
    return [list(by_mechanism) for by_mechanism in reports]  # type: ignore[arg-type]


def _users(reports: Sequence[Reports]) -> np.ndarray:
    return np.array([r.n if isinstance(r, RapporReports) else np.sum(r) for r in reports], dtype=np.float64)


def _ibu_estimates(results: Sequence[estimators.IbuResult]) -> list[Estimate]:
    return [Estimate(r.theta, r.iterations, r.capped) for r in results]


def _group(mechanism: Any, reports: Any) -> Any:
    """One mechanism's reports as a GIBU group: a protocol's distinct sets, a RAPPOR group's distinct bit vectors, or
    a matrix's report counts."""
    if is_protocol(mechanism):
        return mechanism.group(reports)
    if isinstance(reports, RapporReports):
        return estimators.rappor_group(reports)
    return estimators.matrix_group(mechanism, reports)


def _sets_or_matrices(mechanisms: Sequence[Any], method: str) -> None:
    """The [e]_R families on protocols run on protocols and matrices; RAPPOR's groups go to rap_r."""
    if any(isinstance(m, Rappor) for m in mechanisms):
        raise ValueError(f"{method} needs matrix mechanisms or protocols; RAPPOR has 2^k observables")


def _own_estimate(mechanism: Any, reports: Any, post: str) -> np.ndarray:
    """A mechanism's own unbiased estimate, post-processed: a protocol's (Wang et al. 2017, ``Protocol.estimate``) or
    INV on a matrix."""
    if is_protocol(mechanism):
        return mechanism.estimate(reports, post=post)
    return estimators.inv(np.asarray(mechanism), np.asarray(reports, dtype=np.float64), post=post)


def _users_of(mechanism: Any, reports: Any) -> float:
    return float(mechanism.count(reports)) if is_protocol(mechanism) else float(np.sum(reports))


def _inv(mechanisms, reports, _stopping):
    """INV (IBU paper section 3) on the one matrix mechanism of a point: one factorisation for every run, then
    normalised (INV-N) or projected (INV-P); a protocol's unbiased estimator (which is INV for GRR)."""
    mechanism = _one(mechanisms, "inv")
    if is_protocol(mechanism):
        return {name: [Estimate(mechanism.estimate(by_mechanism[0], post=post)) for by_mechanism in reports]
                for name, post in (("INV-N", "normalization"), ("INV-P", "projection"))}
    A = _matrices([mechanism], "INV")[0]
    raw = estimators.inv_runs(A, np.array([by_mechanism[0] for by_mechanism in reports]))
    return {"INV-N": [Estimate(estimators.normalise(v)) for v in raw],
            "INV-P": [Estimate(estimators.project_simplex(v)) for v in raw]}


def _rap(mechanisms, reports, _stopping):
    """RAPPOR's own estimator RAP (free-will eqs. 13-14, one eps) from the bit sums, normalised or projected: the
    names INV-N and INV-P the IBU paper's Figure 12 gives them."""
    _one(mechanisms, "rap")
    groups = _rappor(mechanisms, reports, "RAP")
    return {"INV-N": [Estimate(estimators.rap_grouped(g, "normalization")) for g in groups],
            "INV-P": [Estimate(estimators.rap_grouped(g, "projection")) for g in groups]}


def _ibu(mechanisms, reports, stopping):
    """IBU (free-will eq. 10) on the one mechanism of a point: batched over runs for a matrix, GIBU on the one group
    of distinct bit vectors for RAPPOR."""
    mechanism = _one(mechanisms, "ibu")
    if is_protocol(mechanism):
        return {"IBU": _ibu_estimates([estimators.gibu([mechanism.group(by_mechanism[0])], **stopping)
                                       for by_mechanism in reports])}
    if isinstance(mechanism, Rappor):
        return {"IBU": _ibu_estimates([estimators.gibu([estimators.rappor_group(by_mechanism[0])], **stopping)
                                       for by_mechanism in reports])}
    counts = np.array([by_mechanism[0] for by_mechanism in reports])
    return {"IBU": _ibu_estimates(estimators.ibu_runs(mechanism, counts, **stopping))}


def _inv_r(mechanisms, reports, _stopping):
    """[INV]_R (eqs. 4-5 with e = INV): INV on each mechanism's own reports, post-processed, weighted by n^A/n; a
    protocol's own unbiased estimator (``Protocol.estimate``) in place of INV."""
    if any(is_protocol(m) for m in mechanisms):
        _sets_or_matrices(mechanisms, "[INV]_R")
        out = {"[INV]_R-N": [], "[INV]_R-P": []}
        for by_mechanism in reports:
            n = [_users_of(m, r) for m, r in zip(mechanisms, by_mechanism, strict=True)]
            for method, post in (("[INV]_R-N", "normalization"), ("[INV]_R-P", "projection")):
                thetas = [_own_estimate(m, r, post) for m, r in zip(mechanisms, by_mechanism, strict=True)]
                out[method].append(Estimate(estimators.combine_results(thetas, n)))
        return out
    matrices = _matrices(mechanisms, "[INV]_R")
    out = {"[INV]_R-N": [], "[INV]_R-P": []}
    for counts in _counts(reports):
        raw = [estimators.inv(A, c) for A, c in zip(matrices, counts, strict=True)]
        n = counts.sum(axis=1)
        out["[INV]_R-N"].append(Estimate(estimators.combine_results([estimators.normalise(v) for v in raw], n)))
        out["[INV]_R-P"].append(Estimate(estimators.combine_results([estimators.project_simplex(v) for v in raw], n)))
    return out


def _ibu_r(mechanisms, reports, stopping):
    """[IBU]_R (eqs. 4-5 with e = IBU): IBU on each mechanism's own reports (batched over runs), weighted by n^A/n.
    Records the most iterations any mechanism's IBU used, and whether any hit the cap. With protocols: GIBU on each
    mechanism's own group (the stopping rule's accelerate applies), run by run."""
    if any(is_protocol(m) for m in mechanisms):
        _sets_or_matrices(mechanisms, "[IBU]_R")
        out = []
        for by_mechanism in reports:
            results = [estimators.gibu([_group(m, r)], **stopping) for m, r in zip(mechanisms, by_mechanism,
                                                                                    strict=True)]
            n = [_users_of(m, r) for m, r in zip(mechanisms, by_mechanism, strict=True)]
            out.append(Estimate(estimators.combine_results([r.theta for r in results], n),
                                max(r.iterations for r in results), any(r.capped for r in results)))
        return {"[IBU]_R": out}
    matrices = _matrices(mechanisms, "[IBU]_R")
    counts = _counts(reports)
    per_mechanism = [estimators.ibu_runs(A, counts[:, j], **stopping) for j, A in enumerate(matrices)]
    out = []
    for run, run_counts in enumerate(counts):
        results = [by_run[run] for by_run in per_mechanism]
        out.append(Estimate(estimators.combine_results([r.theta for r in results], run_counts.sum(axis=1)),
                            max(r.iterations for r in results), any(r.capped for r in results)))
    return {"[IBU]_R": out}


def _rap_r(mechanisms, reports, _stopping):
    """[RAP]_R (eqs. 4-5 with e = RAP): RAPPOR's estimator on each mechanism's own reports, weighted by n^A/n."""
    groups = _rappor(mechanisms, reports, "[RAP]_R")
    out = {"[RAP]_R-N": [], "[RAP]_R-P": []}
    for by_mechanism in groups:
        n = _users(by_mechanism)
        for method, post in (("[RAP]_R-N", "normalization"), ("[RAP]_R-P", "projection")):
            thetas = [estimators.rap_grouped([g], post=post) for g in by_mechanism]
            out[method].append(Estimate(estimators.combine_results(thetas, n)))
    return out


def _inv_m(mechanisms, reports, _stopping):
    """[INV]_M (eq. 7): INV on the average mechanism A[n] and the pooled reports; raw, normalised and projected."""
    matrices = _matrices(mechanisms, "[INV]_M")
    out = {"[INV]_M-N": [], "[INV]_M-P": [], "[INV]_M-raw": []}
    for counts in _counts(reports):
        raw = estimators.inv_m(matrices, list(counts))
        out["[INV]_M-raw"].append(Estimate(raw))
        out["[INV]_M-N"].append(Estimate(estimators.normalise(raw)))
        out["[INV]_M-P"].append(Estimate(estimators.project_simplex(raw)))
    return out


def _ibu_m(mechanisms, reports, stopping):
    """[IBU]_M (section 5.3): IBU on the average mechanism A[n] and the pooled reports (batched over runs when every
    run has the same n^A, as with the equal split)."""
    matrices = _matrices(mechanisms, "[IBU]_M")
    counts = _counts(reports)
    users = counts.sum(axis=2)
    if np.all(users == users[0]):
        results = estimators.ibu_runs(average(matrices, users[0]), counts.sum(axis=1), **stopping)
    else:
        results = [estimators.ibu_m(matrices, list(c), **stopping) for c in counts]
    return {"[IBU]_M": _ibu_estimates(results)}


def _rap_m(mechanisms, reports, _stopping):
    """[RAP]_M (eqs. 13-14): one estimate from the pooled bit sums with eps[n] of eq. (13); raw, normalised and
    projected."""
    groups = _rappor(mechanisms, reports, "[RAP]_M")
    out = {"[RAP]_M-N": [], "[RAP]_M-P": [], "[RAP]_M-raw": []}
    for by_mechanism in groups:
        raw = estimators.rap_grouped(by_mechanism)
        out["[RAP]_M-raw"].append(Estimate(raw))
        out["[RAP]_M-N"].append(Estimate(estimators.normalise(raw)))
        out["[RAP]_M-P"].append(Estimate(estimators.project_simplex(raw)))
    return out


def _gibu(mechanisms, reports, stopping):
    """GIBU (Algorithm 1) on all reports, each mechanism with its own marginal: batched over runs for matrix
    mechanisms, one run at a time over RAPPOR groups of distinct bit vectors and protocols' groups of distinct sets
    (one call over the whole mixture)."""
    if not any(isinstance(m, Rappor | Protocol) for m in mechanisms):
        return {"GIBU": _ibu_estimates(gibu_matrix_runs([np.asarray(m) for m in mechanisms], _counts(reports),
                                                        **stopping))}
    results = []
    for by_mechanism in reports:
        groups = [_group(m, r) for m, r in zip(mechanisms, by_mechanism, strict=True)]
        results.append(estimators.gibu(groups, **stopping))
    return {"GIBU": _ibu_estimates(results)}


@dataclass(frozen=True)
class Family:
    """An estimator family: the methods it computes in one pass, and the function that computes them from the
    mechanisms of a point, its reports [run][mechanism] and the stopping rule {'delta', 'max_iter'}."""

    methods: tuple[str, ...]
    compute: Callable[[Sequence[Mechanism], Sequence[Sequence[Reports]], dict], dict[str, list[Estimate]]]


FAMILIES: dict[str, Family] = {
    "inv": Family(("INV-N", "INV-P"), _inv),
    "rap": Family(("INV-N", "INV-P"), _rap),
    "ibu": Family(("IBU",), _ibu),
    "inv_r": Family(("[INV]_R-N", "[INV]_R-P"), _inv_r),
    "ibu_r": Family(("[IBU]_R",), _ibu_r),
    "rap_r": Family(("[RAP]_R-N", "[RAP]_R-P"), _rap_r),
    "inv_m": Family(("[INV]_M-N", "[INV]_M-P", "[INV]_M-raw"), _inv_m),
    "ibu_m": Family(("[IBU]_M",), _ibu_m),
    "rap_m": Family(("[RAP]_M-N", "[RAP]_M-P", "[RAP]_M-raw"), _rap_m),
    "gibu": Family(("GIBU",), _gibu),
}
"""Every estimator family. inv, rap, ibu: one mechanism per point (the IBU paper's INV-N, INV-P and IBU; rap is
RAPPOR's estimator, which the IBU paper names INV-N and INV-P); [e]_R (inv_r, ibu_r, rap_r) and [e]_M (inv_m, ibu_m,
rap_m) and GIBU: any mixture (free-will sections 4-6). -N: normalisation, -P: projection, -raw: before
post-processing (not a distribution: scored by l2^2 only, for Propositions 2 and 3). On the standard protocols
(``privest.protocols``) inv and inv_r take each protocol's unbiased estimator, ibu and ibu_r GIBU on one protocol's
reports, gibu the whole mixture; the [e]_M families need a common matrix and say NA."""

RAW_SUFFIX = "-raw"


@dataclass(frozen=True)
class FamilyResult:
    """One family's estimates of one point for every run: method -> estimates (one per run), and the reason the
    family cannot run on this point ('' when it ran; the estimates are then NaN, the paper's "NA")."""

    estimates: dict[str, list[Estimate]]
    note: str = ""


def estimate_family(family: str, point_mechanisms: Sequence[Mechanism], reports: Sequence[Sequence[Reports]],
                    stopping: Mapping) -> FamilyResult:
    """Every method of an estimator family on the reports [run][mechanism] of one point. A method that cannot run
    (INV on a singular matrix, RAP on matrix reports, ...) gives NaN estimates and the error as the note."""
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {', '.join(FAMILIES)}, got {family!r}")
    try:
        estimates = FAMILIES[family].compute(point_mechanisms, reports, dict(stopping))
    except ValueError as error:
        nan = Estimate(np.full(mechanism_k(point_mechanisms[0]), np.nan))
        return FamilyResult({m: [nan] * len(reports) for m in FAMILIES[family].methods}, " ".join(str(error).split()))
    for method, by_run in estimates.items():
        if not all(np.all(np.isfinite(e.theta)) for e in by_run):
            raise RuntimeError(f"{method}: a run gave a non-finite estimate (a numerical failure, not an NA)")
    return FamilyResult(estimates)


def estimate(experiment: Experiment, family: str, built: Sequence[Mechanism], reports: Mapping[str, np.ndarray],
             stopping: Mapping, progress: Progress | None = None) -> dict[str, np.ndarray]:
    """One estimator family on every point and run of an experiment, as the arrays of an estimates archive.

    A point of matrix mechanisms is one unit of work (its runs are batched); a point with RAPPOR or protocol members
    is one unit per run (their families go run by run anyway). ``progress``: logs a line after each unit (the point,
    the runs, IBU's iterations) and while a long one runs (``jobs.Progress``; its weights one per (point, run))."""
    point_mechanisms = [[built[j] for j in point.mechanisms] for point in experiment.points]
    by_point = reports_from_arrays(reports, point_mechanisms)
    results = [_estimate_point(family, mechanisms, point_reports, stopping, progress,
                               f"point {experiment.axis}={point.value:g}")
               for point, mechanisms, point_reports in zip(experiment.points, point_mechanisms, by_point, strict=True)]
    methods = FAMILIES[family].methods

    def stack(field: str) -> np.ndarray:
        """(methods, points, runs, ...) array of one field of the estimates."""
        return np.array([[[getattr(e, field) for e in r.estimates[m]] for r in results] for m in methods])

    return {"methods": np.array(methods), "points": reports["points"], "theta": stack("theta"),
            "iterations": stack("iterations"), "capped": stack("capped"),
            "notes": np.array([r.note for r in results])}


def _estimate_point(family: str, mechanisms: Sequence[Mechanism], reports: Sequence[Sequence[Reports]],
                    stopping: Mapping, progress: Progress | None, label: str) -> FamilyResult:
    """``estimate_family`` on one point, in units of work: every run at once for matrix mechanisms, else run by run
    (the same estimates: those families go run by run). A run that cannot run makes the whole point NA, as one call
    over every run would."""
    runs = len(reports)
    batched = not any(isinstance(m, Rappor | Protocol) for m in mechanisms)
    parts = []
    for chunk in [range(runs)] if batched else [range(run, run + 1) for run in range(runs)]:
        which = f"runs 1-{runs}/{runs}" if len(chunk) > 1 else f"run {chunk[0] + 1}/{runs}"
        with progress.unit(f"{label} {which}", len(chunk)) if progress else contextlib.nullcontext([]) as details:
            part = estimate_family(family, mechanisms, [reports[run] for run in chunk], stopping)
            iterations = [max(by_run[i].iterations for by_run in part.estimates.values()) for i in range(len(chunk))]
            if max(iterations) > 0:
                details.append(f"{iterations[0]} iterations" if len(chunk) == 1
                               else f"{np.mean(iterations):.0f} iterations on average, at most {max(iterations)}")
        if part.note:
            return part if len(chunk) == runs else FamilyResult(
                {m: by_run * runs for m, by_run in part.estimates.items()}, part.note)
        parts.append(part)
    return FamilyResult({m: [e for part in parts for e in part.estimates[m]] for m in parts[0].estimates})


# --- score ------------------------------------------------------------------------------------------------------------

SCORE_COLUMNS = ["run", "method", "emd", "l2sq", "iterations", "capped", "note"]


def score(experiment: Experiment, alphabet: Alphabet, theta: np.ndarray, reports: Mapping[str, np.ndarray],
          estimates: Sequence[Mapping[str, np.ndarray]]) -> tuple[list[dict], list[str]]:
    """One tidy row per (point, run, method): EMD (the alphabet's ground distance) and l2^2 to the original
    distribution, IBU's iterations and cap, and why a method could not run (NaN scores). Raw estimates get l2^2 only.
    The original is theta, or each run's drawn users (``experiment.score_against``). Returns rows and columns."""
    secret_counts = reports["secret_counts"].sum(axis=2)
    if experiment.score_against == "users":
        original = secret_counts / secret_counts.sum(axis=-1, keepdims=True)
    else:
        original = np.broadcast_to(np.asarray(theta, dtype=np.float64), secret_counts.shape)
    points = reports["points"]
    rows = []
    if experiment.score_noisy and "counts" in reports and reports["counts"].shape[-1] == alphabet.k:
        for i, by_run in enumerate(reports["counts"].sum(axis=2)):
            for run, c in enumerate(by_run):
                rows.append(_score_row(points[i], run, "noisy", c / c.sum(), original[i, run], alphabet, 0, False, ""))
    for archive in estimates:
        for m, method in enumerate(map(str, archive["methods"])):
            for i in range(points.size):
                for run, theta_hat in enumerate(archive["theta"][m, i]):
                    rows.append(_score_row(points[i], run, method, theta_hat, original[i, run], alphabet,
                                           int(archive["iterations"][m, i, run]),
                                           bool(archive["capped"][m, i, run]), str(archive["notes"][i])))
    column = experiment.point_column or experiment.axis
    rows = [dict(experiment.labels) | {column: row.pop("point")} | row
            for row in sorted(rows, key=lambda r: (r["point"], r["method"], r["run"]))]
    return rows, [label for label, _ in experiment.labels] + [column, *SCORE_COLUMNS]


def _score_row(point: float, run: int, method: str, estimate: np.ndarray, original: np.ndarray, alphabet: Alphabet,
               iterations: int, capped: bool, note: str) -> dict:
    ran = bool(np.all(np.isfinite(estimate)))
    distribution = ran and not method.endswith(RAW_SUFFIX)
    return {"point": point, "run": run, "method": method,
            "emd": alphabet.emd(original, estimate) if distribution else float("nan"),
            "l2sq": float(np.sum((estimate - original) ** 2)) if ran else float("nan"),
            "iterations": iterations, "capped": capped, "note": "" if ran else f"NA: {note}"}
