"""The names the config and the scripts use for alphabets, mechanisms and estimator families, mapped to the library."""

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from privest import estimators
from privest.rappor import RapporReports


@dataclass(frozen=True)
class Estimate:
    """One method's estimate from one run, with how IBU stopped (iterations 0 and capped False for closed forms)."""

    theta: np.ndarray
    iterations: int = 0
    capped: bool = False


def _inv_family(A: np.ndarray, counts: np.ndarray, _stopping: dict) -> dict[str, list[Estimate]]:
    raw = estimators.inv_runs(A, counts)
    return {"INV-N": [Estimate(estimators.normalise(v)) for v in raw],
            "INV-P": [Estimate(estimators.project_simplex(v)) for v in raw]}


def _ibu_family(A: np.ndarray, counts: np.ndarray, stopping: dict) -> dict[str, list[Estimate]]:
    results = estimators.ibu_runs(A, counts, **stopping)
    return {"IBU": [Estimate(r.theta, r.iterations, r.capped) for r in results]}


FAMILIES: dict[str, Callable[[np.ndarray, np.ndarray, dict], dict[str, list[Estimate]]]] = {
    "inv": _inv_family,
    "ibu": _ibu_family,
}


def estimate_family(family: str, A: np.ndarray, counts: np.ndarray, stopping: dict) -> dict[str, list[Estimate]]:
    """Every method of one estimator family on the report counts (runs, m) of one mechanism, per run: 'inv' gives
    INV-N and INV-P from one solve, 'ibu' gives IBU (batched over runs) with the stopping rule {'delta', 'max_iter'}."""
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {', '.join(FAMILIES)}, got {family!r}")
    return FAMILIES[family](A, np.atleast_2d(counts), stopping)


def _rap_family(reports: list[RapporReports], _stopping: dict) -> dict[str, list[Estimate]]:
    """RAPPOR's own estimator RAP (free-will eqs. 13-14, one eps) from the bit sums, then normalised (INV-N) or
    projected (INV-P): the names the IBU paper's Figure 12 gives them."""
    return {"INV-N": [Estimate(estimators.rap_grouped([r], "normalization")) for r in reports],
            "INV-P": [Estimate(estimators.rap_grouped([r], "projection")) for r in reports]}


def _rappor_ibu_family(reports: list[RapporReports], stopping: dict) -> dict[str, list[Estimate]]:
    """IBU on RAPPOR reports: GIBU (free-will Algorithm 1) on the one group of each run's distinct bit vectors."""
    results = [estimators.gibu([estimators.rappor_group(r)], **stopping) for r in reports]
    return {"IBU": [Estimate(r.theta, r.iterations, r.capped) for r in results]}


RAPPOR_FAMILIES: dict[str, Callable[[list[RapporReports], dict], dict[str, list[Estimate]]]] = {
    "rap": _rap_family,
    "ibu": _rappor_ibu_family,
}


def estimate_rappor_family(family: str, reports: list[RapporReports], stopping: dict) -> dict[str, list[Estimate]]:
    """Every method of one estimator family on the RAPPOR reports of each run: 'rap' gives INV-N and INV-P (RAP
    normalised or projected), 'ibu' gives IBU (GIBU on the grouped reports) with the stopping rule."""
    if family not in RAPPOR_FAMILIES:
        raise ValueError(f"family must be one of {', '.join(RAPPOR_FAMILIES)} for RAPPOR reports, got {family!r}")
    return RAPPOR_FAMILIES[family](reports, stopping)


def stack_estimates(points: list[dict[str, list[Estimate]]]) -> dict[str, np.ndarray]:
    """The estimates of one family at every eps point (each a dict method -> one Estimate per run) as the arrays of
    an estimates archive: methods (M,), theta (M, points, runs, k), iterations and capped (M, points, runs)."""
    methods = list(points[0])

    def stack(field: str) -> np.ndarray:
        return np.array([[[getattr(e, field) for e in point[m]] for point in points] for m in methods])

    return {"methods": np.array(methods), "theta": stack("theta"), "iterations": stack("iterations"),
            "capped": stack("capped")}


def _rappor_prefix(point: int, run: int) -> str:
    return f"eps{point}_run{run}_"


def rappor_arrays(reports: list[list[RapporReports]]) -> dict[str, np.ndarray]:
    """The RAPPOR reports of every (eps point, run) as arrays for a reports archive (RapporReports.to_arrays)."""
    return {name: array for point, by_run in enumerate(reports) for run, r in enumerate(by_run)
            for name, array in r.to_arrays(_rappor_prefix(point, run)).items()}


def rappor_runs(arrays: dict[str, np.ndarray], point: int, runs: int) -> list[RapporReports]:
    """The RAPPOR reports of every run at one eps point, from the arrays of a reports archive."""
    return [RapporReports.from_arrays(arrays, _rappor_prefix(point, run)) for run in range(runs)]


def synthetic_theta(spec: dict) -> np.ndarray:
    """A synthetic theta on {0..k-1} from its config spec: {'k', 'binomial_p'} is Binomial(k-1, p); {'k',
    'uniform': [a, b]} is uniform on {a..b} and 0 elsewhere (IBU paper section 7.5)."""
    k = int(spec["k"])
    if "binomial_p" in spec:
        p = float(spec["binomial_p"])
        theta = np.array([math.comb(k - 1, x) * p**x * (1 - p) ** (k - 1 - x) for x in range(k)])
    elif "uniform" in spec:
        low, high = map(int, spec["uniform"])
        if not 0 <= low <= high < k:
            raise ValueError(f"uniform must be [a, b] with 0 <= a <= b < k = {k}, got {spec['uniform']}")
        theta = ((np.arange(k) >= low) & (np.arange(k) <= high)).astype(np.float64)
    else:
        raise ValueError(f"a synthetic theta needs binomial_p or uniform, got keys {sorted(spec)}")
    return theta / theta.sum()


def synthetic_label(spec: dict) -> str:
    """How figures name a synthetic theta: 'Binomial(9, 0.5)' or 'uniform on {3..6}'."""
    if "binomial_p" in spec:
        return f"Binomial({int(spec['k']) - 1}, {float(spec['binomial_p']):g})"
    low, high = map(int, spec["uniform"])
    return f"uniform on {{{low}..{high}}}"


def estimate_experiment(family: str, mechanisms: dict[str, np.ndarray], reports: dict[str, np.ndarray],
                        stopping: dict, runs: int) -> dict[str, np.ndarray]:
    """One estimator family on every eps and run of an experiment, stacked for an npz: ``reports`` holds the report
    counts of a matrix mechanism per (eps, run) or the grouped RAPPOR reports (then ``mechanisms`` is unused)."""
    if "counts" in reports:
        points = [estimate_family(family, A, c, stopping)
                  for A, c in zip(mechanisms["A"], reports["counts"], strict=True)]
    else:
        points = [estimate_rappor_family(family, rappor_runs(reports, i, runs), stopping)
                  for i in range(reports["eps"].size)]
    return stack_estimates(points)
