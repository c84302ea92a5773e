"""One estimator family on every point and run of an experiment (rule estimate), in units of work that a job's log
follows.

Storage (npz): ``methods`` (F,), ``points`` (P,), ``theta`` (F, P, R, k), ``iterations`` and ``capped`` (F, P, R),
``notes`` (P,): why the family could not run at a point ('' where it ran).
"""

import contextlib
from collections.abc import Mapping, Sequence

import numpy as np

from privest.protocols import Protocol
from privest.sampling import Mechanism, Rappor, Reports
from privest_studies.experiment.families import FAMILIES, FamilyResult, estimate_family
from privest_studies.experiment.reports import reports_from_arrays
from privest_studies.experiment.spec import Experiment
from privest_studies.jobs import Progress

__all__ = ["estimate"]


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
