"""The optimal mechanism of Shokri et al. (free-will paper, section 8.2.4), solved as a linear program with pulp.

Secrets and reports share the alphabet X; ``l = distances`` is both the user's quality loss and the adversary's loss,
``pi`` the user's profile (prior). With ``f_y(z) = sum_x pi_x A[x, y] l(x, z)``, the LP is

    maximise    sum_y u_y
    subject to  u_y <= f_y(z)                           for all y, z     (the "(y, z) constraints")
                sum_x pi_x sum_z A[x, z] l(x, z) <= Q                    (quality loss; it equals sum_y f_y(y))
                sum_z A[x, z] = 1,  A >= 0,

and at its optimum ``u_y = min_z f_y(z)``: the adversary's expected loss on report y with his best guess.

The optimum is known. It is ``min(Q, L*)``, with ``L* = min_z sum_x pi_x l(x, z)`` the loss of the best blind guess:
z = y gives ``sum_y u_y <= sum_y f_y(y) <= Q``; ``sum_y min_z f_y(z) <= min_z sum_y f_y(z) = L*``; and
``(1 - t) I + t 1 e_{z*}`` with ``t = min(Q / L*, 1)`` attains the bound. So the LP is degenerate: below
saturation, A is optimal iff its quality loss is Q and every report y is itself a best guess for its own column.
Which of these optimal mechanisms comes back depends on the solver and on the path below; the solver is pinned (CBC
bundled with pulp) and recorded, and the whole computation is deterministic.

Lazy (y, z) constraints. Written out, they have |X| non-zeros each, |X|^3 in all (56M for the 384-cell grid). The
first LP has, for each y, the constraints of the ``nearest`` z closest to y (y included); after each solve every
violated (y, z) is added (all of them: on the 384-cell grid that converges in 2-4 rounds) and the LP is re-solved,
warm-started from the previous optimal basis, until no (y, z) is violated by more than ``tol * max(l)``. The
neighbours of y are the natural first guess because y must be a best guess for column y: on a line with
``l = |x - z|``, f_y is convex, so z in {y - 1, y, y + 1} already suffice; on a grid, columns whose few source points
form a valley at an angle the 8 neighbours miss need the extra rounds. Two checks prove the result optimal for the
full LP: no violated constraint, or A's own adversary loss reaching ``min(Q, L*)``.

Saturation (``cap_at_blind_guess=True``, the default): for Q > L* the LP is solved with Q = L*. Every solution of
that LP is optimal for Q (same optimum L*), it spends exactly L* (the least quality loss of any optimal mechanism),
and it keeps the neighbour structure above, where the LP with Q > L* took 50 lazy rounds on {0..99} at Q = 28 in a
trial. The mechanism is then the same for every Q >= L*; ``ShokriSolution.Q_solved`` records the Q the LP had.

Precision: CBC writes its solution with 8 significant digits. Negative round-off is clipped and rows are
renormalised, so rows sum to 1 within 1e-15; the quality loss may exceed ``Q_solved`` by round-off (at most
4e-10 of it on the Q of free-will Table 8).
"""

import functools
import logging
import re
import time
import warnings
from dataclasses import dataclass

import numpy as np

log = logging.getLogger(__name__)

SOLVERS = ("PULP_CBC_CMD",)


@dataclass(frozen=True)
class ShokriSolution:
    """An optimal mechanism and how it was found.

    A: the mechanism A[x, z], shape (k, k), row-stochastic. objective: the adversary's expected loss under A,
    ``sum_y min_z f_y(z)``, computed from A. lp_objective: ``sum_y u_y`` of the last LP. optimum: the known optimal
    value ``min(Q, L*)``. quality_loss: ``sum_x pi_x sum_z A[x, z] l(x, z)``. Q_solved: the bound the LP had
    (``min(Q, L*)`` when capped). blind_guess_loss: L*. solver: the solver and its versions. rounds: LP solves.
    constraints: (y, z) constraints in the last LP, of k^2 in the full one.
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
    """Shokri et al.'s optimal mechanism A[x, z] (free-will 8.2.4): the adversary's expected loss is maximal subject
    to the user's expected quality loss being at most Q. distances: shape (k, k); prior: shape (k,), uniform when
    None. See ``solve_shokri`` for the options and the record of the solve."""
    return solve_shokri(distances, Q, prior, **options).A


def blind_guess_loss(distances, prior=None) -> float:
    """L* = min_z sum_x pi_x l(x, z): the adversary's loss when he guesses without a report; the LP's saturation."""
    loss, pi = _check_inputs(distances, prior)
    return float((pi @ loss).min())


def adversary_loss(A, distances, prior=None) -> float:
    """The adversary's expected loss under mechanism A with his best guesses: sum_y min_z sum_x pi_x A[x, y] l(x, z)."""
    loss, pi = _check_inputs(distances, prior)
    return float(((pi[:, None] * np.asarray(A, dtype=np.float64)).T @ loss).min(axis=1).sum())


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
    """Solve Shokri et al.'s LP with lazily added (y, z) constraints (module docstring); return the record.

    distances: l, shape (k, k): symmetric, non-negative, zero diagonal. Q: the bound on the expected quality loss,
    >= 0 (Q = 0 gives the identity). prior: pi, shape (k,), a distribution; uniform when None. solver: only
    "PULP_CBC_CMD", the CBC bundled with pulp (primal simplex, then dual simplex warm-started). nearest: the first LP
    has the (y, z) constraints of the ``nearest`` z closest to each y. per_round: add at most this many violated z
    per y and round, the most violated first (None: all). lazy=False writes out all k^2 (y, z) constraints: the
    reference LP. cap_at_blind_guess: solve with min(Q, L*). tol: (y, z) violations up to ``tol * max(distances)``
    are accepted, so each u_y is within that of the adversary's loss on column y; an adversary loss within a
    factor 1 - tol of the optimum also ends the rounds (it proves A optimal up to that). max_rounds: raise RuntimeError
    beyond. msg: show the solver's log.
    """
    loss, pi = _check_inputs(distances, prior)
    Q = _check_q(Q)
    if solver not in SOLVERS:
        raise ValueError(f"solver must be one of {SOLVERS}, got {solver!r}")
    if int(nearest) != nearest or nearest < 1:
        raise ValueError(f"nearest must be a positive integer, got {nearest}")
    if per_round is not None and (int(per_round) != per_round or per_round < 1):
        raise ValueError(f"per_round must be a positive integer or None, got {per_round}")
    if not tol > 0:
        raise ValueError(f"tol must be positive, got {tol}")
    if int(max_rounds) != max_rounds or max_rounds < 1:
        raise ValueError(f"max_rounds must be a positive integer, got {max_rounds}")
    k = len(pi)
    blind = float((pi @ loss).min())
    Q_solved = min(Q, blind) if cap_at_blind_guess else Q
    optimum = min(Q, blind)
    record = dict(optimum=optimum, Q=Q, Q_solved=Q_solved, blind_guess_loss=blind)
    if optimum == 0:
        # Q = 0, or a prior the adversary knows for sure: no mechanism leaks anything, and the identity costs nothing.
        return ShokriSolution(A=np.eye(k), objective=0.0, lp_objective=0.0, quality_loss=0.0,
                              solver="none: the optimum is 0 and the identity attains it", rounds=0, constraints=0,
                              **record)

    # The LP is written with weights w = k pi (1 for the uniform prior), so that its rows have values of the order of
    # the distances, well above the solver's absolute tolerances; u and the quality bound scale by k with them.
    w = k * pi
    threshold = tol * float(loss.max())
    width = len(str(k - 1))
    import tempfile  # here, with pulp: the LP jobs pay for them, not every import of privest

    import pulp

    prob = pulp.LpProblem("shokri", pulp.LpMaximize)
    variable = getattr(prob, "add_variable", pulp.LpVariable)  # pulp >= 3.3 deprecates building LpVariable directly
    a = [[variable(f"a_{x:0{width}d}_{z:0{width}d}", lowBound=0) for z in range(k)] for x in range(k)]
    u = [variable(f"u_{y:0{width}d}", lowBound=0) for y in range(k)]
    prob += pulp.LpAffineExpression([(v, 1.0) for v in u])
    for x in range(k):
        prob.addConstraint(pulp.LpConstraint(pulp.LpAffineExpression([(v, 1.0) for v in a[x]]), pulp.LpConstraintEQ,
                                             f"row_{x:0{width}d}", 1.0))
    wl = w[:, None] * loss  # wl[x, z]: the coefficient of A[x, y] in the (y, z) constraint, of A[x, z] in the quality
    quality = [(a[x][z], float(wl[x, z])) for x in range(k) for z in range(k) if wl[x, z] > 0]
    prob.addConstraint(pulp.LpConstraint(pulp.LpAffineExpression(quality), pulp.LpConstraintLE, "quality",
                                         k * Q_solved))
    present = np.zeros((k, k), dtype=bool)

    def add(pairs):
        for y, z in pairs:
            terms = [(a[x][y], float(wl[x, z])) for x in range(k) if wl[x, z] > 0]
            terms.append((u[y], -1.0))
            prob.addConstraint(pulp.LpConstraint(pulp.LpAffineExpression(terms), pulp.LpConstraintGE,
                                                 f"guess_{y:0{width}d}_{z:0{width}d}", 0.0))
            present[y, z] = True

    if lazy:
        near = np.argsort(loss, axis=1, kind="stable")[:, :nearest]
        add(sorted({(y, y) for y in range(k)} | {(y, int(z)) for y in range(k) for z in near[y]}))
    else:
        add((y, z) for y in range(k) for z in range(k))

    rounds = 0
    with tempfile.TemporaryDirectory(prefix="privest-shokri-") as basis_dir:
        while True:
            started = time.perf_counter()
            status = prob.solve(_cbc(msg, basis_dir, rounds))
            rounds += 1
            if status != pulp.LpStatusOptimal:
                raise RuntimeError(f"CBC returned status {pulp.LpStatus[status]} in round {rounds} of the Shokri LP")
            A = np.clip(np.array([[v.varValue or 0.0 for v in row] for row in a]), 0.0, None)
            A /= A.sum(axis=1, keepdims=True)
            U = np.array([v.varValue or 0.0 for v in u])
            F = (w[:, None] * A).T @ loss  # F[y, z] = k f_y(z)
            violation = U[:, None] - F
            violation[present] = -np.inf  # those hold up to the solver's tolerance
            violated = violation > threshold
            objective = float(F.min(axis=1).sum()) / k
            log.info("Shokri LP round %d: %d (y, z) constraints, %.1f s; adversary loss %.10g of %.10g; "
                     "%d (y, z) violated in %d columns", rounds, int(present.sum()), time.perf_counter() - started,
                     objective, optimum, int(violated.sum()), int(violated.any(axis=1).sum()))
            if not violated.any() or objective >= optimum * (1 - tol):
                break
            if rounds >= max_rounds:
                raise RuntimeError(f"Shokri LP: {int(violated.sum())} (y, z) constraints still violated after "
                                   f"{rounds} rounds")
            new = []
            for y in np.flatnonzero(violated.any(axis=1)):
                zs = np.flatnonzero(violated[y])
                zs = zs[np.argsort(-violation[y, zs], kind="stable")][:per_round]
                new.extend((int(y), int(z)) for z in np.sort(zs))
            add(new)

    return ShokriSolution(
        A=A, objective=objective, lp_objective=float(pulp.value(prob.objective)) / k,
        quality_loss=float(np.sum(pi[:, None] * A * loss)), solver=_cbc_name(), rounds=rounds,
        constraints=int(present.sum()), **record,
    )


def _cbc(msg, basis_dir, previous):
    """CBC for one round: primal simplex from scratch in round 1 (on the 384-cell grid dual simplex took 45,000
    iterations and two minutes where primal took 3,400 and two seconds), then dual simplex from the previous round's
    optimal basis. pulp names rows and columns by position in the MPS file and rows are only appended, so the saved
    basis stays valid; the new rows start basic."""
    if any(c.isspace() for c in basis_dir):
        raise RuntimeError(f"the temporary directory {basis_dir!r} has white space, which CBC's command line splits")
    import pulp

    options = ["primalSimplex"] if previous == 0 else [f"basisIn {basis_dir}/round{previous}.bas", "dualSimplex"]
    options.append(f"basisOut {basis_dir}/round{previous + 1}.bas")
    with warnings.catch_warnings():
        # pulp 3.3 warns that pulp 4 drops the bundled CBC: this CBC is the pinned solver, kept on purpose.
        warnings.simplefilter("ignore", DeprecationWarning)
        return pulp.PULP_CBC_CMD(msg=msg, mip=False, threads=1, options=options)


@functools.cache
def _cbc_name():
    """The solver as recorded with each mechanism: pulp's CBC, its version, how it was driven."""
    import importlib.metadata
    import subprocess

    banner = subprocess.run([_cbc(False, "", 0).path, "-quit"], capture_output=True, text=True, check=False).stdout
    version = re.search(r"Version:\s*(\S+)", banner)
    return (f"PULP_CBC_CMD: CBC {version.group(1) if version else '(version unknown)'} bundled with pulp "
            f"{importlib.metadata.version('pulp')}; primal simplex, then dual simplex warm-started")


def _check_inputs(distances, prior):
    loss = np.asarray(distances, dtype=np.float64)
    if loss.ndim != 2 or loss.shape[0] != loss.shape[1] or loss.shape[0] < 1:
        raise ValueError(f"distances must be a non-empty square matrix, got shape {loss.shape}")
    if not np.isfinite(loss).all():
        raise ValueError("distances must be finite")
    if (loss < 0).any():
        raise ValueError("distances must be non-negative")
    if (np.diag(loss) != 0).any():
        raise ValueError("distances must have a zero diagonal")
    if not np.allclose(loss, loss.T, rtol=1e-12, atol=0.0):
        raise ValueError("distances must be symmetric")
    k = loss.shape[0]
    if prior is None:
        return loss, np.full(k, 1.0 / k)
    pi = np.asarray(prior, dtype=np.float64)
    if pi.shape != (k,):
        raise ValueError(f"prior must have shape ({k},) to match distances, got {pi.shape}")
    if not np.isfinite(pi).all() or (pi < 0).any() or abs(pi.sum() - 1.0) > 1e-9:
        raise ValueError("prior must be a distribution: non-negative entries summing to 1")
    return loss, pi


def _check_q(Q):
    Q = float(Q)
    if not np.isfinite(Q):
        raise ValueError(f"Q must be a finite number, got {Q}")
    if Q < 0:
        raise ValueError(f"Q = {Q} is infeasible: the expected quality loss is never negative, so Q must be >= 0")
    return Q
