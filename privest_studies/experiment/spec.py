"""The experiment spec: an ``Experiment`` is a dataset on an alphabet, the mechanisms it uses, the points of its x axis
(eps, or the number of users n), the runs per point and the estimator families applied to the reports; plain data,
passed to every job of the chain as a dict.

At each point the users are split as equally as possible over that point's mechanisms (decisions.md, section 6) and each
reports once. The IBU paper's experiments are instances with one mechanism per eps point; the free-will paper's
mechanism sets (Tables 4-8) are instances with the whole set at every n point; a researcher's own study from config is
another instance.
"""

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from privest_studies.experiment.families import FAMILIES, rounds_refusal
from privest_studies.experiment.mechanisms import (
    HASHED_KINDS,
    KIND_OPTIONS,
    LONGITUDINAL_KINDS,
    MECHANISM_KINDS,
    MEMBER_OPTIONS,
    NUMERIC_KINDS,
    PROTOCOL_KINDS,
    Member,
)

__all__ = ["Experiment", "Point"]


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
    iterations; with ('accelerate', 'squarem' or 'squarem-direct') (protocol members only) GIBU runs SQUAREM and
    counts updates.
    point_column: the name of the score column that holds the point (default: the axis, eps or n; a study whose
    experiments have different axes names it 'point' and gives the axis as a label). seed_name: the name in the
    seed keys (default: the experiment's name); the experiments of a comparison share one, so that each kind's
    users are the same users. rounds: the rounds of collection (an own study's; None for the papers' studies: one
    round, and no round in the scores): in every round each user reports once through a longitudinal protocol that
    keeps the user's memo of each value (``privest.protocols.Rounds``), and after the first each user's value is
    redrawn from theta with probability ``redraw``, else kept; each round is estimated and scored on its own (a
    ``round`` column, the error to that round's users' values, and the privacy spent so far).
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
    rounds: int | None = None
    redraw: float = 0.0

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
        if optioned := [m for m in self.members if set(m.options) - set(KIND_OPTIONS.get(m.kind, ()))]:
            raise ValueError(f"{where}: {optioned[0]} gives an option its kind does not take (it takes "
                             f"{', '.join(KIND_OPTIONS.get(optioned[0].kind, ())) or 'none'})")
        if "accelerate" in dict(self.stopping) and any(m.kind not in PROTOCOL_KINDS for m in self.members):
            raise ValueError(f"{where}: accelerate (SQUAREM) applies to protocol members only; the matrix families "
                             "batch plain IBU over runs")
        if self.rounds is not None and (isinstance(self.rounds, bool) or not isinstance(self.rounds, int)
                                        or self.rounds < 1):
            raise ValueError(f"{where}: rounds must be a positive integer or None, got {self.rounds!r}")
        if (self.rounds or 1) > 1 and (one := [m.kind for m in self.members if m.kind not in LONGITUDINAL_KINDS]):
            raise ValueError(f"{where}: {one[0]} cannot report over rounds (a longitudinal protocol keeps each user's "
                             f"memo: {', '.join(LONGITUDINAL_KINDS)})")
        if not 0 <= self.redraw <= 1 or (self.redraw and (self.rounds or 1) == 1):
            raise ValueError(f"{where}: redraw is a probability per round, of an experiment of several rounds, got "
                             f"{self.redraw!r} with rounds {self.rounds!r}")
        unknown = sorted(set(self.families) - set(FAMILIES))
        if unknown:
            raise ValueError(f"{where}: unknown estimator families {unknown}; known: {', '.join(FAMILIES)}")
        if why := rounds_refusal(self.families, self.rounds or 1, self.redraw):
            raise ValueError(f"{where}: {why}")
        if not self.points or len({len(p.mechanisms) for p in self.points}) != 1:
            raise ValueError(f"{where}: needs points, each with the same number of mechanisms")
        if any(j >= len(self.members) for p in self.points for j in p.mechanisms):
            raise ValueError(f"{where}: a point names a mechanism it does not have")
        if any(len(p.mechanisms) > 1 and any(self.members[j].kind in NUMERIC_KINDS for j in p.mechanisms)
               for p in self.points):
            raise ValueError(f"{where}: a numeric mechanism ({', '.join(NUMERIC_KINDS)}) reports numbers, not the "
                             "bins a mixture's likelihood shares; it runs alone at its points")

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

    @property
    def slots(self) -> int:
        """The runs as stored, every round of every run: runs x rounds, slot = run x rounds + round - 1."""
        return self.runs * (self.rounds or 1)

    def seed_keys(self, point: Point, run: int, round_: int | None = None) -> tuple:
        """The keys of the generator of one (point, run), after the config seed: study, experiment, the point (eps as
        its repr, n as an integer) and the run, then ('round', round_) for one round's draws of an experiment of
        rounds. Adding a point, runs or rounds leaves every existing report unchanged."""
        value = repr(float(point.value)) if self.axis == "eps" else int(point.value)
        return (self.study, self.seed_name or self.name, value, run, *(() if round_ is None else ("round", round_)))

    def to_dict(self) -> dict[str, Any]:
        """The experiment as plain data (a member's options and the seed name only where set: the other studies' dicts
        are unchanged)."""
        spec = dataclasses.asdict(self)
        for name, unset in (("seed_name", ""), ("rounds", None), ("redraw", 0.0)):
            if spec[name] == unset:
                del spec[name]
        spec["members"] = [{key: value for key, value in m.items() if key not in MEMBER_OPTIONS or value is not None}
                           for m in spec["members"]]
        return spec

    @classmethod
    def from_dict(cls, spec: Mapping[str, Any]) -> "Experiment":
        fields = dict(spec)
        fields["members"] = tuple(Member(str(m["kind"]), float(m["parameter"]),
                                         None if m.get("hashes") is None else int(m["hashes"]),
                                         None if m.get("eps1") is None else float(m["eps1"]),
                                         None if m.get("calibration") is None else str(m["calibration"]))
                                  for m in spec["members"])
        fields["points"] = tuple(Point(p["value"], tuple(p["mechanisms"]), p["users"]) for p in spec["points"])
        fields["families"] = tuple(spec["families"])
        fields["labels"] = tuple((str(k), str(v)) for k, v in spec["labels"])
        fields["shokri"] = tuple(spec["shokri"])
        fields["stopping"] = tuple((str(k), v) for k, v in spec["stopping"])
        return cls(**fields)
