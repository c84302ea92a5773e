"""The IBU/GIBU iteration engine: the normalised log-likelihood of a list of groups and its EM map (free-will
Algorithm 1), the plain loop, the block loop (with privest's compiled update loop, ``privest._kernel``, where it
is built), SQUAREM, and the batch over runs. Private: ``privest.estimators.iterative`` is its API; ``IbuResult``
and ``COMPILED_KERNEL`` are re-exported there and by ``privest.estimators``.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from privest._checks import (
    check_weights,
)
from privest.groups import Group, SetGroup
from privest.intervals import Interval, fisher_interval

try:  # IBU's update loop compiled (privest/_kernel.c), built with the package where a C compiler is found
    from privest import _kernel
except ImportError:  # then numpy runs the same iteration
    _kernel = None

class _Sets:
    """The set-valued groups of one GIBU call as one sparse membership matrix M (rows: the distinct reports of every
    group, columns: secrets), each row with its two likelihood values: d_i = low_i + (high_i - low_i) theta(S_i) is
    P(z_i | x-mixture) / exp(log_scale_i), one sparse product; the GIBU update adds
    sum_i r_i low_i + sum_{i : x in S_i} r_i (high_i - low_i) to x's factor, r_i = w_i / d_i, another one."""

    def __init__(self, groups: Sequence[SetGroup], n: float) -> None:
        from scipy import sparse  # here: scipy.sparse costs 0.1 s to import

        k = groups[0].k
        starts = np.cumsum([0] + [g.indices.size for g in groups[:-1]])
        indptr = np.concatenate([[0]] + [g.indptr[1:] + start for g, start in zip(groups, starts, strict=True)])
        indices = np.concatenate([g.indices for g in groups])
        index_type = np.int32 if indices.size < 2**31 else np.int64  # one index type: scipy would copy to agree
        self.M = sparse.csr_array((np.ones(indices.size), indices.astype(index_type, copy=False),
                                   indptr.astype(index_type)), shape=(indptr.size - 1, k))
        self.MT = self.M.T  # a CSC view: its product is O(nnz) like the CSR one, without a transposed copy
        rows = [g.counts.size for g in groups]
        self.low = np.repeat([g.low for g in groups], rows)
        self.gap = np.repeat([g.high - g.low for g in groups], rows)
        self.w = np.concatenate([g.counts for g in groups]) / n

    def forward(self, theta: np.ndarray) -> np.ndarray:
        return self.low + self.gap * (self.M @ theta)

    def backward(self, d: np.ndarray) -> np.ndarray:
        ratio = self.w / d
        return float(ratio @ self.low) + self.MT @ (ratio * self.gap)

    def log_likelihood(self, d: np.ndarray) -> float:
        return float(self.w @ np.log(d))

    def information(self, theta: np.ndarray) -> np.ndarray:
        """The observed Fisher information per user of the sets' log-likelihood at theta, (k, k): report i's
        likelihood is proportional to g_i . theta with g_i = low_i 1 + gap_i m_i (m_i its membership row), so the
        information is sum_i w_i g_i g_i^T / d_i^2."""
        r = self.w / self.forward(theta) ** 2
        a = self.MT @ (r * self.low * self.gap)
        weighted = self.M.multiply((r * self.gap**2)[:, None]).tocsr()
        cross = self.MT @ weighted
        cross = cross.toarray() if hasattr(cross, "toarray") else np.asarray(cross)
        return float(r @ self.low**2) + a[:, None] + a[None, :] + cross


@dataclass(frozen=True)
class _Likelihood:
    """The normalised log-likelihood of GIBU's groups (free-will Algorithm 1) and its EM map: the matrix groups'
    columns side by side in G (k, m) with weights w (m,), the set-valued groups in ``sets``, and the constant
    ``offset`` of the column scales."""

    G: np.ndarray
    w: np.ndarray
    offset: float
    sets: _Sets | None
    n: float = 1.0

    @classmethod
    def of(cls, groups: Sequence[Group | SetGroup]) -> "_Likelihood":
        k = groups[0].k if isinstance(groups[0], SetGroup) else groups[0].G.shape[0]
        if any((g.k if isinstance(g, SetGroup) else g.G.shape[0]) != k for g in groups):
            raise ValueError(f"groups must all have k = {k} rows (secrets)")
        n = sum(g.n for g in groups)
        matrices = [g for g in groups if isinstance(g, Group)]
        sets = [g for g in groups if isinstance(g, SetGroup)]
        G = np.concatenate([g.G for g in matrices], axis=1) if matrices else np.zeros((k, 0))
        w = np.concatenate([g.counts for g in matrices]) / n if matrices else np.zeros(0)
        offset = float(sum(g.counts @ g.log_scale for g in groups) / n)
        return cls(G, w, offset, _Sets(sets, n) if sets else None, float(n))

    @property
    def k(self) -> int:
        return self.G.shape[0]

    def value(self, theta: np.ndarray) -> float:
        """L(theta)."""
        value = float(self.w @ np.log(theta @ self.G)) + self.offset
        return value + self.sets.log_likelihood(self.sets.forward(theta)) if self.sets else value

    def em(self, theta: np.ndarray) -> np.ndarray:
        """One GIBU update (free-will Algorithm 1, line 5)."""
        update = self.G @ (self.w / (theta @ self.G))
        return theta * (update + self.sets.backward(self.sets.forward(theta)) if self.sets else update)

    def information(self, theta: np.ndarray) -> np.ndarray:
        """The observed Fisher information of all n users at theta, (k, k): n sum_z w_z G_z G_z^T / (theta G_z)^2
        for the matrix columns, plus the sets' (``_Sets.information``)."""
        scaled = self.G * (np.sqrt(self.w) / (theta @ self.G))
        information = scaled @ scaled.T
        return self.n * (information + self.sets.information(theta) if self.sets else information)


@dataclass(frozen=True)
class IbuResult:
    """An IBU/GIBU estimate with how it stopped: iterations run, the final normalised log-likelihood, and whether
    the iteration cap stopped it before the change of the log-likelihood fell below delta.

    Attributes
    ----------
    theta : numpy.ndarray, shape (k,)
        The estimated distribution over the secrets, summing to 1.
    iterations : int
        The iterations run.
    log_likelihood : float
        The normalised log-likelihood L(theta) of free-will Algorithm 1 at the estimate.
    capped : bool
        True if ``max_iter`` stopped the iteration before the change of L fell below ``delta``.
    likelihood : optional
        The likelihood the estimate maximises (set by ``ibu``, ``gibu``, ``squarem`` and the batches), for
        ``interval``; None in a result built otherwise.
    """

    theta: np.ndarray
    iterations: int
    log_likelihood: float
    capped: bool
    likelihood: "_Likelihood | None" = field(default=None, repr=False, compare=False)

    def interval(self, level: float = 0.95) -> Interval:
        """Wald intervals for theta from the observed Fisher information of the likelihood at the estimate,
        restricted to the simplex (``privest.intervals.fisher_interval``). Valid where the MLE is interior (every
        entry positive and its interval clear of 0); near the boundary use ``privest.bootstrap``.

        Parameters
        ----------
        level : float
            The confidence level, in (0, 1).

        Returns
        -------
        Interval
            The estimate and each secret's interval (method "fisher").
        """
        if self.likelihood is None:
            raise ValueError("this result holds no likelihood (it was not built by ibu, gibu, squarem or a batch): "
                             "run privest.ibu or privest.gibu for an interval")
        return fisher_interval(self.theta, self.likelihood.information(self.theta), level)


# The block kernel of ``_iterate``: used while G has at most _BLOCK_WORK entries (beyond, a product costs far more than
# numpy's call overhead and the plain loop is as fast), with at most _BLOCK_ROWS iterations a block and buffers of at
# most about _BLOCK_BYTES.
_BLOCK_WORK = 1 << 18


_BLOCK_ROWS = 64


_BLOCK_BYTES = 1 << 21


# The compiled update loop (privest._kernel) runs the blocks' updates while G has at most _KERNEL_WORK entries: k = 100,
# 1.6-1.7 us an iteration against numpy's 3.5 us (benchmarks/bench_ibu.py); at k = 1000 numpy's BLAS is faster.
_KERNEL_WORK = 1 << 16


COMPILED_KERNEL = _kernel is not None
"""Whether privest's compiled IBU update loop (``privest._kernel``) is installed. It runs single-problem IBU and
GIBU on matrix mechanisms of up to 65,536 entries (k = 256 square), and ``ibu_runs`` run by run there: the same
stopping rule and iterations, with the two products summed in a fixed order (the same bits on every CPU and BLAS),
which differ from numpy's BLAS products in the last bits. Without a C compiler at install, numpy runs them."""


_EPS = float(np.finfo(np.float64).eps) / 2  # the unit roundoff u


def _iterate(likelihood: _Likelihood, theta: np.ndarray, delta: float, max_iter: int) -> IbuResult:
    """The GIBU iteration from theta: per iteration one division, two matrix-vector products (and two sparse ones
    for set-valued groups), a log and a dot product, into reused buffers (numpy's call overhead, not arithmetic, is
    the cost at k = 100). Stops at the first t with ``|L(theta^t) - L(theta^{t-1})| < delta``.

    Matrix groups of up to _BLOCK_WORK entries go to ``_iterate_blocks``, which gives the same result bit for bit."""
    G, w, offset, sets = likelihood.G, likelihood.w, likelihood.offset, likelihood.sets
    if sets is None and 0 < G.size <= _BLOCK_WORK:
        return _iterate_blocks(G, w, offset, theta, delta, max_iter)
    GT = np.ascontiguousarray(G.T)
    theta = theta.copy()
    m = theta @ G
    d = sets.forward(theta) if sets else None
    ratio, update, log_m = np.empty_like(m), np.empty_like(theta), np.empty_like(m)
    previous = float(w @ np.log(m)) + offset + (sets.log_likelihood(d) if sets else 0.0)
    for t in range(1, max_iter + 1):
        np.divide(w, m, out=ratio)
        np.dot(G, ratio, out=update)
        if sets:
            update += sets.backward(d)
        theta *= update
        np.dot(GT, theta, out=m)
        np.log(m, out=log_m)
        current = float(np.dot(w, log_m)) + offset
        if sets:
            d = sets.forward(theta)
            current += sets.log_likelihood(d)
        if abs(current - previous) < delta:
            return IbuResult(theta / theta.sum(), t, current, False)
        previous = current
    return IbuResult(theta / theta.sum(), max_iter, current, True)


def _iterate_blocks(G: np.ndarray, w: np.ndarray, offset: float, theta: np.ndarray, delta: float,
                    max_iter: int) -> IbuResult:
    """``_iterate`` on matrix groups alone, bit for bit (same theta, iterations and L), with four numpy calls per
    iteration instead of eight: the stopping rule is tested once per block of iterations. Where the compiled loop
    applies (``COMPILED_KERNEL``, G of at most _KERNEL_WORK entries), one call to it runs a block's updates, its
    products summed row by row in a fixed order; the rest is the same.

    A block runs b updates with the same operations as ``_iterate`` (bound methods and positional outputs: numpy's
    call overhead is most of an iteration's cost at k = 100), keeping each theta^t and m^t = G^T theta^t in rows of
    two buffers. Then one log and one matrix-vector product give every L(theta^t) of the block to within the rounding
    error of an m-term dot product of the logs, which bounds how far ``_iterate``'s own L (a dot product of the same
    logs) can lie from it. Only where the change is below delta plus twice that bound can the rule hold, and there L
    is computed as ``_iterate`` computes it; the first iteration of the block where the rule holds is the result, and
    the iterations run past it are discarded. Blocks grow with t: at most max(16, t / 8) iterations run past the stop
    (max(32, t / 8) with the compiled loop, whose updates cost less than a block's test).
    """
    k, columns = G.shape
    rows = min(_BLOCK_ROWS, max(16, _BLOCK_BYTES // (8 * (k + 2 * columns))))
    GT = np.ascontiguousarray(G.T)
    T, M = np.empty((rows + 1, k)), np.empty((rows + 1, columns))
    logs = np.empty_like(M)
    ratio, update, log_m = np.empty(columns), np.empty(k), np.empty(columns)
    T[0] = theta
    m = theta @ G  # as _iterate starts: theta @ G, not GT @ theta (another summation order), on G as given
    M[0] = m
    compiled = _kernel is not None and G.size <= _KERNEL_WORK
    if compiled:  # the compiled loop reads C-contiguous float64 buffers; its blocks start larger (cheap updates)
        G, w = np.ascontiguousarray(G, dtype=np.float64), np.ascontiguousarray(w, dtype=np.float64)
        T_rows, M_rows, smallest = T, M, min(rows, 32)
    else:
        T_rows, M_rows, smallest = list(T), list(M), 16  # row views, made once
        divide, multiply, G_dot, GT_dot = np.divide, np.multiply, G.dot, GT.dot
    # m^t_z <= max_x G_xz: where G <= 1 (probabilities) every log m is <= 0 and the bound needs no block maximum
    logs_at_most_zero = float(G.max()) <= 1.0
    start = float(w @ np.log(m)) + offset
    # |_iterate's L - (approx + offset)| <= gamma * S for S >= sum_z w_z |log m_z| + |offset| + 1: twice the bound of
    # an m-term dot product, each log within a few ulps, and the addition of the offset
    gamma = 4 * (columns + 4) * _EPS
    total = 1.01 * float(w.sum())

    def exact(j: int) -> float:
        """L(theta^(t+j)) computed as ``_iterate`` does."""
        return float(np.dot(w, np.log(M_rows[j], out=log_m))) + offset

    t, known = 0, {0: start}  # known: the exact L of rows of this block, by row
    while True:
        b = min(rows, max_iter - t, max(smallest, t // 8))
        if compiled:
            _kernel.ibu_updates(G, GT, w, T, M, ratio, k, columns, b)
        else:
            steps = zip(M_rows[:b], T_rows[:b], T_rows[1 : b + 1], M_rows[1 : b + 1], strict=True)
            for m_old, theta_old, theta_new, m_new in steps:
                divide(w, m_old, ratio)
                G_dot(ratio, update)
                multiply(theta_old, update, theta_new)
                GT_dot(theta_new, m_new)
        with np.errstate(all="ignore"):
            block_logs = np.log(M[: b + 1], out=logs[: b + 1])
            approx = block_logs @ w  # L(theta^(t+j)) - offset, j = 0..b, up to rounding
            largest_log = 0.0 if logs_at_most_zero else max(float(block_logs.max()), 0.0)
            size = float(np.abs(approx).max()) + 2 * largest_log * total + abs(offset) + 1.0
            threshold = (delta + 2 * gamma * size) / (1 - 4 * _EPS)
            change = np.abs(approx[1:] - approx[:-1])
        # below the threshold the rule may hold; above it, it cannot (a NaN or infinite L makes every row a candidate)
        candidates = np.flatnonzero(change < threshold) if math.isfinite(threshold) else range(b)
        for j in candidates:
            j = int(j) + 1
            if j - 1 not in known:
                known[j - 1] = exact(j - 1)
            known[j] = current = exact(j)
            if abs(current - known[j - 1]) < delta:
                return IbuResult(T_rows[j] / T_rows[j].sum(), t + j, current, False)
        t += b
        if t == max_iter:
            return IbuResult(T_rows[b] / T_rows[b].sum(), max_iter, known[b] if b in known else exact(b), True)
        T[0], M[0] = T[b], M[b]
        known = {0: known[b]} if b in known else {}


def _squarem(likelihood: _Likelihood, theta: np.ndarray, delta: float | None, max_iter: int, tol: float | None = None,
            step_max0: float = 1.0, step_factor: float = 4.0) -> IbuResult:
    """GIBU accelerated by SQUAREM (Varadhan & Roland 2008, scheme S3): the same fixed points, far fewer updates.

    From theta: theta1 = F(theta), theta2 = F(theta1) with F the GIBU update; r = theta1 - theta, v = theta2 - 2
    theta1 + theta; alpha = ||r|| / ||v|| clipped to [1, step_max]; the extrapolation theta + 2 alpha r + alpha^2 v
    (still summing to 1) is halved towards theta2 (alpha = 1) until non-negative, then one GIBU update; if that lowers
    the log-likelihood, theta2 is taken instead and step_max shrinks, else step_max grows by step_factor when reached.
    Each step costs three updates and never lowers L. Stops when a step changes L by less than delta, or when
    ``max |theta1 - theta| < tol`` (either may be None), else after the step that reaches max_iter updates (capped).
    ``iterations`` counts GIBU updates.
    """
    current = likelihood.value(theta)
    step_max, updates = step_max0, 0
    while updates < max_iter:
        theta1 = likelihood.em(theta)
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
        candidate = likelihood.em(proposal)
        updates += 1
        candidate /= candidate.sum()
        value = likelihood.value(candidate)
        if not np.isfinite(value) or value < current:
            candidate = theta2 / theta2.sum()
            value = likelihood.value(candidate)
            step_max = max(step_max0, step_max / step_factor)
        elif alpha >= step_max:
            step_max *= step_factor
        change, theta, current = abs(value - current), candidate, value
        if delta is not None and change < delta:
            return IbuResult(theta, updates, current, False)
    return IbuResult(theta, updates, current, True)


def _iterate_batch(G: np.ndarray, W: np.ndarray, delta: float, max_iter: int) -> list[IbuResult]:
    """``_iterate`` for R problems sharing the columns G, row r of W (R, m) the weights of problem r, all from
    the uniform distribution: matrix-matrix products instead of matrix-vector ones. A problem leaves the batch at
    its own stopping iteration, so each result equals that of ``_iterate`` on its own. A column that a problem
    did not report (weight 0) takes no part in its update or likelihood, as in ``_iterate``, even where that
    problem's estimate gives the column probability 0 (which would make 0/0). One problem, or any number where the
    compiled loop applies, goes to ``_iterate`` one at a time, on its reported columns (matrix-vector products,
    cheaper than the batch's at small k): each result is then ``ibu``'s bit for bit."""
    R, k = W.shape[0], G.shape[0]
    if R == 1 or (_kernel is not None and 0 < G.size <= _KERNEL_WORK):  # the compiled loop beats the batch there
        return [_iterate(_Likelihood(G[:, w > 0], w[w > 0], 0.0, None), _start(k, None), delta, max_iter)
                for w in W]
    GT = np.ascontiguousarray(G.T)
    index, T = np.arange(R), np.full((R, k), 1.0 / k)
    M = T @ G
    previous = np.einsum("ij,ij->i", W, np.log(M, out=np.zeros_like(M), where=W > 0))
    results: list[IbuResult] = [None] * R  # type: ignore[list-item]
    for t in range(1, max_iter + 1):
        T *= np.divide(W, M, out=np.zeros_like(W), where=W > 0) @ GT
        M = T @ G
        current = np.einsum("ij,ij->i", W, np.log(M, out=np.zeros_like(M), where=W > 0))
        converged = np.abs(current - previous) < delta
        done = converged | (t == max_iter)
        if done.any():
            for i in np.flatnonzero(done):
                results[index[i]] = IbuResult(T[i] / T[i].sum(), t, float(current[i]), not converged[i])
            keep = ~done
            index, T, W, M, current = index[keep], T[keep], W[keep], M[keep], current[keep]
            if not index.size:
                break
        previous = current
    return results


def _start(k: int, theta0: np.ndarray | None) -> np.ndarray:
    theta = np.full(k, 1.0 / k) if theta0 is None else check_weights(theta0, k, "theta0")
    if np.any(theta <= 0):
        raise ValueError("theta0 must have full support (every entry positive)")
    return theta / theta.sum()
