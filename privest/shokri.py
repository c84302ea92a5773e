"""The optimal mechanism of Shokri et al. (free-will paper, section 8.2.4), solved as a linear program on HiGHS
(``privest.lp``).

Secrets and reports share the alphabet X; ``l = distances`` is both the user's quality loss and the adversary's loss,
``pi`` the user's profile (prior). With ``f_y(z) = sum_x pi_x A[x, y] l(x, z)``, the LP is::

    maximise    sum_y u_y
    subject to  u_y <= f_y(z)                           for all y, z     (the "(y, z) constraints")
                sum_x pi_x sum_z A[x, z] l(x, z) <= Q                    (quality loss; it equals sum_y f_y(y))
                sum_z A[x, z] = 1,  A >= 0,

and at its optimum ``u_y = min_z f_y(z)``: the adversary's expected loss on report y with his best guess.

The optimum is known. It is ``min(Q, L*)``, with ``L* = min_z sum_x pi_x l(x, z)`` the loss of the best blind guess:
z = y gives ``sum_y u_y <= sum_y f_y(y) <= Q``; ``sum_y min_z f_y(z) <= min_z sum_y f_y(z) = L*``; and
``(1 - t) I + t 1 e_{z*}`` with ``t = min(Q / L*, 1)`` attains the bound. So the LP is degenerate: below
saturation, A is optimal iff its quality loss is Q and every report y is itself a best guess for its own column.
Which of these optimal mechanisms comes back depends on the solver and on the path below; the solver is pinned (HiGHS,
its version recorded in ``ShokriSolution.solver``), and the whole computation is serial and deterministic.

Lazy (y, z) constraints. Written out, they have ``|X|`` non-zeros each, ``|X|^3`` in all (56M for the 384-cell grid).
The first LP has, for each y, the constraints of the ``nearest`` z closest to y (y included); after each solve every
violated (y, z) is added (all of them: on the 384-cell grid that converges in 2-4 rounds) to the live HiGHS model,
which re-solves from the optimal basis it kept (dual simplex: 5 to about 1,400 iterations a round on the 384-cell grid,
where the first round's primal simplex takes 5,000 to 12,000), until no (y, z) is violated by more than
``tol * max(l)``. The neighbours of y are the natural first guess because y must be a best guess for column y: on a
line with ``l = |x - z|``, f_y is convex, so z in {y - 1, y, y + 1} already suffice; on a grid, columns whose few
source points form a valley at an angle the 8 neighbours miss need the extra rounds. Two checks prove the result
optimal for the full LP: no violated constraint, or A's own adversary loss reaching ``min(Q, L*)``.

Saturation (``cap_at_blind_guess=True``, the default): for Q > L* the LP is solved with Q = L*. Every solution of
that LP is optimal for Q (same optimum L*), it spends exactly L* (the least quality loss of any optimal mechanism),
and it keeps the neighbour structure above, where the LP with Q > L* took 50 lazy rounds on {0..99} at Q = 28 in a
trial. The mechanism is then the same for every Q >= L*; ``ShokriSolution.Q_solved`` records the Q the LP had.

Precision: HiGHS returns the solution in double precision, within its feasibility tolerance (1e-7). Negative
round-off is clipped and rows are renormalised, so rows sum to 1 within 1e-15; the quality loss may exceed
``Q_solved`` by round-off (at most 2.2e-16 on the Q of free-will Table 8, HiGHS 1.15.1).
"""

import logging
from dataclasses import dataclass

import numpy as np

from privest import lp  # the solver itself (highspy) loads with the first LP, not with privest
from privest._checks import (
    check_choice,
    check_int,
    check_loss_and_prior,
    check_positive,
    check_quality_loss,
    check_row_stochastic,
)

__all__ = [
    "FIRST_SIMPLEX",
    "SOLVERS",
    "SOLVER_METHOD",
    "ShokriSolution",
    "adversary_loss",
    "blind_guess_loss",
    "shokri",
    "solve_shokri",
]

log = logging.getLogger(__name__)

SOLVERS = ("highs",)
"""The LP solvers: HiGHS through privest.lp."""

FIRST_SIMPLEX = "primal"
"""The simplex method of the first LP round (later rounds: dual simplex from the kept basis). Measured on the
384-cell grid at Q = 1.5 (HiGHS 1.15.1, 3,456 (y, z) rows): the primal simplex took 6,108 iterations and 5 s, the
dual 133,750 iterations and 474 s, to the same optimum."""

SOLVER_METHOD = (f"{FIRST_SIMPLEX} simplex, then dual simplex from the kept optimal basis after each batch of (y, z) "
                 "rows; serial")


@dataclass(frozen=True)
class ShokriSolution:
    """An optimal mechanism and how it was found.

    A: the mechanism A[x, z], shape (k, k), row-stochastic. objective: the adversary's expected loss under A,
    ``sum_y min_z f_y(z)``, computed from A. lp_objective: ``sum_y u_y`` of the last LP. optimum: the known optimal
    value ``min(Q, L*)``. quality_loss: ``sum_x pi_x sum_z A[x, z] l(x, z)``. Q_solved: the bound the LP had
    (``min(Q, L*)`` when capped). blind_guess_loss: L*. solver: the solver, its versions and how it was run
    (``privest.lp.solver_description``). rounds: LP solves. constraints: (y, z) constraints in the last LP, of k^2
    in the full one. iterations: simplex iterations over all rounds.
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
    iterations: int = 0


def shokri(distances, Q, prior=None, **options) -> np.ndarray:
    """Shokri et al.'s optimal mechanism A[x, z] (free-will 8.2.4): the adversary's expected loss is maximal subject
    to the user's expected quality loss being at most Q. distances: shape (k, k); prior: shape (k,), uniform when
    None. See ``solve_shokri`` for the options and the record of the solve."""
    return solve_shokri(distances, Q, prior, **options).A


def blind_guess_loss(distances, prior=None) -> float:
    """L* = min_z sum_x pi_x l(x, z): the adversary's loss when he guesses without a report; the LP's saturation."""
    loss, pi = check_loss_and_prior(distances, prior)
    return float((pi @ loss).min())


def adversary_loss(A, distances, prior=None) -> float:
    """The adversary's expected loss under mechanism A with his best guesses: sum_y min_z sum_x pi_x A[x, y] l(x, z)."""
    loss, pi = check_loss_and_prior(distances, prior)
    A = check_row_stochastic(A, "A", atol=1e-9)
    if A.shape != loss.shape:
        raise ValueError(f"A must have the shape of distances {loss.shape}, got {A.shape}")
    return float(((pi[:, None] * A).T @ loss).min(axis=1).sum())


def solve_shokri(
    distances,
    Q,
    prior=None,
    *,
    solver: str = "highs",
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
    "highs": HiGHS in memory (``privest.lp``), primal simplex first, then dual simplex from the kept basis.
    nearest: the first LP has the (y, z) constraints of the ``nearest`` z closest to each y. per_round: add at most
    this many violated z per y and round, the most violated first (None: all). lazy=False writes out all k^2 (y, z)
    constraints: the reference LP. cap_at_blind_guess: solve with min(Q, L*). tol: (y, z) violations up to
    ``tol * max(distances)`` are accepted, so each u_y is within that of the adversary's loss on column y; an
    adversary loss within a factor 1 - tol of the optimum also ends the rounds (it proves A optimal up to that).
    max_rounds: raise RuntimeError beyond. msg: show the solver's log.
    """
    loss, pi = check_loss_and_prior(distances, prior)
    Q = check_quality_loss(Q)
    check_choice(solver, "solver", SOLVERS)
    nearest = check_int(nearest, "nearest", minimum=1)
    per_round = None if per_round is None else check_int(per_round, "per_round", minimum=1)
    tol = check_positive(tol, "tol")
    max_rounds = check_int(max_rounds, "max_rounds", minimum=1)
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
    # Variables: A[x, z] at x k + z, then u_y at k^2 + y.
    w = k * pi
    wl = w[:, None] * loss  # wl[x, z]: the coefficient of A[x, y] in the (y, z) constraint, of A[x, z] in the quality
    threshold = tol * float(loss.max())
    model = lp.LinearProgram(np.r_[np.zeros(k * k), np.ones(k)], sense="max", name="Shokri", msg=msg)
    model.add_rows(np.repeat(np.arange(k), k), np.arange(k * k), np.ones(k * k), 1.0, 1.0)  # rows of A stochastic
    positive = np.flatnonzero(wl.ravel() > 0)
    model.add_rows(np.zeros(positive.size), positive, wl.ravel()[positive], upper=k * Q_solved)  # the quality loss
    present = np.zeros((k, k), dtype=bool)

    def add(y, z):
        """The (y, z) rows sum_x wl[x, z] A[x, y] - u_y >= 0 for the pairs (y[p], z[p]), in one batch."""
        y, z = np.asarray(y, dtype=np.int64), np.asarray(z, dtype=np.int64)
        pair, x = np.nonzero(wl[:, z].T > 0)
        model.add_rows(np.r_[pair, np.arange(y.size)], np.r_[x * k + y[pair], k * k + y],
                       np.r_[wl[x, z[pair]], -np.ones(y.size)], lower=0.0)
        present[y, z] = True

    if lazy:
        near = np.argsort(loss, axis=1, kind="stable")[:, :nearest]
        first = np.zeros((k, k), dtype=bool)
        first[np.arange(k)[:, None], near] = True
        first[np.arange(k), np.arange(k)] = True
        add(*np.nonzero(first))
    else:
        add(*np.nonzero(np.ones((k, k), dtype=bool)))

    rounds = iterations = 0
    while True:
        solution = model.solve(FIRST_SIMPLEX if rounds == 0 else "dual")
        rounds += 1
        iterations += solution.iterations
        A = np.clip(solution.x[:k * k].reshape(k, k), 0.0, None)
        A /= A.sum(axis=1, keepdims=True)
        U = solution.x[k * k:]
        F = (w[:, None] * A).T @ loss  # F[y, z] = k f_y(z)
        violation = U[:, None] - F
        violation[present] = -np.inf  # those hold up to the solver's tolerance
        violated = violation > threshold
        objective = float(F.min(axis=1).sum()) / k
        log.info("Shokri LP round %d: %d (y, z) constraints, %d simplex iterations, %.1f s; adversary loss %.10g of "
                 "%.10g; %d (y, z) violated in %d columns", rounds, int(present.sum()), solution.iterations,
                 solution.seconds, objective, optimum, int(violated.sum()), int(violated.any(axis=1).sum()))
        if not violated.any() or objective >= optimum * (1 - tol):
            break
        if rounds >= max_rounds:
            raise RuntimeError(f"Shokri LP: {int(violated.sum())} (y, z) constraints still violated after "
                               f"{rounds} rounds")
        new_y, new_z = [], []
        for y in np.flatnonzero(violated.any(axis=1)):
            zs = np.flatnonzero(violated[y])
            zs = np.sort(zs[np.argsort(-violation[y, zs], kind="stable")][:per_round])
            new_y.append(np.full(zs.size, y))
            new_z.append(zs)
        add(np.concatenate(new_y), np.concatenate(new_z))

    return ShokriSolution(
        A=A, objective=objective, lp_objective=solution.objective / k,
        quality_loss=float(np.sum(pi[:, None] * A * loss)), solver=lp.solver_description(SOLVER_METHOD),
        rounds=rounds, constraints=int(present.sum()), iterations=iterations, **record,
    )
