"""Linear programs on HiGHS, in memory: the one LP front end of privest (Shokri's mechanism, the count paper's LPs).

A ``LinearProgram`` is a live HiGHS model (through ``highspy``, HiGHS's own Python interface): variables with costs
and bounds, rows added in batches as sparse triplets, solved by the simplex method in full double precision. Rows
added after a solve extend the optimal basis (the new rows enter basic), so the next ``solve`` continues from it with
the dual simplex instead of starting again: the lazily added (y, z) rows of Shokri's LP cost a few hundred iterations
a round, not a new LP.

Degenerate LPs have many optimal vertices, and which one comes back depends on the solver, its version and its
options. Every ``Solution`` carries ``solver_description()``: HiGHS's version and git hash, the highspy version and
how it was run; everything is single-threaded and deterministic (the same model gives the same bytes on every run).

Why not ``scipy.optimize.linprog(method="highs")``: it solves from scratch each call (no rows added to a live model,
no kept basis), and scipy bundles its own HiGHS build, whose version it does not report.

>>> lp = LinearProgram([1.0, 2.0])                     # minimise x0 + 2 x1 over x >= 0
>>> lp.add_rows([0, 0], [0, 1], [1.0, 1.0], lower=3.0)  # subject to x0 + x1 >= 3
>>> lp.solve().x.tolist()
[3.0, 0.0]
"""

import functools
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from privest._checks import as_array, check_choice, check_finite, check_integers

__all__ = ["LPError", "LinearProgram", "Solution", "solve", "solver_description"]

SIMPLEX = {"dual": 1, "primal": 4}
"""HiGHS's simplex_strategy values for the two simplex methods (serial, deterministic)."""


class LPError(RuntimeError):
    """The linear program has no optimal solution (infeasible, unbounded or not solved)."""


@dataclass(frozen=True)
class Solution:
    """An optimal solution. x: the variables' values, shape (n,), float64 as HiGHS computed them. objective: the
    objective's value at x. iterations: simplex iterations of this solve. seconds: the solve's wall-clock time.
    solver: ``solver_description()`` of the solve."""

    x: np.ndarray
    objective: float
    iterations: int
    seconds: float
    solver: str


@functools.cache
def _version() -> str:
    import importlib.metadata  # here: importlib.metadata loads email and zipfile; only the LP records versions

    import highspy  # here: importing privest does not load the solver

    h = highspy.Highs()
    return f"HiGHS {h.version()} (git {h.githash()}) through highspy {importlib.metadata.version('highspy')}"


def solver_description(method: str = "dual") -> str:
    """The solver as recorded beside every solution, e.g. 'HiGHS 1.15.1 (git 04024d7) through highspy 1.15.1; dual
    simplex, serial'. method: 'dual' or 'primal' (the simplex method of a first solve), or any text of the caller's
    describing how it drove the solver."""
    how = f"{method} simplex, serial" if method in SIMPLEX else method
    return f"{_version()}; {how}"


class LinearProgram:
    """A linear program  minimise (or maximise) c x  subject to  lower_r <= R x <= upper_r,  lower <= x <= upper,
    held in memory by HiGHS.

    cost: c, shape (n,). lower, upper: the variables' bounds (scalars or shape (n,); default x >= 0, use -inf and
    inf for free variables). sense: 'min' or 'max'. name: used in error messages. msg: show HiGHS's log.
    Rows are added with ``add_rows``; ``solve`` may be called again after more rows were added: it starts from the
    last optimal basis.
    """

    def __init__(self, cost: Sequence[float], lower=0.0, upper=np.inf, *, sense: str = "min", name: str = "LP",
                 msg: bool = False):
        import highspy  # here: importing privest does not load the solver

        c = np.ascontiguousarray(check_finite(cost, "cost"))
        if c.ndim != 1:
            raise ValueError(f"cost must be a 1-D array of finite numbers, got shape {c.shape}")
        check_choice(sense, "sense", ("min", "max"))
        n = c.size
        lo, hi = (_bounds(bound, name, n) for bound, name in ((lower, "lower"), (upper, "upper")))
        if np.any(lo > hi) or np.isnan(lo).any() or np.isnan(hi).any():
            raise ValueError("lower and upper must be numbers with lower <= upper")
        self._highspy = highspy
        self.name = name
        self.n = n
        self.rows = 0
        self.solves = 0
        h = highspy.Highs()
        inf = h.getInfinity()
        for option, value in (("output_flag", bool(msg)), ("log_to_console", bool(msg)), ("solver", "simplex"),
                              ("simplex_strategy", SIMPLEX["dual"]), ("random_seed", 0)):
            h.setOptionValue(option, value)
        h.addVars(n, np.clip(lo, -inf, inf), np.clip(hi, -inf, inf))
        h.changeColsCost(n, np.arange(n, dtype=np.int32), c)
        h.changeObjectiveSense(highspy.ObjSense.kMaximize if sense == "max" else highspy.ObjSense.kMinimize)
        self._h = h
        self._inf = inf

    def add_rows(self, rows, columns, values, lower=-np.inf, upper=np.inf) -> None:
        """Append rows given as triplets: row ``rows[t]`` (0, 1, ... within this batch) has ``values[t]`` on variable
        ``columns[t]``. lower, upper: the rows' bounds (scalars or one per row; equal for an equality). The batch has
        max(rows) + 1 rows; a row without triplets is 0 between its bounds."""
        r = check_integers(rows, "rows", 0, None).ravel()
        j = check_integers(columns, "columns", 0, self.n).ravel()
        v = as_array(values, "values").ravel()
        if not r.size == j.size == v.size:
            raise ValueError(f"rows, columns and values must have one length, got {r.size}, {j.size}, {v.size}")
        if r.size and (r.min() < 0 or j.min() < 0 or j.max() >= self.n):
            raise ValueError(f"rows must be >= 0 and columns in 0..{self.n - 1}")
        if not np.all(np.isfinite(v)):
            raise ValueError("values must be finite")
        m = int(r.max()) + 1 if r.size else np.size(lower)
        lo, hi = (_bounds(bound, name, m) for bound, name in ((lower, "lower"), (upper, "upper")))
        if np.any(lo > hi):
            raise ValueError("lower and upper must be numbers with lower <= upper")
        order = np.lexsort((j, r))
        starts = np.searchsorted(r[order], np.arange(m)).astype(np.int32)
        status = self._h.addRows(m, np.clip(lo, -self._inf, self._inf), np.clip(hi, -self._inf, self._inf), r.size,
                                 starts, j[order].astype(np.int32), v[order])
        if status == self._highspy.HighsStatus.kError:
            raise ValueError(f"HiGHS rejected the rows added to {self.name} (duplicate entries in a row?)")
        self.rows += m

    def solve(self, method: str = "dual") -> Solution:
        """Solve from the last optimal basis (from scratch the first time) with the dual or the primal simplex.
        Raises LPError unless HiGHS reports an optimal solution."""
        check_choice(method, "method", tuple(SIMPLEX))
        h, status = self._h, self._highspy.HighsModelStatus
        h.setOptionValue("simplex_strategy", SIMPLEX[method])
        started = time.perf_counter()
        h.run()
        seconds = time.perf_counter() - started
        self.solves += 1
        model_status = h.getModelStatus()
        if model_status != status.kOptimal:
            what = {status.kInfeasible: "infeasible", status.kUnbounded: "unbounded",
                    status.kUnboundedOrInfeasible: "unbounded or infeasible"}.get(model_status, "not solved")
            raise LPError(f"the LP {self.name!r} is {what}: HiGHS model status {h.modelStatusToString(model_status)!r}"
                          f" ({solver_description(method)})")
        info = h.getInfo()
        return Solution(x=np.array(h.getSolution().col_value, dtype=np.float64),
                        objective=float(info.objective_function_value), iterations=int(info.simplex_iteration_count),
                        seconds=seconds, solver=solver_description(method))


def _bounds(bound, name: str, size: int) -> np.ndarray:
    """A bound (one number or one per variable or row) as a float64 array of ``size``, never NaN."""
    array = as_array(bound, name)
    if np.isnan(array).any():
        raise ValueError(f"{name} must be numbers (-inf and inf allowed), not NaN")
    if array.ndim > 1 or array.size not in (1, size):
        raise ValueError(f"{name} must be one number or {size} of them, got shape {array.shape}")
    return np.broadcast_to(array.reshape(-1) if array.ndim else array, (size,)).copy()


def solve(cost, rows, columns, values, lower_rows, upper_rows, lower=0.0, upper=np.inf, *, sense: str = "min",
          name: str = "LP", method: str = "dual") -> Solution:
    """One LP in one call: ``LinearProgram(cost, lower, upper, sense=sense, name=name)``, its rows from the triplets
    (rows, columns, values) between lower_rows and upper_rows, solved with ``method``."""
    for bound, bound_name in ((lower_rows, "lower_rows"), (upper_rows, "upper_rows")):
        if np.isnan(as_array(bound, bound_name)).any():
            raise ValueError(f"{bound_name} must be numbers (-inf and inf allowed), not NaN")
    lp = LinearProgram(cost, lower, upper, sense=sense, name=name)
    lp.add_rows(rows, columns, values, lower_rows, upper_rows)
    return lp.solve(method)
