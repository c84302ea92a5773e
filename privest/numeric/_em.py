"""The estimation side of the numeric mechanisms: the discretised channel of a "window" mechanism (Square Wave,
Piecewise) in closed form, the reports counted into bins, and EM with or without EMS's smoothing step (Li et al.,
SIGMOD 2020, section 5) under the paper's stopping rule or run to convergence.

A window mechanism reports y with density ``high`` on a window [u - h, u + h] and ``low`` elsewhere on its output
range [L, U], where the window's centre u moves linearly with the value. For a value uniform on a cell [u0, u1] of
centres, the probability that y <= e is

    G(e) = low (e - L) + (high - low) (Psi(e + h - u0) - Psi(e + h - u1)) / (u1 - u0),

with Psi the antiderivative of clip(z, 0, 2h) (0 below 0, z^2/2 up to 2h, 2h^2 + 2h (z - 2h) above): the mass of the
window below e, averaged over the cell. The channel's entry for a cell and a report bin [e_j, e_j+1] is
G(e_j+1) - G(e_j), so each row sums to G(U) - G(L) = 1 up to rounding. This is the matrix that Li et al.'s reference
code builds bin by bin (its ``transform``), here exact and vectorised.
"""

import math

import numpy as np

from privest.estimators import ibu

__all__: list[str] = []

PAPER_TAU = 1e-3
"""The paper's stopping threshold: EM and EMS stop once the log-likelihood of the report counts (a sum over the n
reports, not normalised) rises by less than this, or once theta moves by at most 1/n in L1 (the reference code's
``loglikelihood_threshold`` and its loop condition)."""


def _psi(z: np.ndarray, h: float) -> np.ndarray:
    """The antiderivative of clip(z, 0, 2h) that is 0 at z <= 0."""
    inside = np.clip(z, 0.0, 2 * h)
    return 0.5 * inside**2 + 2 * h * np.maximum(z - 2 * h, 0.0)


def window_channel(cells: np.ndarray, edges: np.ndarray, half: float, high: float, low: float) -> np.ndarray:
    """The discretised channel of a window mechanism (module docstring), shape (k, m).

    cells: the k + 1 edges of the cells of window centres, increasing; edges: the m + 1 edges of the report bins,
    from L to U; half: the window's half-width h; high, low: the density inside and outside the window.
    """
    u0, u1 = cells[:-1, None], cells[1:, None]
    e = edges[None, :]
    below = low * (e - edges[0]) + (high - low) * (_psi(e + half - u0, half) - _psi(e + half - u1, half)) / (u1 - u0)
    return np.maximum(np.diff(below, axis=1), 0.0)  # a difference of equal values may round to -1e-13


def bin_counts(reports: np.ndarray, low: float, high: float, bins: int) -> np.ndarray:
    """How many reports fall in each of ``bins`` equal bins of [low, high] (the last bin closed), float64."""
    index = np.floor((reports - low) * (bins / (high - low))).astype(np.int64)
    return np.bincount(np.clip(index, 0, bins - 1), minlength=bins).astype(np.float64)


def smooth(theta: np.ndarray) -> np.ndarray:
    """EMS's smoothing step (Li et al., section 5): each cell's mass replaced by the binomial average of it and its
    two neighbours, (theta_i-1 + 2 theta_i + theta_i+1) / 4, at the two ends (2 theta_0 + theta_1) / 3 and its mirror;
    the result renormalised to sum to 1."""
    if theta.size < 3:
        return theta
    out = np.empty_like(theta)
    out[1:-1] = (theta[:-2] + 2 * theta[1:-1] + theta[2:]) / 4
    out[0] = (2 * theta[0] + theta[1]) / 3
    out[-1] = (2 * theta[-1] + theta[-2]) / 3
    return out / out.sum()


def em(A: np.ndarray, counts: np.ndarray, smoothing: bool, stop: str, delta: float,
       max_iter: int) -> tuple[np.ndarray, int, float, bool]:
    """EM (smoothing False) or EMS (True) of theta from report counts through the channel A (k, m).

    stop "paper": the reference code's rule (``PAPER_TAU``): stop once an iteration after the second raises the
    log-likelihood sum_z counts_z log (theta A)_z by less than 1e-3, or moves theta by at most 1/n in L1.
    stop "converged": EM runs ``privest.ibu`` to its gap rule (the MLE's log-likelihood within delta, normalised);
    EMS iterates until the normalised log-likelihood changes by less than delta (its fixed point; EMS does not
    maximise the likelihood, so the gap does not apply).

    Returns theta (k,), the iterations, the normalised log-likelihood and whether max_iter stopped it.
    """
    if not smoothing and stop == "converged":  # every column: IBU checks that A's rows sum to 1
        result = ibu(np.ascontiguousarray(A), counts, delta=delta, max_iter=max_iter)
        return result.theta, result.iterations, result.log_likelihood, result.capped
    seen = counts > 0
    G, w = np.ascontiguousarray(A[:, seen]), counts[seen]
    n = float(w.sum())
    theta = np.full(A.shape[0], 1.0 / A.shape[0])
    products = theta @ G
    previous = -math.inf
    for iteration in range(1, max_iter + 1):
        new = theta * (G @ (w / products)) / n
        if smoothing:
            new = smooth(new)
        products = new @ G
        value = float(w @ np.log(products))
        moved = float(np.abs(new - theta).sum())
        theta = new
        if stop == "paper":
            if moved <= 1.0 / n or (iteration > 2 and abs(value - previous) < PAPER_TAU):
                return theta, iteration, value / n, False
        elif abs(value - previous) / n < delta:
            return theta, iteration, value / n, False
        previous = value
    return theta, max_iter, previous / n, True
