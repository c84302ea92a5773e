"""The names the config and the scripts use for alphabets, mechanisms and estimator families, mapped to the library."""

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from privest import estimators, mechanisms
from privest.grids import Grid, linear_distances
from privest.metrics import emd, emd_1d


@dataclass(frozen=True)
class Alphabet:
    """The secrets of a study: the linear range {0..k-1} (grid None) or the cells of a planar grid."""

    k: int
    grid: Grid | None = None

    @classmethod
    def from_dict(cls, spec: dict) -> "Alphabet":
        """From {'kind': 'linear', 'k': k} or {'kind': 'planar', 'columns', 'rows', 'cell_km'}."""
        if spec.get("kind") == "linear":
            return cls(int(spec["k"]))
        if spec.get("kind") == "planar":
            grid = Grid(int(spec["columns"]), int(spec["rows"]), float(spec["cell_km"]))
            return cls(grid.k, grid)
        raise ValueError(f"alphabet kind must be 'linear' or 'planar', got {spec.get('kind')!r}")

    def distances(self) -> np.ndarray:
        return linear_distances(self.k) if self.grid is None else self.grid.distances()

    def emd(self, p: np.ndarray, q: np.ndarray) -> float:
        """EMD with this alphabet's ground distance: the 1-D closed form on the linear range, POT on a grid."""
        return emd_1d(p, q) if self.grid is None else emd(p, q, self.distances())


LINEAR = {"geometric": mechanisms.geometric, "laplace": mechanisms.laplace}
PLANAR = {"geometric": mechanisms.planar_geometric, "laplace": mechanisms.planar_laplace}


def mechanism(kind: str, alphabet: Alphabet, eps: float) -> np.ndarray:
    """The matrix of the mechanism named ``kind`` on ``alphabet`` (geometric and laplace are linear or planar by the
    alphabet; krr and exponential work on either)."""
    if kind == "krr":
        return mechanisms.krr(alphabet.k, eps)
    if kind == "exponential":
        return mechanisms.exponential(alphabet.distances(), eps)
    table = LINEAR if alphabet.grid is None else PLANAR
    if kind not in table:
        raise ValueError(f"mechanism must be one of krr, exponential, {', '.join(table)}, got {kind!r}")
    return table[kind](alphabet.k if alphabet.grid is None else alphabet.grid, eps)


@dataclass(frozen=True)
class Estimate:
    """One method's estimate from one run, with how IBU stopped (iterations 0 and capped False for closed forms)."""

    theta: np.ndarray
    iterations: int = 0
    capped: bool = False


def _inv_family(A: np.ndarray, counts: np.ndarray, _stopping: dict) -> dict[str, list[Estimate]]:
    raw = [estimators.inv(A, c) for c in counts]
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
