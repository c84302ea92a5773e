"""The count-data paper (Constrained differential privacy for count data): mechanisms for one count query.

A group of n users each holds a private bit; the input is their count i in 0..n and the mechanism reports a count j
in 0..n. **Convention (the paper's, kept inside this module only):** ``P[j, i] = P(output j | input i)``, so P has
shape (n + 1, n + 1) and is *column*-stochastic. The rest of privest uses row-stochastic ``A[x, z]``: convert at
the boundary with ``P.T`` (``as_row_stochastic``). ``alpha = e^-eps`` lies in (0, 1]; alpha near 1 is strong privacy.

What the paper's extraction lost is rebuilt in decisions.md, section 7:

- BasicDP (eqs. 4-6): columns are distributions and ``alpha P[j, i+1] <= P[j, i] <= P[j, i+1] / alpha``.
- Objectives (Definition 3, eq. 1): ``L_p = sum_i w_i sum_j P[j, i] |i - j|^p``; L0 (p = 0, the probability of a
  wrong answer) is rescaled by (n + 1)/n so that UM scores 1; ``L0,d`` is the same with only the mass more than d
  away from the input, so that ``L0,0 = L0``.
- The seven properties (eqs. 7-14): RH, RM (rows), CH, CM (columns), F, WH (diagonal) and S (symmetry).
- GM (Definition 4, Figure 3), UM (Definition 5), EM (eq. 16 with y from eq. 15) in closed form; any combination of
  properties as a linear program (Theorem 2), solved with HiGHS (``privest.lp``); WM = the L0 optimum under WH + RM
  (+ S, free by Theorem 1) as the paper's figures build it, and WM (CM) with CM added as its section V-A says
  (decisions.md, section 7).
"""

import math
import re
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from privest import lp
from privest._checks import (
    as_array,
    check_alpha,
    check_count_mechanism,
    check_count_pair,
    check_group_size,
    check_int,
    check_integers,
    check_non_negative,
    check_non_negative_array,
    check_property_names,
    check_rng,
    check_text,
    describe,
)
from privest.lp import LPError
from privest.sampling import sample

__all__ = [
    "COMBINATIONS",
    "FIGURE6_CLAIMS",
    "MECHANISMS",
    "PROPERTIES",
    "SOLVER",
    "LPError",
    "as_row_stochastic",
    "by_name",
    "em",
    "em_diagonal",
    "em_exponents",
    "flowchart",
    "gm",
    "gm_score",
    "gm_weak_honesty_threshold",
    "group_counts",
    "loss",
    "mechanism_key",
    "optimal",
    "properties",
    "rmse",
    "sample_outputs",
    "solver_description",
    "tail_mass",
    "um",
    "verdict",
    "wm",
    "wm_cm",
    "wrong_fraction",
]

PROPERTIES = ("RH", "RM", "CH", "CM", "F", "WH", "S")
"""The seven structural properties of section IV-A, in the paper's order."""

COMBINATIONS = ((), ("RH",), ("RM",), ("CH",), ("CM",), ("RH", "CH"), ("RH", "CM"), ("RM", "CH"), ("RM", "CM"))
"""Section V-A, Figure 8: the nine meaningful row/column combinations, each asked for together with WH."""

FIGURE6_CLAIMS = {
    "GM": {"S": "Y", "RM": "Y", "CM": "—", "F": "N", "WH": "—"},
    "WM": {"S": "Y", "RM": "Y", "CM": "—", "F": "N", "WH": "Y"},
    "EM": {"S": "Y", "RM": "Y", "CM": "Y", "F": "Y", "WH": "Y"},
    "UM": {"S": "Y", "RM": "Y", "CM": "Y", "F": "Y", "WH": "Y"},
}
"""The paper's Figure 6 as printed (Y: always, N: never, —: depends on n and alpha). Only for comparison: our table
is computed by ``properties`` on the matrices."""

SOLVER = "highs"
"""The LP solver, pinned: HiGHS in memory (``privest.lp``). The L1 and L2 programs are degenerate (many optimal
mechanisms) and which vertex comes back depends on the solver, its version and its method; the serial dual simplex
returns the same vertex on every run, and ``solver_description()`` records the version beside the results."""

SIMPLEX = "dual"
"""HiGHS's simplex method for the count LPs."""

_OBJECTIVE = re.compile(r"^L(?P<p>[012])(?:,(?P<d>\d+))?$")


# --- validation -------------------------------------------------------------------------------------------------------


def _weights(n: int, weights: Sequence[float] | None) -> np.ndarray:
    """The input weights w_i (Definition 3), normalised to sum to 1; uniform when None."""
    if weights is None:
        return np.full(n + 1, 1.0 / (n + 1))
    w = check_non_negative_array(weights, "weights", shape=(n + 1,), positive_sum=True)
    return w / w.sum()


def _cost(n: int, objective: str) -> np.ndarray:
    """c[j, i] with loss = sum_i w_i sum_j c[j, i] P[j, i] (eq. 1): |i-j|^p, or the rescaled indicator of |i-j| > d."""
    match = _OBJECTIVE.match(check_text(objective, "objective").replace(" ", ""))
    if match is None or (match["d"] is not None and match["p"] != "0"):
        raise ValueError(f"objective must be L0, L1, L2 or L0,d (d an integer >= 0, e.g. 'L0,1'), got {objective!r}")
    distance = np.abs(np.subtract.outer(np.arange(n + 1), np.arange(n + 1))).astype(np.float64)
    if match["p"] != "0":
        return distance ** int(match["p"])
    d = int(match["d"] or 0)
    return (distance > d) * ((n + 1) / n)


def as_row_stochastic(P: np.ndarray) -> np.ndarray:
    """The same mechanism in privest's convention A[x, z] = P(z | x) (decisions.md, section 1): the transpose."""
    return np.ascontiguousarray(check_count_mechanism(P, column_stochastic=True).T)


# --- the explicit mechanisms ------------------------------------------------------------------------------------------


def gm(n: int, alpha: float) -> np.ndarray:
    """The range-restricted geometric mechanism (Definition 4, Figure 3).

    ``P[j, i] = (1-alpha)/(1+alpha) alpha^|i-j|`` for 0 < j < n and ``alpha^|i-j| / (1+alpha)`` for j in {0, n}:
    two-sided geometric noise, with everything below 0 or above n reported as 0 or n.
    """
    n, alpha = check_group_size(n), check_alpha(alpha)
    j = np.arange(n + 1)
    P = alpha ** np.abs(np.subtract.outer(j, j)).astype(np.float64) / (1 + alpha)
    P[1:n] *= 1 - alpha
    return P


def um(n: int) -> np.ndarray:
    """The uniform mechanism (Definition 5): every output with probability 1/(n+1), whatever the input."""
    n = check_group_size(n)
    return np.full((n + 1, n + 1), 1.0 / (n + 1))


def em_exponents(n: int) -> np.ndarray:
    """The powers of alpha in EM (eq. 16, decisions.md, section 7): ``e(j, i) = |i-j|`` if ``|i-j| <= m_i``, else
    ``ceil((|i-j| + m_i) / 2)``, with m_i = min(i, n-i). Every column holds the same multiset of exponents as the
    middle column floor(n/2)."""
    n = check_group_size(n)
    i = np.arange(n + 1)
    gap = np.abs(np.subtract.outer(i, i))  # gap[j, i] = |i - j|
    m = np.minimum(i, n - i)[None, :]
    return np.where(gap <= m, gap, (gap + m + 1) // 2)


def em_diagonal(n: int, alpha: float) -> float:
    """y of eq. (15): 1 / sum_j alpha^e(j, floor(n/2)), the largest diagonal a fair mechanism can have (Lemma 4)."""
    n, alpha = check_group_size(n), check_alpha(alpha)
    return float(1.0 / np.sum(alpha ** em_exponents(n)[:, n // 2].astype(np.float64)))


def em(n: int, alpha: float) -> np.ndarray:
    """The explicit fair mechanism (eq. 16, Figure 4): P[j, i] = y alpha^e(j, i), y from eq. (15)."""
    n, alpha = check_group_size(n), check_alpha(alpha)
    return em_diagonal(n, alpha) * alpha ** em_exponents(n).astype(np.float64)


def gm_score(alpha: float) -> float:
    """GM's L0 score 2 alpha / (1 + alpha), the same for every n (section IV-B)."""
    alpha = check_alpha(alpha)
    return 2 * alpha / (1 + alpha)


def gm_weak_honesty_threshold(alpha: float) -> float:
    """Lemma 2: GM is weakly honest iff n >= 2 alpha / (1 - alpha) (infinite at alpha = 1)."""
    alpha = check_alpha(alpha)
    return math.inf if alpha == 1 else 2 * alpha / (1 - alpha)


# --- objectives and properties ----------------------------------------------------------------------------------------


def tail_mass(P: np.ndarray, d: int = 0) -> np.ndarray:
    """Per input i, the probability of an output more than d away: ``sum_{|j-i| > d} P[j, i]``, shape (n+1,)."""
    P = check_count_mechanism(P, column_stochastic=True)
    d = check_int(d, "d", minimum=0)
    n = P.shape[0] - 1
    far = np.abs(np.subtract.outer(np.arange(n + 1), np.arange(n + 1))) > d
    return (P * far).sum(axis=0)


def loss(P: np.ndarray, objective: str = "L0", weights: Sequence[float] | None = None) -> float:
    """The objective function value of Definition 3 / eq. (1): 'L0' (rescaled by (n+1)/n, UM scores 1), 'L1', 'L2'
    or 'L0,d' (the rescaled mass more than d away). weights: a prior over the inputs 0..n (uniform when None)."""
    P = check_count_mechanism(P, column_stochastic=True)
    n = P.shape[0] - 1
    return float(_weights(n, weights) @ (_cost(n, objective) * P).sum(axis=0))


def properties(P: np.ndarray, alpha: float, tol: float = 1e-9) -> dict[str, bool]:
    """Which of BasicDP and the seven properties (eqs. 4-14) the mechanism P[j, i] has, each inequality allowed to
    fail by at most tol (probabilities; use about 1e-7 for LP solutions).

    BasicDP: columns are distributions and alpha P[j, i+1] <= P[j, i] <= P[j, i+1] / alpha. RH: P[i, i] >= P[i, k].
    RM: each row falls moving away from its diagonal entry. CH: P[i, i] >= P[j, i]. CM: each column falls moving away
    from its diagonal entry. F: the diagonal is constant. WH: P[i, i] >= 1/(n+1). S: P[j, i] = P[n-j, n-i].
    """
    P = check_count_mechanism(P)
    alpha = check_alpha(alpha)
    tol = check_non_negative(tol, "tol")
    n = P.shape[0] - 1
    diagonal = np.diag(P)
    # Moving along row i from column k to k+1 goes towards the diagonal when k < i (the entry must not fall) and away
    # from it when k >= i (the entry must not rise); the same down the columns.
    row, step = np.indices((n + 1, n)), np.diff(P, axis=1)  # step[i, k] = P[i, k+1] - P[i, k]
    row_monotone = np.all(np.where(row[1] < row[0], step >= -tol, step <= tol))
    column, column_step = np.indices((n, n + 1)), np.diff(P, axis=0)  # column_step[j, i] = P[j+1, i] - P[j, i]
    column_monotone = np.all(np.where(column[0] < column[1], column_step >= -tol, column_step <= tol))
    private = np.all(alpha * P[:, 1:] <= P[:, :-1] + tol) and np.all(alpha * P[:, :-1] <= P[:, 1:] + tol)
    return {
        "BasicDP": bool(np.all(P >= -tol) and np.allclose(P.sum(axis=0), 1, rtol=0, atol=tol) and private),
        "RH": bool(np.all(P <= diagonal[:, None] + tol)),
        "RM": bool(row_monotone),
        "CH": bool(np.all(P <= diagonal[None, :] + tol)),
        "CM": bool(column_monotone),
        "F": bool(np.ptp(diagonal) <= tol),
        "WH": bool(np.all(diagonal >= 1 / (n + 1) - tol)),
        "S": bool(np.allclose(P, P[::-1, ::-1], rtol=0, atol=tol)),
    }


# --- the linear program -----------------------------------------------------------------------------------------------


def solver_description() -> str:
    """The LP solver as recorded beside results, e.g. 'HiGHS 1.15.1 (git 04024d7) through highspy 1.15.1; dual
    simplex, serial' (``privest.lp.solver_description``)."""
    return lp.solver_description(SIMPLEX)


def optimal(n: int, alpha: float, objective: str = "L0", properties: Iterable[str] = (),
            weights: Sequence[float] | None = None) -> np.ndarray:
    """The mechanism minimising an objective over BasicDP plus the given properties (sections III and IV, Theorem 2).

    objective: 'L0', 'L1', 'L2' or 'L0,d' (see ``loss``); properties: any subset of PROPERTIES; weights: the prior
    over the inputs 0..n of eq. (1) (uniform when None). Returns P[j, i] of shape (n+1, n+1). HiGHS solves in double
    precision, within its feasibility tolerance (1e-7): entries below 0 are set to 0 and the columns rescaled to sum
    to 1 (check LP solutions with ``properties(..., tol=1e-7)``). Raises LPError when the LP is not solved to
    optimality.
    The variables are the (n+1)^2 entries, P[j, i] at j (n+1) + i; every property is a set of linear constraints
    written from its definition.
    """
    n, alpha = check_group_size(n), check_alpha(alpha)
    names = check_property_names(properties, PROPERTIES)
    cost = _weights(n, weights)[None, :] * _cost(n, objective)
    N = n + 1
    rows, columns, values, lower, upper = [], [], [], [], []

    def add(terms: Mapping[tuple[int, int], float], low: float = -np.inf, high: float = 0.0) -> None:
        """One row low <= sum terms[(j, i)] P[j, i] <= high."""
        for (j, i), value in terms.items():
            rows.append(len(lower))
            columns.append(j * N + i)
            values.append(value)
        lower.append(low)
        upper.append(high)

    for i in range(N):  # eqs. (4)-(5): every column is a distribution
        add({(j, i): 1.0 for j in range(N)}, 1.0, 1.0)
    for j in range(N):  # eq. (6): neighbouring inputs, same output
        for i in range(n):
            add({(j, i + 1): alpha, (j, i): -1.0})
            add({(j, i): alpha, (j, i + 1): -1.0})
    # Eqs. (7)-(8) on the rows of P and eqs. (9)-(10) on its columns are the same constraints on line i, the i-th
    # row or column: honest, no entry above the diagonal one; monotone, rising up to the diagonal, then falling.
    for honest, monotone, entry in (("RH", "RM", lambda i, k: (i, k)), ("CH", "CM", lambda i, k: (k, i))):
        if honest in names:
            for i in range(N):
                for k in range(N):
                    if k != i:
                        add({entry(i, k): 1.0, entry(i, i): -1.0})
        if monotone in names:
            for i in range(N):
                for k in range(n):
                    lower_entry, higher_entry = (k, k + 1) if k < i else (k + 1, k)
                    add({entry(i, lower_entry): 1.0, entry(i, higher_entry): -1.0})
    if "F" in names:  # eq. (11)
        for i in range(1, N):
            add({(i, i): 1.0, (0, 0): -1.0}, 0.0, 0.0)
    if "WH" in names:  # eq. (13)
        for i in range(N):
            add({(i, i): 1.0}, 1.0 / N, np.inf)
    if "S" in names:  # eq. (14): centrosymmetric
        for j in range(N):
            for i in range(N):
                if (j, i) < (n - j, n - i):
                    add({(j, i): 1.0, (n - j, n - i): -1.0}, 0.0, 0.0)
    name = f"counts n={n} {objective} {'+'.join(('BasicDP', *names))}"
    solution = lp.solve(cost.ravel(), rows, columns, values, lower, upper, name=name, method=SIMPLEX)
    P = np.clip(solution.x.reshape(N, N), 0.0, None)
    return P / P.sum(axis=0, keepdims=True)


def wm(n: int, alpha: float) -> np.ndarray:
    """WM as the paper's Figures 6, 7 and 9 build it (decisions.md, section 7): the L0 optimum under BasicDP + WH + RM,
    no column property. Figure 6 prints CM as '—' for WM, Figure 7's WM favours the extreme outputs for middle inputs,
    and Figure 9(b) has WM meet GM's score at n = 20, none of which the LP with CM can do (``wm_cm``). The LP has
    many optima; S is added to pick a symmetric one, at no cost (Theorem 1), as Figure 6 lists WM as symmetric."""
    return optimal(n, alpha, "L0", ("WH", "RM", "S"))


def wm_cm(n: int, alpha: float) -> np.ndarray:
    """'WM (CM)', WM as section V-A's sentence defines it ("the mechanism with WH, RM and CM properties"): the L0
    optimum under BasicDP + WH + RM + CM (+ S, at no cost). Column monotone by construction; the paper's figures do
    not fit it (``wm``, decisions.md, section 7)."""
    return optimal(n, alpha, "L0", ("WH", "RM", "CM", "S"))


MECHANISMS = ("GM", "WM", "WM (CM)", "EM", "UM")
"""The count mechanisms by name: GM, WM (WH + RM), WM (CM) (WH + RM + CM), EM and UM."""


def by_name(name: str, n: int, alpha: float) -> np.ndarray:
    """The count mechanism called ``name`` (one of ``MECHANISMS``) for groups of n at alpha, P[j, i]."""
    builders = {"GM": gm, "WM": wm, "WM (CM)": wm_cm, "EM": em, "UM": lambda n, _alpha: um(n)}
    if check_text(name, "name") not in builders:
        raise ValueError(f"name: unknown count mechanism {name!r}; known: {', '.join(MECHANISMS)}")
    return builders[name](n, alpha)


def flowchart(properties: Iterable[str], n: int, alpha: float) -> str:
    """Figure 5 / section IV-D: which of the four mechanisms is L0-optimal for a set of required properties.

    F -> EM (Theorem 4); else a column property (CH or CM) -> 'WM (CM)', the LP with WH + CM (CM => CH => WH; the
    paper calls it WM here, decisions.md, section 7); else WH ->
    GM when n >= 2 alpha / (1 - alpha) (Lemma 2), else the LP with WH alone ('LP-WH'); else (row properties and S
    only) -> GM (Theorem 3). Row properties and S come free in every case.
    """
    names = set(check_property_names(properties, PROPERTIES))
    n, alpha = check_group_size(n), check_alpha(alpha)
    if "F" in names:
        return "EM"
    if names & {"CH", "CM"}:
        return "WM (CM)"
    if "WH" in names and n < gm_weak_honesty_threshold(alpha):
        return "LP-WH"
    return "GM"


def verdict(holds: Sequence[bool]) -> str:
    """Figure 6's entry for a property over a grid of (n, alpha): Y on all, N on none, — (depends) otherwise."""
    if isinstance(holds, str | bytes) or not isinstance(holds, Iterable):
        raise TypeError(f"holds must be a list of booleans, got {describe(holds)}")
    holds = list(holds)
    bad = [h for h in holds
           if not (isinstance(h, bool | np.bool_) or (isinstance(h, int | np.integer) and h in (0, 1)))]
    if bad:
        raise ValueError(f"holds must hold booleans only, found {bad[0]!r}")
    holds = [bool(h) for h in holds]
    if not holds:
        raise ValueError("holds must name at least one (n, alpha)")
    return "Y" if all(holds) else "N" if not any(holds) else "—"


def mechanism_key(name: str, n: int, alpha: float) -> str:
    """The key of one mechanism matrix in a file of many: e.g. 'WM_n4_alpha0.909091', 'WM_CM_n4_alpha0.909091'."""
    if check_text(name, "name") not in MECHANISMS:
        raise ValueError(f"name: unknown count mechanism {name!r}; known: {', '.join(MECHANISMS)}")
    return f"{name.replace(' (', '_').rstrip(')')}_n{check_group_size(n)}_alpha{check_alpha(alpha):.6g}"


# --- experiments ------------------------------------------------------------------------------------------------------


def group_counts(bits: np.ndarray, n: int, order: np.ndarray | None = None) -> np.ndarray:
    """Section V-B: the persons, taken in ``order`` (a permutation; as given when None), cut into consecutive groups
    of n, the last incomplete group dropped; returns the number of 1-bits of each group, shape (len(bits) // n,).
    bits: 0/1 per person. One order shared by several targets groups the same persons together for each."""
    n = check_group_size(n)
    bits = as_array(bits, "bits")
    if bits.ndim != 1 or not np.all((bits == 0) | (bits == 1)):
        raise ValueError("bits must be a 1-D array of 0/1 values")
    if order is not None:
        order = check_integers(order, "order", 0, bits.size)
        if order.shape != bits.shape or not np.array_equal(np.sort(order), np.arange(bits.size)):
            raise ValueError(f"order must be a permutation of 0..{bits.size - 1}")
        bits = bits[order]
    groups = bits.size // n
    if groups == 0:
        raise ValueError(f"{bits.size} persons make no group of {n}")
    return bits[:groups * n].reshape(groups, n).sum(axis=1).astype(np.int64)


def sample_outputs(P: np.ndarray, counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The mechanism's noisy count for each group: output j ~ P[:, count], vectorised over groups."""
    A = as_row_stochastic(P)
    counts = check_integers(counts, "counts", 0, A.shape[0], ndim=1)
    return sample(A, counts, check_rng(rng))


def wrong_fraction(true: np.ndarray, noisy: np.ndarray, d: int = 0) -> float:
    """The fraction of groups whose noisy count is more than d away from the true one (d = 0: wrong at all)."""
    true, noisy = check_count_pair(true, noisy)
    return float(np.mean(np.abs(noisy - true) > check_int(d, "d", minimum=0)))


def rmse(true: np.ndarray, noisy: np.ndarray) -> float:
    """Root mean square error of the noisy counts (Figure 13)."""
    true, noisy = check_count_pair(true, noisy)
    return float(np.sqrt(np.mean((noisy - true) ** 2)))
