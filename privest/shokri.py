"""The optimal mechanism of Shokri et al. (free-will paper, section 8.2.4), solved as a linear program with pulp.

Secrets and reports share the alphabet X; ``l = distances`` is both the user's quality loss and the adversary's loss,
``pi`` the user's profile (prior). The LP, with ``f_y(z) = sum_x pi_x A[x, y] l(x, z)``:

    maximise    sum_y u_y
    subject to  u_y <= f_y(z)                           for all y, z     (the "(y, z) constraints")
                sum_x pi_x sum_z A[x, z] l(x, z) <= Q                    (quality loss; it equals sum_y f_y(y))
                sum_z A[x, z] = 1,  A >= 0.

At the optimum ``u_y = min_z f_y(z)``: the adversary's expected loss when he sees y and guesses his best z.

Two facts shape the solver. (1) The optimum is known: it is ``min(Q, L*)`` with ``L* = min_z sum_x pi_x l(x, z)`` the
loss of the best blind guess. Upper bounds: taking z = y gives ``sum_y u_y <= sum_y f_y(y) <= Q``, and
``sum_y min_z f_y(z) <= min_z sum_y f_y(z) = L*``. Attained by ``(1 - t) I + t 1 e_{z*}`` with ``t = min(Q / L*, 1)``.
So the LP is highly degenerate: below saturation, A is optimal iff its quality loss is Q and every report y is itself
a best guess for its own column. Which optimal vertex comes back depends on the solver, hence ``solver`` is pinned and
recorded. (2) The (y, z) constraints have |X| non-zeros each, |X|^3 in all (56M for 384 cells), so they are added
lazily: start with the z nearest to each y, solve, add every violated (y, z), re-solve, until none is violated by more
than ``tol``. Since y must be a best guess for column y, the violated z are the neighbours of y: on a line with
l = |x - z|, f_y is convex, so z in {y - 1, y, y + 1} suffice; on a grid the 8 neighbours nearly suffice (measured:
at most 2 rounds). Optimality is proven either way: by no violated constraint, or by A's own adversary loss reaching
``min(Q, L*)``.

Saturation (``cap_at_blind_guess=True``, the default): for Q >= L* the LP is solved with Q replaced by L*. Every
solution of that LP is optimal for Q (same optimum L*), its quality loss is exactly L* (the least any optimal
mechanism spends), and it keeps the neighbour structure above, where the Q > L* LP needs tens of lazy rounds. The
mechanism is then the same for every Q >= L*; ``ShokriSolution.Q_solved`` records the Q used.
"""

import importlib.metadata
from dataclasses import dataclass

import numpy as np
import pulp

SOLVERS = ("PULP_CBC_CMD", "HiGHS")


@dataclass(frozen=True)
class ShokriSolution:
    """An optimal mechanism and how it was found.

    A: the mechanism, shape (k, k), row-stochastic. objective: the adversary's expected loss under A,
    ``sum_y min_z f_y(z)``, computed from A. lp_objective: ``sum_y u_y`` as the solver reported it. optimum: the
    known optimal value ``min(Q, L*)``. quality_loss: ``sum_x pi_x sum_z A[x, z] l(x, z)``. Q_solved: the Q given to
    the LP (``min(Q, L*)`` when capped). solver: solver name and versions. rounds: LP solves. constraints: (y, z)
    constraints in the last LP (of k^2 in the full one).
    """

    A: np.ndarray
    objective: float
    lp_objective: float
    optimum: float
    quality_loss: float
    Q: float
    Q_solved: float
    blind_guess_loss: float
    solver: str
    rounds: int
    constraints: int


def shokri(distances, Q, prior=None, **options) -> np.ndarray:
    """Shokri et al.'s optimal mechanism A[x, z] (free-will 8.2.4): the adversary's expected loss is maximal
    subject to the user's expected quality loss being at most Q. See ``solve_shokri`` for the options."""
    return solve_shokri(distances, Q, prior, **options).A


def blind_guess_loss(distances, prior=None) -> float:
    """L* = min_z sum_x pi_x l(x, z): the adversary's loss guessing without any report, the LP's saturation value."""
    l, pi = _check(distances, prior)
    return float((pi @ l).min())


def solve_shokri(
    distances,
    Q,
    prior=None,
    *,
    solver: str = "PULP_CBC_CMD",
    nearest: int = 9,
    per_round: int | None = None,
    lazy: bool = True,
    cap_at_blind_guess: bool = True,
    tol: float = 1e-7,
    max_rounds: int = 50,
    msg: bool = False,
) -> ShokriSolution:
    """Solve Shokri et al.'s LP with lazily added (y, z) constraints; return the mechanism and the record.

    distances: l, shape (k, k), symmetric, non-negative, zero diagonal. Q: the quality-loss bound, >= 0. prior: pi,
    shape (k,), a distribution (uniform when None). solver: "PULP_CBC_CMD" (CBC bundled with pulp) or "HiGHS" (pulp's
    highspy interface, primal simplex). nearest: the first LP has, for each y, the (y, z) constraints of the
    ``nearest`` z closest to y (y included). per_round: add at most this many violated z per y and round (the most
    violated first; None: all). lazy=False writes out all k^2 constraints (the reference LP). cap_at_blind_guess:
    solve with min(Q, L*) (module docstring). tol: violations up to ``tol * max(distances)`` are accepted; each
    u_y is then within that of the adversary's true loss on column y.
    """
    l, pi = _check(distances, prior)
    Q = _check_q(Q)
    if solver not in SOLVERS:
        raise ValueError(f"solver must be one of {SOLVERS}, got {solver!r}")
    if nearest < 1:
        raise ValueError(f"nearest must be at least 1, got {nearest}")
    if per_round is not None and per_round < 1:
        raise ValueError(f"per_round must be at least 1 or None, got {per_round}")
    if not tol > 0:
        raise ValueError(f"tol must be positive, got {tol}")
    k = len(pi)
    blind = float((pi @ l).min())
    Q_solved = min(Q, blind) if cap_at_blind_guess else Q
    optimum = min(Q, blind)
    scale = float(l.max()) if l.max() > 0 else 1.0
    # Work with weights w = k * pi (1 for a uniform prior) so that every row has values of the order of the distances,
    # well above the solvers' absolute tolerances; u and the quality bound scale by k with them.
    w = k * pi
    threshold = tol * scale

    prob = pulp.LpProblem("shokri", pulp.LpMaximize)
    width = len(str(k - 1))
    a = [[pulp.LpVariable(f"a_{x:0{width}d}_{z:0{width}d}", lowBound=0) for z in range(k)] for x in range(k)]
    u = [pulp.LpVariable(f"u_{y:0{width}d}", lowBound=0) for y in range(k)]
    prob += pulp.LpAffineExpression([(v, 1.0) for v in u])
    for x in range(k):
        prob += pulp.LpConstraint(pulp.LpAffineExpression([(v, 1.0) for v in a[x]]), pulp.LpConstraintEQ,
                                  f"row_{x:0{width}d}", 1.0)
    quality = [(a[x][z], float(w[x] * l[x, z])) for x in range(k) for z in range(k) if w[x] * l[x, z] > 0]
    prob += pulp.LpConstraint(pulp.LpAffineExpression(quality), pulp.LpConstraintLE, "quality", k * Q_solved)

    present = np.zeros((k, k), dtype=bool)

    def add(pairs):
        for y, z in pairs:
            terms = [(a[x][y], float(w[x] * l[x, z])) for x in range(k) if w[x] * l[x, z] > 0]
            terms.append((u[y], -1.0))
            prob.addConstraint(pulp.LpConstraint(pulp.LpAffineExpression(terms), pulp.LpConstraintGE,
                                                 f"guess_{y:0{width}d}_{z:0{width}d}", 0.0))
            present[y, z] = True

    if lazy:
        order = np.argsort(l, axis=1, kind="stable")[:, :nearest]
        first = [(y, y) for y in range(k)] + [(y, int(z)) for y in range(k) for z in order[y] if z != y]
    else:
        first = [(y, z) for y in range(k) for z in range(k)]
    add(sorted(first))

    backend = _backend(solver, msg)
    rounds = 0
    while True:
        status = prob.solve(backend)
        rounds += 1
        if status != pulp.LpStatusOptimal:
            raise RuntimeError(f"solver {solver} returned status {pulp.LpStatus[status]} in round {rounds}")
        A = np.array([[v.varValue or 0.0 for v in row] for row in a])
        U = np.array([v.varValue or 0.0 for v in u])
        A = np.clip(A, 0.0, None)
        A /= A.sum(axis=1, keepdims=True)
        F = (w[:, None] * A).T @ l  # k * f_y(z)
        violation = U[:, None] - F
        violation[present] = -np.inf  # present constraints hold up to the solver's tolerance
        objective = float(F.min(axis=1).sum()) / k
        if violation.max() <= threshold or objective >= optimum - threshold:
            break
        if rounds >= max_rounds:
            raise RuntimeError(f"Shokri LP: still {int((violation > threshold).sum())} violated (y, z) constraints "
                               f"after {rounds} rounds")
        new = []
        for y in np.flatnonzero((violation > threshold).any(axis=1)):
            zs = np.flatnonzero(violation[y] > threshold)
            zs = zs[np.argsort(-violation[y, zs], kind="stable")][:per_round]
            new.extend((int(y), int(z)) for z in sorted(zs))
        add(new)

    lp_objective = float(pulp.value(prob.objective)) / k
    quality_loss = float(np.sum(pi[:, None] * A * l))
    return ShokriSolution(
        A=A, objective=objective, lp_objective=lp_objective, optimum=optimum, quality_loss=quality_loss, Q=Q,
        Q_solved=Q_solved, blind_guess_loss=blind, solver=_solver_name(solver), rounds=rounds,
        constraints=int(present.sum()),
    )


def _backend(solver, msg):
    if solver == "PULP_CBC_CMD":
        return pulp.PULP_CBC_CMD(msg=msg, mip=False, threads=1, options=["primalSimplex"])
    backend = pulp.HiGHS(msg=msg, threads=1, simplex_strategy=4, random_seed=0)
    if not backend.available():
        raise ValueError("solver 'HiGHS' needs the highspy package, which is not installed")
    return backend


def _solver_name(solver):
    if solver == "PULP_CBC_CMD":
        return f"PULP_CBC_CMD (CBC bundled with pulp {pulp.__version__}, primal simplex)"
    return f"HiGHS {importlib.metadata.version('highspy')} via pulp {pulp.__version__} (primal simplex)"


def _check(distances, prior):
    l = np.asarray(distances, dtype=np.float64)
    if l.ndim != 2 or l.shape[0] != l.shape[1] or l.shape[0] < 1:
        raise ValueError(f"distances must be a non-empty square matrix, got shape {l.shape}")
    if not np.isfinite(l).all():
        raise ValueError("distances must be finite")
    if (l < 0).any():
        raise ValueError("distances must be non-negative")
    if (np.diag(l) != 0).any():
        raise ValueError("distances must have a zero diagonal")
    if not np.allclose(l, l.T, rtol=1e-12, atol=0.0):
        raise ValueError("distances must be symmetric")
    k = l.shape[0]
    if prior is None:
        return l, np.full(k, 1.0 / k)
    pi = np.asarray(prior, dtype=np.float64)
    if pi.shape != (k,):
        raise ValueError(f"prior must have shape ({k},) to match distances, got {pi.shape}")
    if not np.isfinite(pi).all() or (pi < 0).any() or abs(pi.sum() - 1.0) > 1e-9:
        raise ValueError("prior must be a distribution: non-negative entries summing to 1")
    return l, pi


def _check_q(Q):
    Q = float(Q)
    if np.isnan(Q):
        raise ValueError("Q must be a number, got nan")
    if Q < 0:
        raise ValueError(f"Q must be >= 0: the quality loss is never negative, so Q = {Q} is infeasible")
    return Q
