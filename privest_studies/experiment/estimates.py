"""One estimator family on every point and run of an experiment (rule estimate), in units of work that a job's log
follows; or, where a scale splits the job (``parts``), on one point and a block of its runs (rule estimate_part),
the parts then gathered into the same archive, byte for byte (``gather``).

Storage (npz): ``methods`` (F,), ``points`` (P,), ``theta`` (F, P, R, k), ``iterations`` and ``capped`` (F, P, R),
``notes`` (P,): why the family could not run at a point ('' where it ran); ``mean`` (F, P, R, 3) on a numeric
mechanism's points: its unbiased mean and interval (estimate, lower, upper). A part's archive holds the same arrays
for its one point and its runs (P = 1, R = the block's runs) and ``point``, ``runs``: which.
"""

import contextlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from privest.protocols import Protocol
from privest.sampling import Mechanism, Rappor, Reports
from privest_studies.experiment.families import (
    FAMILIES,
    ITERATIVE,
    RUN_BY_RUN_KINDS,
    Estimate,
    FamilyResult,
    estimate_family,
    refused,
)
from privest_studies.experiment.reports import reports_from_arrays
from privest_studies.experiment.spec import Experiment
from privest_studies.jobs import Progress

__all__ = ["Part", "estimate", "estimate_part", "gather", "parts"]


def estimate(experiment: Experiment, family: str, built: Sequence[Mechanism], reports: Mapping[str, np.ndarray],
             stopping: Mapping, progress: Progress | None = None) -> dict[str, np.ndarray]:
    """One estimator family on every point and run of an experiment, as the arrays of an estimates archive.

    A point of matrix mechanisms is one unit of work (its runs are batched); a point with RAPPOR or protocol members
    is one unit per run (their families go run by run anyway), or per run of rounds for a family that estimates each
    round from the earlier ones too (``Family.rounds``: every round of a run in one unit). ``progress``: logs a line
    after each unit (the point, the runs, IBU's iterations) and while a long one runs (``jobs.Progress``; its weights
    one per (point, run))."""
    point_mechanisms = [[built[j] for j in point.mechanisms] for point in experiment.points]
    by_point = reports_from_arrays(reports, point_mechanisms)
    results = [_estimate_point(family, mechanisms, point_reports, stopping, progress,
                               f"point {experiment.axis}={point.value:g}", rounds=experiment.rounds)
               for point, mechanisms, point_reports in zip(experiment.points, point_mechanisms, by_point, strict=True)]
    return _archive(family, reports["points"], results)


def _archive(family: str, points: np.ndarray, results: Sequence[FamilyResult]) -> dict[str, np.ndarray]:
    """The arrays of an estimates archive from each point's result."""
    methods = FAMILIES[family].methods

    def stack(field: str) -> np.ndarray:
        """(methods, points, runs, ...) array of one field of the estimates."""
        return np.array([[[getattr(e, field) for e in r.estimates[m]] for r in results] for m in methods])

    arrays = {"methods": np.array(methods), "points": points, "theta": stack("theta"),
              "iterations": stack("iterations"), "capped": stack("capped"),
              "notes": np.array([r.note for r in results])}
    if any(e.mean is not None for r in results for by_run in r.estimates.values() for e in by_run):
        arrays["mean"] = np.array([[[(np.nan,) * 3 if e.mean is None else e.mean for e in r.estimates[m]]
                                    for r in results] for m in methods], dtype=np.float64)
    return arrays


@dataclass(frozen=True)
class Part:
    """One estimate job of a split family: point ``point`` (index), runs ``first`` to ``stop - 1``."""

    point: int
    first: int
    stop: int

    @property
    def name(self) -> str:
        """The job's wildcard, 'point3_runs11-20' (runs counted from 1, both ends included)."""
        return f"point{self.point}_runs{self.first + 1}-{self.stop}"

    @classmethod
    def from_name(cls, name: str) -> "Part":
        match = re.fullmatch(r"point(\d+)_runs(\d+)-(\d+)", name)
        if match is None:
            raise ValueError(f"part must look like 'point3_runs11-20', got {name!r}")
        point, first, last = (int(g) for g in match.groups())
        return cls(point, first - 1, last)


def parts(experiment: Experiment, family: str, runs_per_job: int | None) -> tuple[Part, ...]:
    """How a scale splits one family's estimate job: () for one job over every point and run (``runs_per_job`` None,
    a closed form, or points of matrix mechanisms, whose runs are batched in one call), else one part per point and
    block of at most ``runs_per_job`` runs. Only the iterative families on points with RAPPOR or protocol members
    split: they go run by run, so a part's estimates are those of the whole job's, bit for bit; a family that cannot
    run on the points (its NA) stays one job. A family that estimates each round from the earlier ones too
    (``Family.rounds``) splits between runs only: a block holds whole runs, every round of each (at least one run,
    ``runs_per_job`` rounded up to whole runs of ``experiment.rounds`` stored runs)."""
    if runs_per_job is None or family not in ITERATIVE:
        return ()
    kinds = [[experiment.members[j].kind for j in p.mechanisms] for p in experiment.points]
    if not all(any(kind in RUN_BY_RUN_KINDS for kind in by_point) for by_point in kinds):
        return ()
    if any(refused(family, by_point) for by_point in kinds):
        return ()
    if FAMILIES[family].rounds is not None:
        runs_per_job = -(-runs_per_job // experiment.rounds) * experiment.rounds
    return tuple(Part(p, first, min(first + runs_per_job, experiment.slots))
                 for p in range(len(experiment.points)) for first in range(0, experiment.slots, runs_per_job))


def estimate_part(experiment: Experiment, family: str, built: Sequence[Mechanism], reports: Mapping[str, np.ndarray],
                  stopping: Mapping, part: Part, progress: Progress | None = None) -> dict[str, np.ndarray]:
    """``estimate`` on one part (one point, a block of its runs): the same estimates of those runs, in an archive of
    one point, with ``point`` and ``runs`` (the block's run indices)."""
    point = experiment.points[part.point]
    mechanisms = [built[j] for j in point.mechanisms]
    point_reports = reports_from_arrays(reports, [[built[j] for j in p.mechanisms] for p in experiment.points])
    runs = list(range(part.first, part.stop))
    result = _estimate_point(family, mechanisms, [point_reports[part.point][r] for r in runs], stopping, progress,
                             f"point {experiment.axis}={point.value:g}", first_run=part.first,
                             all_runs=experiment.slots, rounds=experiment.rounds)
    return {**_archive(family, reports["points"][[part.point]], [result]), "point": np.int64(part.point),
            "runs": np.array(runs, dtype=np.int64)}


def gather(experiment: Experiment, family: str, archives: Sequence[Mapping[str, np.ndarray]]
           ) -> dict[str, np.ndarray]:
    """The estimates archive of the whole job from its parts' archives (any order), as ``estimate`` writes it: a
    point where a part could not run is NA in every run, with the first such part's note (as one job stops there)."""
    by_point: dict[int, list[Mapping[str, np.ndarray]]] = {}
    for archive in archives:
        by_point.setdefault(int(archive["point"]), []).append(archive)
    points = len(experiment.points)
    missing = sorted(set(range(points)) - set(by_point))
    if missing:
        raise ValueError(f"estimate parts: no part for points {missing} of experiment {experiment.name}")
    methods = FAMILIES[family].methods
    results, values = [], []
    for p in range(points):
        blocks = sorted(by_point[p], key=lambda a: int(a["runs"][0]))
        runs = np.concatenate([b["runs"] for b in blocks])
        if not np.array_equal(runs, np.arange(experiment.slots)):
            raise ValueError(f"estimate parts: point {p} of experiment {experiment.name} has runs {runs.tolist()}, "
                             f"not 0..{experiment.slots - 1} once each")
        values.append(blocks[0]["points"][0])
        notes = [str(b["notes"][0]) for b in blocks if str(b["notes"][0])]
        estimates = {m: [Estimate(b["theta"][i, 0, r], int(b["iterations"][i, 0, r]), bool(b["capped"][i, 0, r]))
                         for b in blocks for r in range(b["runs"].size)] for i, m in enumerate(methods)}
        if notes:
            nan = Estimate(np.full(blocks[0]["theta"].shape[-1], np.nan))
            estimates = {m: [nan] * experiment.slots for m in methods}
        results.append(FamilyResult(estimates, notes[0] if notes else ""))
    return _archive(family, np.array(values, dtype=np.float64), results)


def _estimate_point(family: str, mechanisms: Sequence[Mechanism], reports: Sequence[Sequence[Reports]],
                    stopping: Mapping, progress: Progress | None, label: str, first_run: int = 0,
                    all_runs: int | None = None, rounds: int | None = None) -> FamilyResult:
    """``estimate_family`` on one point, in units of work: every run at once for matrix mechanisms, else run by run
    (the same estimates: those families go run by run), every round of a run at once for a family of rounds
    (``Family.rounds``; ``rounds`` the experiment's). A run that cannot run makes the whole point NA, as one call
    over every run would. ``first_run`` and ``all_runs``: where the runs given lie among the point's (for the log)."""
    runs = len(reports)
    all_runs = runs if all_runs is None else all_runs
    batched = not any(isinstance(m, Rappor | Protocol) for m in mechanisms)
    step = runs if batched else rounds if FAMILIES[family].rounds is not None and rounds else 1
    parts = []
    for chunk in [range(run, min(run + step, runs)) for run in range(0, runs, step)]:
        which = (f"runs {first_run + chunk[0] + 1}-{first_run + chunk[-1] + 1}/{all_runs}" if len(chunk) > 1
                 else f"run {first_run + chunk[0] + 1}/{all_runs}")
        with progress.unit(f"{label} {which}", len(chunk)) if progress else contextlib.nullcontext([]) as details:
            part = estimate_family(family, mechanisms, [reports[run] for run in chunk], stopping, rounds)
            iterations = [max(by_run[i].iterations for by_run in part.estimates.values()) for i in range(len(chunk))]
            if max(iterations) > 0:
                details.append(f"{iterations[0]} iterations" if len(chunk) == 1
                               else f"{np.mean(iterations):.0f} iterations on average, at most {max(iterations)}")
        if part.note:
            return part if len(chunk) == runs else FamilyResult(
                {m: by_run[:1] * runs for m, by_run in part.estimates.items()}, part.note)
        parts.append(part)
    return FamilyResult({m: [e for part in parts for e in part.estimates[m]] for m in parts[0].estimates})
