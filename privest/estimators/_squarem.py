"""SQUAREM (Varadhan & Roland 2008) on GIBU's EM map: the accelerated iteration behind ``accelerate="squarem"``,
``"squarem-direct"`` and ``"squarem-newton"`` (the library's default, which finishes with Newton's method on the
estimate's support), stopped by the change of L, the size of a step or the certified gap.
Private: ``privest.estimators.iterative`` is its API.
"""

import math

import numpy as np

from privest.estimators._iteration import IbuResult, _Likelihood


def _squarem(likelihood: _Likelihood, theta: np.ndarray, delta: float | None, max_iter: int, tol: float | None = None,
            step_max0: float = 1.0, step_factor: float = 4.0, stop: str = "change", stabilise: bool = True,
            newton: bool = False) -> IbuResult:
    """GIBU accelerated by SQUAREM (Varadhan & Roland 2008, scheme S3): the same fixed points, far fewer updates.

    From theta: theta1 = F(theta), theta2 = F(theta1) with F the GIBU update; r = theta1 - theta, v = theta2 - 2
    theta1 + theta; alpha = ||r|| / ||v|| clipped to [1, step_max]; the extrapolation theta + 2 alpha r + alpha^2 v
    (still summing to 1) is halved towards theta2 (alpha = 1) until non-negative, then one GIBU update (their
    stabilising step; ``stabilise=False`` takes the extrapolation itself); if that lowers the log-likelihood, theta2 is
    taken instead and step_max shrinks, else step_max grows by step_factor when reached. Each step costs three
    updates (two without the stabilising one) and never lowers L (nor do Newton's steps, beyond L's rounding).
    Without it, OUE (k = 50, n = 10^5, eps = 1) took a third fewer passes over the reports to either stopping rule
    (benchmarks/README.md). Stops when a step changes L by less than delta, or when ``max |theta1 - theta| < tol``
    (either may be None), else after the step that reaches max_iter updates (capped).
    With ``stop="gap"`` it stops instead at the first step whose start has ``gap = max_x u_x - 1 < delta`` (u =
    dL/dtheta, from that step's first update at no cost): then L(MLE) - L(theta) < delta, certified.
    With ``newton``, once the steps have taken ``newton_after(k)`` updates without stopping, Newton's method on the
    support finishes (``_newton``); where Newton gives up, SQUAREM goes on from where Newton started (Newton's
    iterate may hold exact zeros, which GIBU's multiplicative update could never leave). ``iterations`` counts GIBU
    updates, and Newton steps.
    """
    current = likelihood.value(theta)
    step_max, updates, gap = step_max0, 0, None
    switch = newton_after(likelihood.k) if newton and delta is not None else None
    while updates < max_iter:
        if switch is not None and updates >= switch:
            switch, (updates, stopped) = None, _newton(likelihood, theta, current, delta, max_iter, updates, stop)
            if stopped is not None:
                return stopped
        u = likelihood.gradient(theta)
        if stop == "gap" and (gap := float(u.max()) - 1.0) < delta:
            return IbuResult(theta / theta.sum(), updates, current, False, gap=gap)
        theta1 = theta * u
        r = theta1 - theta
        if tol is not None and np.abs(r).max() < tol:
            theta1 = theta1 / theta1.sum()
            return IbuResult(theta1, updates + 1, likelihood.value(theta1), False)
        theta2 = likelihood.em(theta1)
        v = theta2 - 2 * theta1 + theta
        updates += 2
        norm_v = math.sqrt(float(v @ v))
        alpha = 1.0 if norm_v == 0 else min(max(math.sqrt(float(r @ r)) / norm_v, 1.0), step_max)
        proposal = theta + 2 * alpha * r + alpha**2 * v
        while alpha > 1.0 and proposal.min() < 0:
            alpha = (alpha + 1.0) / 2 if alpha > 1.0 + 1e-6 else 1.0
            proposal = theta + 2 * alpha * r + alpha**2 * v
        if alpha == 1.0:
            proposal = theta2  # theta + 2 r + v, without its rounding
        if stabilise:
            candidate = likelihood.em(proposal)
            updates += 1
        else:
            candidate = proposal.copy()
        candidate /= candidate.sum()
        value = likelihood.value(candidate)
        if not np.isfinite(value) or value < current:
            candidate = theta2 / theta2.sum()
            value = likelihood.value(candidate)
            step_max = max(step_max0, step_max / step_factor)
        elif alpha >= step_max:
            step_max *= step_factor
        change, theta, current = abs(value - current), candidate, value
        if stop == "change" and delta is not None and change < delta:
            return IbuResult(theta, updates, current, False)
    if stop == "gap":
        gap = float(likelihood.gradient(theta).max()) - 1.0
    return IbuResult(theta, updates, current, True, gap=gap)


NEWTON_MAX_K = 4096
"""The largest k at which ``"squarem-newton"`` takes Newton steps: its k x k information (128 MiB at 4096) and the
solve (k^3 / 3 flops) beyond would cost more than the updates they save."""


def newton_after(k: int) -> int | None:
    """The updates SQUAREM takes before Newton's method finishes, at k secrets: ``max(32, k)``, about four times what
    one Newton step costs in updates (its information matrix, n k^2 multiply-adds: k / 4 updates of OUE, SS or OLH at
    k = 16 to 1024, n = 10^5; measured 2026-11-28), so that a run SQUAREM would end soon pays for no Newton step and
    a slow one (an MLE with zeros, which EM approaches slowly) ends in a few. None above ``NEWTON_MAX_K``."""
    return max(32, k) if k <= NEWTON_MAX_K else None


def _newton(likelihood: _Likelihood, theta: np.ndarray, current: float, delta: float, max_iter: int, updates: int,
            stop: str) -> tuple[int, IbuResult | None]:
    """Newton's method for the MLE on the simplex from theta, an active-set method on L's quadratic model: each step
    frees the secrets with theta_x > 0 or u_x > 1 (u = dL/dtheta; a 0 with u_x <= 1 meets the optimality condition
    and stays), takes the model's maximiser on them with sum_x d_x = 0 (``_newton_step``), and of theta + t d for t
    in 1, 1/2, ... 2^-20 (negative entries set to 0, renormalised) the first that raises L, or, near the MLE where
    the rise is below L's rounding, the first within ``FLAT_ULPS`` units in the last place of L whose gap is smaller.
    Stops by the rule of ``_squarem`` (the gap at the start of a step, or a step changing L by less than delta).
    Returns (updates, the result if it stopped else None): None where no t is taken (the system singular, or L flat
    with the gap not falling), or after ``NEWTON_STALLS`` steps in a row that did not halve the gap (a singular
    information, where the secrets are not identifiable, can give steps that each raise L by a hair); SQUAREM then
    goes on from its own iterate, so Newton's is not returned."""
    u, last_gap, stalled = likelihood.gradient(theta), math.inf, 0
    while updates < max_iter:
        gap = float(u.max()) - 1.0
        if stop == "gap" and gap < delta:
            return updates, IbuResult(theta, updates, current, False, gap=gap)
        stalled, last_gap = (stalled + 1 if gap > last_gap / 2 else 0), gap
        if stalled == NEWTON_STALLS:
            break
        step = _newton_step(likelihood, theta, u)
        if step is None:
            break
        flat, t, taken = FLAT_ULPS * math.ulp(current), 1.0, None
        while taken is None and t >= 2.0**-20:
            candidate = np.maximum(theta + t * step, 0.0)
            candidate /= candidate.sum()
            value = likelihood.value(candidate)
            if value > current:
                taken = likelihood.gradient(candidate)
            elif value >= current - flat and float((u_next := likelihood.gradient(candidate)).max()) - 1.0 < gap:
                taken = u_next
            t /= 2
        if taken is None:
            break
        change, theta, current, u, updates = value - current, candidate, value, taken, updates + 1
        if stop == "change" and abs(change) < delta:
            return updates, IbuResult(theta, updates, current, False)
    if updates >= max_iter:
        return updates, IbuResult(theta, updates, current, True, gap=float(u.max()) - 1.0 if stop == "gap" else None)
    return updates, None


NEWTON_STALLS = 4
"""Newton hands back to SQUAREM after this many steps in a row that did not halve the gap: near the MLE its steps
shrink the gap quadratically; on the IBU paper's remapped planar mechanism (rank 16 of 25 secrets) they did not,
and a million steps each raised L by a hair."""


FLAT_ULPS = 64
"""How far below L (in units in its last place) a Newton step near the MLE may land and still be taken when it
lowers the gap: L sums a logarithm per distinct report, and the step's true rise there is below that sum's rounding."""


def _newton_step(likelihood: _Likelihood, theta: np.ndarray, u: np.ndarray) -> np.ndarray | None:
    """The maximiser d of L's quadratic model at theta, u d - d' I d / 2 with sum_x d_x = 0 (I = information / n), over
    the free secrets (theta_x > 0 or u_x > 1; d = 0 elsewhere), with those the step would take below 0 set to 0
    (d_x = -theta_x) and the rest solved again, until none is: on the free set F, [I_FF 1; 1' 0] [d_F; lambda] =
    [u_F - I_FZ d_Z; -sum d_Z] (Z those set to 0). None where the system is singular."""
    free = (theta > 0) | (u > 1)
    information = likelihood.information(theta) / likelihood.n
    step = np.zeros(theta.size)
    zeroed = np.zeros(theta.size, dtype=bool)
    while free.any():
        m = int(free.sum())
        system = np.ones((m + 1, m + 1))
        system[:m, :m] = information[np.ix_(free, free)]
        system[m, m] = 0.0
        fixed = -theta * zeroed
        try:
            solution = np.linalg.solve(system, np.append(u[free] - information[free] @ fixed, -fixed.sum()))
        except np.linalg.LinAlgError:
            return None
        if not np.all(np.isfinite(solution)):
            return None
        step[:] = fixed
        step[free] = solution[:m]
        leaving = free & (theta + step < 0)
        if not leaving.any():
            return step
        zeroed |= leaving
        free &= ~leaving
    return None
