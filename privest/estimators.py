"""Estimators of the original distribution theta from privatised reports (free-will sections 4-6, IBU paper 3 and 8).

Reports of one mechanism enter as a ``Group``: the columns of the mechanism for the observables that were reported,
and how often each was reported. A matrix mechanism's group is its matrix and the counts of its columns; a RAPPOR
group holds one column per distinct bit vector. GIBU (free-will Algorithm 1) works on any list of groups; IBU is GIBU
with one group.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from privest._checks import (
    as_array,
    check_bits,
    check_choice,
    check_distribution,
    check_finite,
    check_instance,
    check_int,
    check_integers,
    check_matrix,
    check_non_negative,
    check_non_negative_array,
    check_positive,
    check_row_stochastic,
    check_sequence,
    check_stopping,
    check_weights,
)
from privest.mechanisms import average
from privest.rappor import RapporReports, flip_probability, log_probability

try:  # IBU's update loop compiled (privest/_kernel.c), built with the package where a C compiler is found
    from privest import _kernel
except ImportError:  # then numpy runs the same iteration
    _kernel = None

Post = Literal["projection", "normalization"] | None


@dataclass(frozen=True)
class Group:
    """The reports of the users of one mechanism, as needed by the likelihood.

    Build it with ``matrix_group`` (a matrix mechanism) or ``rappor_group`` (RAPPOR reports), then pass a list of
    groups to ``gibu``.

    Attributes
    ----------
    G : numpy.ndarray, shape (k, m)
        G[x, j] = P(z_j | x) / exp(log_scale[j]) for the m observables z_j that were reported.
    counts : numpy.ndarray, shape (m,)
        How many users reported z_j (any non-negative weights; only their ratios and sum matter).
    log_scale : numpy.ndarray, shape (m,)
        The column scales, so that the log-likelihood is exact while G stays in floating range.
    n : float
        The number of users of the group, ``counts.sum()`` (n^A of Algorithm 1).
    """

    G: np.ndarray
    counts: np.ndarray
    log_scale: np.ndarray

    @classmethod
    def _of_checked(cls, G: np.ndarray, counts: np.ndarray, log_scale: np.ndarray) -> "Group":
        """A group of arrays its caller has checked already (``matrix_group``): checking them again would cost more
        than a hundred IBU iterations at k = 100."""
        group = object.__new__(cls)
        for name, value in (("G", G), ("counts", counts), ("log_scale", log_scale)):
            object.__setattr__(group, name, value)
        return group

    def __post_init__(self) -> None:
        m = check_matrix(self.G, "G").shape[1]
        check_non_negative_array(self.counts, "counts", shape=(m,), positive_sum=True)
        check_finite(self.log_scale, "log_scale", shape=(m,))

    @property
    def n(self) -> float:
        return float(self.counts.sum())


@dataclass(frozen=True)
class SetGroup:
    """The reports of the users of one set-valued protocol (``privest.protocols``), grouped by distinct report.

    P(report_i | x) = exp(log_scale[i]) * (high if x in S_i else low), with S_i the set of report i held in CSR form
    (the members of S_i are ``indices[indptr[i]:indptr[i + 1]]``). GIBU iterates on it in O(sum of |S_i|), never
    forming the k x |Z| matrix (OLH's Z holds 2^32 g reports). Build it with ``Protocol.group``.

    Attributes
    ----------
    k : int
        The number of secrets.
    indptr : numpy.ndarray of int64, shape (m + 1,)
        Where each distinct report's set starts in ``indices``.
    indices : numpy.ndarray of int32, shape (nnz,)
        The members of the sets, one after the other.
    counts : numpy.ndarray, shape (m,)
        How many users sent each distinct report.
    high, low : float
        The two likelihood values (up to the report's factor), for secrets in and out of the set; both positive.
    log_scale : numpy.ndarray, shape (m,)
        The log of each report's factor, so that the log-likelihood is exact.
    """

    k: int
    indptr: np.ndarray
    indices: np.ndarray
    counts: np.ndarray
    high: float
    low: float
    log_scale: np.ndarray

    def __post_init__(self) -> None:
        check_int(self.k, "k", minimum=1)
        indptr = check_integers(self.indptr, "indptr", 0, None, ndim=1)
        m = indptr.size - 1
        counts = check_non_negative_array(self.counts, "counts", ndim=1, positive_sum=True)
        if counts.shape != (m,):
            raise ValueError(f"counts must have one entry per report of indptr ({m}), got shape {counts.shape}")
        check_integers(self.indices, "indices", 0, self.k, ndim=1)
        check_finite(self.log_scale, "log_scale", shape=(m,))
        check_positive(self.high, "high")
        check_positive(self.low, "low")
        if self.indptr.shape != (m + 1,) or self.log_scale.shape != (m,) or self.indptr[-1] != self.indices.size:
            raise ValueError("SetGroup: indptr, indices, counts and log_scale do not describe the same reports")
        if not (self.high > 0 and self.low > 0):
            raise ValueError(f"SetGroup: high and low must be positive, got {self.high}, {self.low}")
        if self.indices.size and (self.indices.min() < 0 or self.indices.max() >= self.k):
            raise ValueError(f"SetGroup: set members must lie in 0..{self.k - 1}")

    @property
    def n(self) -> float:
        return float(self.counts.sum())


def matrix_group(A: np.ndarray, counts: np.ndarray) -> Group:
    """The group of a matrix mechanism A (k, m) whose columns were reported counts[z] times.

    Parameters
    ----------
    A : array_like, shape (k, m)
        The mechanism, rows summing to 1 within 1e-9.
    counts : array_like, shape (m,)
        How often each observable was reported (or the frequencies q^A: only the ratios matter to ``gibu`` alone,
        the sum weighs this group against the others, n^A in Algorithm 1).

    Returns
    -------
    Group
        The columns of A that were reported, with their counts (the triplet (Z^A, q^A, n^A) of free-will Algorithm 1).

    Raises
    ------
    ValueError
        If A is not row-stochastic, counts has the wrong shape, a negative or non-finite entry or a zero sum, or an
        observable was reported that no secret can produce under A.
    """
    A = check_row_stochastic(A, "A", atol=1e-9)
    return _reported_columns(A, check_weights(counts, A.shape[1], "counts"))


def _reported_columns(A: np.ndarray, counts: np.ndarray) -> Group:
    """``matrix_group`` on a checked A and counts."""
    seen = counts > 0
    G = A[:, seen]  # a copy, always: its layout fixes the bits of the first product (theta @ G)
    if np.any(G.max(axis=0) <= 0):
        raise ValueError("counts: an observable was reported that no secret can produce under A")
    return Group._of_checked(G, counts[seen], np.zeros(G.shape[1]))


def rappor_group(reports: RapporReports) -> Group:
    """The group of RAPPOR reports: one column per distinct bit vector (IBU paper, lemma in section 4.4).

    P(beta | x) = p^k e^{-(1/2 + S(beta)/2 - beta_x) eps}; stored as G = e^{eps (beta_x - 1)} times a column scale.

    Parameters
    ----------
    reports : RapporReports
        The grouped reports of one RAPPOR mechanism (free-will eq. 12) on k secrets, m distinct bit vectors.

    Returns
    -------
    Group
        A group with k rows and one column per distinct report, never the 2^k-column matrix.
    """
    check_instance(reports, "reports", RapporReports, "a privest.RapporReports")
    log_p = log_probability(reports.bits, reports.eps)
    log_scale = log_p.max(axis=0)
    return Group(np.exp(log_p - log_scale), reports.counts.astype(np.float64), log_scale)


Accelerate = Literal["squarem"] | None
GroupLike = Group | SetGroup | tuple


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


@dataclass(frozen=True)
class _Likelihood:
    """The normalised log-likelihood of GIBU's groups (free-will Algorithm 1) and its EM map: the matrix groups'
    columns side by side in G (k, m) with weights w (m,), the set-valued groups in ``sets``, and the constant
    ``offset`` of the column scales."""

    G: np.ndarray
    w: np.ndarray
    offset: float
    sets: _Sets | None

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
        return cls(G, w, offset, _Sets(sets, n) if sets else None)

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


def log_likelihood(theta: np.ndarray, groups: Sequence[GroupLike]) -> float:
    """The normalised log-likelihood L(theta) = sum_A (n^A/n) sum_z q^A_z log sum_x theta_x A_xz (Algorithm 1).

    theta: a distribution over the k secrets; groups: as in ``gibu``."""
    check_sequence(groups, "groups", minimum=1)
    likelihood = _Likelihood.of([_as_group(item) for item in groups])
    return likelihood.value(check_distribution(theta, "theta", likelihood.k))


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
    """

    theta: np.ndarray
    iterations: int
    log_likelihood: float
    capped: bool


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
    the cost at k = 100). Stops at the first t with |L(theta^t) - L(theta^{t-1})| < delta.

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
    max |theta1 - theta| < tol (either may be None), else after the step that reaches max_iter updates (capped).
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


def squarem(groups: Sequence[GroupLike], delta: float | None = 1e-10, max_iter: int = 10_000, tol: float | None = None,
            theta0: np.ndarray | None = None) -> IbuResult:
    """GIBU accelerated by SQUAREM (Varadhan & Roland 2008, scheme S3), with its two stopping rules.

    From theta: theta1 = F(theta), theta2 = F(theta1) with F the GIBU update; r = theta1 - theta, v = theta2 - 2
    theta1 + theta; alpha = ||r|| / ||v|| clipped to [1, step_max]; the extrapolation theta + 2 alpha r + alpha^2 v
    (still summing to 1) is halved towards theta2 (alpha = 1) until non-negative, then one GIBU update; if that lowers
    the log-likelihood, theta2 is taken instead and step_max shrinks, else step_max grows fourfold when reached.
    Each step costs three updates and never lowers L.

    Parameters
    ----------
    groups : sequence
        As in ``gibu``.
    delta : float or None
        Stop when a step changes the normalised log-likelihood by less than delta (None: never).
    max_iter : int
        Stop after the step that reaches this many GIBU updates (then ``capped=True``).
    tol : float or None
        Stop when an update moves no entry of theta by tol or more (None: never).
    theta0 : array_like, shape (k,), optional
        The starting distribution, with full support (default: uniform).

    Returns
    -------
    IbuResult
        ``iterations`` counts GIBU updates (three per step, one for the last step a tol stop ends).
    """
    check_sequence(groups, "groups", minimum=1)
    delta = None if delta is None else check_positive(delta, "delta")
    tol = None if tol is None else check_positive(tol, "tol")
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    likelihood = _Likelihood.of([_as_group(item) for item in groups])
    return _squarem(likelihood, _start(likelihood.k, theta0), delta, max_iter, tol)


def _as_group(item: GroupLike) -> Group | SetGroup:
    """A GIBU group from what a caller holds: a group, a (protocol, reports) pair or a (matrix, counts) pair."""
    if isinstance(item, Group | SetGroup):
        return item
    if isinstance(item, tuple) and len(item) == 2:
        mechanism, reports = item
        if hasattr(mechanism, "group"):
            return mechanism.group(reports)
        if isinstance(mechanism, np.ndarray | list):
            return matrix_group(mechanism, reports)
    raise TypeError("groups: each item must be a Group, a SetGroup, a (protocol, reports) pair or a (matrix, counts) "
                    f"pair, got {type(item).__name__}")


def gibu(groups: Sequence[GroupLike], delta: float = 1e-10, max_iter: int = 10_000,
         theta0: np.ndarray | None = None, accelerate: Accelerate = None) -> IbuResult:
    """Generalised IBU (free-will Algorithm 1): the MLE of theta from the reports of several mechanisms.

    theta^{t+1}_x = sum_A (n^A/n) sum_z q^A_z theta^t_x A_xz / sum_u theta^t_u A_uz: the columns of all matrix groups
    side by side, two matrix-vector products per iteration whatever the number of users; the set-valued protocols'
    distinct reports as one sparse membership matrix, two sparse products per iteration costing O(sum of |S|). It
    equals the per-user update (free-will eq. 15) with users grouped by mechanism and report.

    Parameters
    ----------
    groups : sequence of Group, SetGroup, (Protocol, reports) or (matrix, counts)
        The reports of each mechanism, all on the same k secrets: groups from ``matrix_group``, ``rappor_group`` or
        ``Protocol.group``, or the pairs those take (a protocol of ``privest.protocols`` and its reports; a
        row-stochastic matrix and its report counts).
    delta : float
        Stop when |L(theta^t) - L(theta^{t-1})| < delta (L the normalised log-likelihood).
    max_iter : int
        Stop after this many iterations at most (then ``capped=True``).
    theta0 : array_like, shape (k,), optional
        The starting distribution, with full support (default: uniform).
    accelerate : {None, "squarem"}
        "squarem" runs SQUAREM (``squarem``): three updates per step, stopping when a step changes L by less than
        delta or after the step that reaches max_iter updates; ``iterations`` then counts updates.

    Returns
    -------
    IbuResult
        theta (k,), the iterations used, the final log-likelihood and whether the cap stopped it.

    Raises
    ------
    ValueError
        If groups is empty, an item is not one of the above, the groups have different numbers of secrets,
        delta <= 0 or max_iter < 1, theta0 has the wrong shape or a zero entry, or accelerate is unknown.

    Examples
    --------
    k-RR users and geometric users, with exact report frequencies: GIBU returns theta.

    >>> import numpy as np
    >>> import privest
    >>> theta = np.array([0.1, 0.2, 0.3, 0.4])
    >>> A, B = privest.krr(4, 1.0), privest.geometric(4, 1.0)
    >>> groups = [privest.matrix_group(A, 600 * theta @ A), privest.matrix_group(B, 400 * theta @ B)]
    >>> result = privest.gibu(groups, delta=1e-14)
    >>> print(result.theta.round(3), result.capped)
    [0.1 0.2 0.3 0.4] False
    """
    check_sequence(groups, "groups", minimum=1)
    delta, max_iter = check_stopping(delta, max_iter)
    check_choice(accelerate, "accelerate", (None, "squarem"))
    likelihood = _Likelihood.of([_as_group(item) for item in groups])
    theta = _start(likelihood.k, theta0)
    if accelerate == "squarem":
        return _squarem(likelihood, theta, delta, max_iter)
    return _iterate(likelihood, theta, delta, max_iter)


def ibu(A: np.ndarray, q: np.ndarray, delta: float = 1e-10, max_iter: int = 10_000,
        theta0: np.ndarray | None = None, accelerate: Accelerate = None) -> IbuResult:
    """IBU (free-will eq. 10; IBU paper Algorithm 1) on one mechanism A (k, m) and the counts or frequencies q (m,).

    GIBU with one group: ``gibu([matrix_group(A, q)], ...)``.

    Parameters
    ----------
    A : array_like, shape (k, m)
        The mechanism, rows summing to 1 within 1e-9.
    q : array_like, shape (m,)
        The report counts (or frequencies) over the columns of A.
    delta, max_iter, theta0, accelerate
        The stopping rule, the start and the acceleration, as in ``gibu``.

    Returns
    -------
    IbuResult
        theta (k,), the iterations used, the final log-likelihood and whether the cap stopped it.

    Raises
    ------
    ValueError
        As ``matrix_group`` and ``gibu``.

    Examples
    --------
    >>> import numpy as np
    >>> import privest
    >>> A = privest.geometric(5, 0.5)
    >>> rng = privest.rng_for(2026, "ibu doctest")
    >>> q = privest.sample_counts(A, np.array([1000, 3000, 4000, 1500, 500]), rng)
    >>> result = privest.ibu(A, q)
    >>> result.theta.shape, bool(abs(result.theta.sum() - 1) < 1e-12), result.capped
    ((5,), True, False)
    """
    A = check_row_stochastic(A, "A", atol=1e-9)
    q = check_weights(q, A.shape[1], "q")
    return gibu([_reported_columns(A, q)], delta=delta, max_iter=max_iter, theta0=theta0, accelerate=accelerate)


def ibu_runs(A: np.ndarray, counts: np.ndarray, delta: float = 1e-10, max_iter: int = 10_000) -> list[IbuResult]:
    """IBU on many runs' report counts (R, m) through one mechanism A, batched: each run's result is that of
    ``ibu(A, counts[r])`` (same iterations, same stopping), at the cost of matrix-matrix products.

    Parameters
    ----------
    A : array_like, shape (k, m)
        The mechanism, rows summing to 1 within 1e-9.
    counts : array_like, shape (R, m)
        Row r holds the report counts of run r.
    delta, max_iter
        The stopping rule, as in ``gibu`` (each run stops on its own).

    Returns
    -------
    list of IbuResult
        One per run, in order.

    Raises
    ------
    ValueError
        If counts is not (R, m), a run's counts are invalid for ``matrix_group``, delta <= 0 or max_iter < 1.
    """
    A = check_row_stochastic(A, "A", atol=1e-9)
    counts = as_array(counts, "counts")
    if counts.ndim != 2 or counts.shape[1] != A.shape[1]:
        raise ValueError(f"counts must have shape (runs, {A.shape[1]}), got {counts.shape}")
    for run in counts:
        matrix_group(A, run)  # validates every run's counts
    delta, max_iter = check_stopping(delta, max_iter)
    seen = counts.max(axis=0) > 0
    return _iterate_batch(A[:, seen], counts[:, seen] / counts.sum(axis=1, keepdims=True), delta, max_iter)


def project_simplex(v: np.ndarray) -> np.ndarray:
    """The Euclidean projection of v onto the probability simplex (Wang & Carreira-Perpinan, free-will ref. [14]).

    Sort-based: with u sorted decreasingly, rho = max{j : u_j + (1 - sum_{i<=j} u_i)/j > 0}, and the projection is
    max(v + lambda, 0) with lambda = (1 - sum_{i<=rho} u_i)/rho. This is INV-P's post-processing (free-will
    section 5.1).

    Parameters
    ----------
    v : array_like, shape (k,)
        Any finite vector, e.g. a raw INV estimate with negative entries.

    Returns
    -------
    numpy.ndarray, shape (k,)
        The distribution closest to v in Euclidean distance (non-negative, summing to 1).

    Raises
    ------
    ValueError
        If v is empty, not 1-D or not finite.

    Examples
    --------
    >>> import privest
    >>> privest.project_simplex([0.75, 0.75, -0.5])
    array([0.5, 0.5, 0. ])
    """
    v = check_finite(v, "v", ndim=1)
    if v.size == 0:
        raise ValueError(f"v must be a non-empty finite 1-D array, got shape {v.shape}")
    # The projection of v + c (1, ..., 1) is that of v: shifted so that its largest entry is 0, the sums below lose
    # no precision however large v is (a raw INV estimate at a tiny eps holds entries ~ 1/eps; unshifted, 1e17 + (1 -
    # 1e17) rounds to 0 and no rho is found). An entry more than 1 below the largest projects to 0, so clipping the
    # shifted entries at -2 changes nothing and keeps v - max(v) from overflowing.
    with np.errstate(over="ignore"):
        v = np.maximum(v - v.max(), -2.0)
    u = np.sort(v)[::-1]
    css = np.cumsum(u)
    j = np.arange(1, v.size + 1)
    rho = np.flatnonzero(u + (1 - css) / j > 0)[-1] + 1  # j = 1 always qualifies: u_1 = 0
    return np.maximum(v + (1 - css[rho - 1]) / rho, 0.0)


def normalise(v: np.ndarray) -> np.ndarray:
    """Truncate the negative entries of v to 0 and rescale to sum 1 (free-will section 5.1, 'normalization').

    This is INV-N's post-processing.

    Parameters
    ----------
    v : array_like, shape (k,)
        Any vector with a positive entry.

    Returns
    -------
    numpy.ndarray, shape (k,)
        max(v, 0) / sum(max(v, 0)).

    Raises
    ------
    ValueError
        If v has no positive entry.
    """
    v = np.maximum(check_finite(v, "v", ndim=1), 0.0)
    if not v.size or v.max() <= 0:
        raise ValueError("v has no positive entry: normalization (post='normalization', INV-N) is undefined")
    v = v / v.max()  # first to at most 1: a sum of entries near the largest float would overflow to inf
    return v / v.sum()


def post_process(v: np.ndarray, post: Post) -> np.ndarray:
    """Apply the post-processing named by ``post`` ('projection', 'normalization' or None for the raw vector)."""
    check_choice(post, "post", POSTS)
    if post == "projection":
        return project_simplex(v)
    if post == "normalization":
        return normalise(v)
    return check_finite(v, "v", ndim=1)


CONDITION_LIMIT = 1e12
POSTS = (None, "projection", "normalization")


def inv(A: np.ndarray, q: np.ndarray, post: Post = None) -> np.ndarray:
    """INV (free-will eq. 7 with one mechanism): solve theta A = q for a square mechanism, then post-process.

    q holds counts or frequencies over the columns of A. A whose condition number (the 1-norm estimate of LAPACK
    gecon, from the LU factors the solve uses) reaches 1e12 counts as singular. The inverse is never formed.

    Parameters
    ----------
    A : array_like, shape (k, k)
        A square mechanism, rows summing to 1 within 1e-9.
    q : array_like, shape (k,)
        The report counts or frequencies over the columns of A (normalised to sum 1 here).
    post : {None, "projection", "normalization"}
        None for the raw solution (may be negative), "projection" for INV-P (``project_simplex``),
        "normalization" for INV-N (``normalise``).

    Returns
    -------
    numpy.ndarray, shape (k,)
        The estimate of theta.

    Raises
    ------
    ValueError
        If A is not square and row-stochastic, A is singular (condition number >= 1e12), q is not non-negative of
        shape (k,) with a positive sum, or post is not one of the values above.
    """
    check_choice(post, "post", POSTS)
    A = check_row_stochastic(A, "A", atol=1e-9)
    if A.shape[0] != A.shape[1]:
        raise ValueError(f"A must be square for INV, got shape {A.shape}")
    q = check_weights(q, A.shape[1], "q")
    return post_process(inv_runs(A, q[None, :])[0], post)


def inv_runs(A: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The raw INV vectors v (free-will eq. 7) of many runs' counts (R, m) through one square mechanism: one
    condition estimate and one LU factorisation for all runs. Rows may be negative; post-process each.

    Parameters
    ----------
    A : array_like, shape (k, k)
        A square mechanism, rows summing to 1 within 1e-9.
    counts : array_like, shape (R, k)
        Row r holds the report counts of run r.

    Returns
    -------
    numpy.ndarray, shape (R, k)
        Row r solves v A = counts[r] / counts[r].sum().

    Raises
    ------
    ValueError
        If A is not square and row-stochastic, A is singular (condition number >= 1e12), or a row of counts is not
        non-negative with a positive sum.
    """
    A = check_row_stochastic(A, "A", atol=1e-9)
    if A.shape[0] != A.shape[1]:
        raise ValueError(f"A must be square for INV, got shape {A.shape}")
    counts = as_array(counts, "counts")
    if counts.ndim != 2 or counts.shape[1] != A.shape[1]:
        raise ValueError(f"counts must have shape (runs, {A.shape[1]}), got {counts.shape}")
    for run in counts:
        check_weights(run, A.shape[1], "counts")
    factors = _factor_transpose(A)
    from scipy.linalg import lu_solve

    return lu_solve(factors, (counts / counts.sum(axis=1, keepdims=True)).T, check_finite=False).T


def _factor_transpose(A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The LU factors of A^T (LAPACK getrf, as ``numpy.linalg.solve`` computes them), after checking that A is not
    singular for INV: its 1-norm condition number, estimated from the factors by LAPACK gecon in O(k^2), is below
    CONDITION_LIMIT. The estimate costs a fraction of the factorisation; the full SVD of ``numpy.linalg.cond`` cost
    100 times the solve at k = 2000."""
    import warnings

    from scipy.linalg import LinAlgWarning, lapack, lu_factor

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LinAlgWarning)  # an exact zero pivot: reported below as singular
        lu, pivots = lu_factor(A.T, check_finite=False)
    gecon = lapack.get_lapack_funcs("gecon", (lu,))
    reciprocal, info = gecon(lu, np.abs(A).sum(axis=1).max(), norm="1")  # ||A^T||_1 = the largest row sum of |A|
    if info != 0 or not reciprocal * CONDITION_LIMIT > 1.0:
        condition = np.inf if info != 0 or reciprocal == 0 else 1.0 / reciprocal
        raise ValueError(f"A is singular for INV (condition number {condition:.3g} >= {CONDITION_LIMIT:.0e}, 1-norm "
                         "estimate)")
    return lu, pivots


def _pooled(mechanisms: Sequence[np.ndarray], counts: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    check_sequence(mechanisms, "mechanisms", minimum=1)
    check_sequence(counts, "counts")
    if len(mechanisms) != len(counts):
        raise ValueError(f"counts must hold one array per mechanism ({len(mechanisms)}), got {len(counts)}")
    matrices = [check_row_stochastic(A, f"mechanisms[{i}]", atol=1e-9) for i, A in enumerate(mechanisms)]
    for i, (A, c) in enumerate(zip(matrices, counts, strict=True)):
        check_non_negative_array(c, f"counts[{i}]", shape=(A.shape[1],))
    n = np.array([np.sum(c) for c in counts], dtype=np.float64)
    if not n.sum() > 0:
        raise ValueError("counts must hold at least one report")
    return average(mechanisms, n), np.sum(counts, axis=0)


def inv_m(mechanisms: Sequence[np.ndarray], counts: Sequence[np.ndarray], post: Post = None) -> np.ndarray:
    """[INV]_M (free-will eq. 7): INV on the average mechanism and the pooled reports.

    Parameters
    ----------
    mechanisms : sequence of array_like, each of shape (k, k)
        The mechanisms used, all with the same observables Z = X.
    counts : sequence of array_like, each of shape (k,)
        The report counts of each mechanism's users; their sums n^A weigh the average mechanism A[n].
    post : {None, "projection", "normalization"}
        The post-processing, as in ``inv``.

    Returns
    -------
    numpy.ndarray, shape (k,)
        The estimate of theta.

    Raises
    ------
    ValueError
        If counts does not hold one array per mechanism, the mechanisms differ in shape, or as ``average`` and ``inv``
        (e.g. a singular A[n]).
    """
    return inv(*_pooled(mechanisms, counts), post=post)


def ibu_m(mechanisms: Sequence[np.ndarray], counts: Sequence[np.ndarray], delta: float = 1e-10,
          max_iter: int = 10_000) -> IbuResult:
    """[IBU]_M (free-will section 5.3): IBU on the average mechanism and the pooled reports.

    Parameters
    ----------
    mechanisms : sequence of array_like, each of shape (k, m)
        The mechanisms used, all with the same observables.
    counts : sequence of array_like, each of shape (m,)
        The report counts of each mechanism's users; their sums n^A weigh the average mechanism A[n] (eq. 7).
    delta, max_iter
        The stopping rule, as in ``gibu``.

    Returns
    -------
    IbuResult
        The IBU estimate on (A[n], pooled counts).

    Raises
    ------
    ValueError
        If counts does not hold one array per mechanism, or as ``average`` and ``ibu``.
    """
    return ibu(*_pooled(mechanisms, counts), delta=delta, max_iter=max_iter)


def krr_mle(counts: np.ndarray, eps: float) -> np.ndarray:
    """The maximum-likelihood estimate of theta from k-RR reports, in closed form (Pinzon, ElSalamouny, Massot, Miller,
    Arcolezi and Palamidessi, AAAI 2026, arXiv 2601.08603).

    Under k-RR, P(z) = q + (p - q) theta_z with p = e^eps/(e^eps + k - 1), q = 1/(e^eps + k - 1). The KKT conditions
    of max sum_z c_z log P(z) on the simplex give theta_z = max(mu c_z - r, 0) with r = q/(p - q) = 1/(e^eps - 1)
    and mu the one value that makes theta sum to 1: the support is the j values with the largest counts, j the largest
    with mu_j c_(j) > r, mu_j = (1 + j r) / (c_(1) + ... + c_(j)). Where the unbiased estimate (c_z/n - q)/(p - q)
    has no negative entry, mu = 1/(n (p - q)) and the two agree. IBU run to convergence reaches it.

    Parameters
    ----------
    counts : array_like, shape (k,)
        How many users reported each value (any non-negative weights with a positive sum).
    eps : float
        The k-RR privacy level.

    Returns
    -------
    numpy.ndarray, shape (k,)
        The MLE: a distribution, zero where the counts are too small.

    Raises
    ------
    ValueError
        If counts is not 1-D of length at least 2, non-negative with a positive sum, or eps is not finite and positive.

    Examples
    --------
    >>> import privest
    >>> privest.krr_mle([50, 30, 15, 5], 1.0).round(4)
    array([0.7705, 0.2295, 0.    , 0.    ])
    """
    counts = as_array(counts, "counts")
    if counts.ndim != 1 or counts.size < 2:
        raise ValueError(f"counts must be a 1-D array of at least 2 values, got shape {counts.shape}")
    counts = check_weights(counts, counts.size, "counts")
    eps = check_positive(eps, "eps")
    r = math.exp(-eps) / -math.expm1(-eps)  # 1/(e^eps - 1), without overflow at a large eps
    ordered = np.sort(counts)[::-1]
    j = np.arange(1, counts.size + 1)
    css = np.cumsum(ordered)
    # mu_j c - r = (c + r (j c - S_j)) / S_j, S_j = c_(1) + ... + c_(j): j c - S_j is exact for whole counts, so a
    # tiny eps (r ~ 1/eps) does not cancel r against mu_j c; the last division only removes the sum's rounding
    support = np.flatnonzero(ordered + r * (j * ordered - css) > 0)[-1]
    theta = np.maximum(counts + r * ((support + 1) * counts - css[support]), 0.0)
    return theta / theta.sum()


def combine_results(estimates: Sequence[np.ndarray], n: Sequence[float]) -> np.ndarray:
    """[e]_R (free-will eqs. 4-5): the estimates of each mechanism's own reports, weighted by n^A / n.

    Parameters
    ----------
    estimates : sequence of array_like, each of shape (k,)
        theta-hat[A] = e(A, D^A), one per mechanism (eq. 4).
    n : array_like, shape (len(estimates),)
        The number of users n^A of each mechanism.

    Returns
    -------
    numpy.ndarray, shape (k,)
        sum_A (n^A / n) theta-hat[A] (eq. 5).

    Raises
    ------
    ValueError
        If n does not have one non-negative entry per estimate, or sums to 0.
    """
    check_sequence(estimates, "estimates", minimum=1)
    k = np.shape(check_finite(estimates[0], "estimates[0]", ndim=1))[0]
    for i, estimate in enumerate(estimates):
        check_finite(estimate, f"estimates[{i}]", shape=(k,))
    n = check_weights(n, len(estimates), "n")
    return np.tensordot(n / n.sum(), np.asarray(estimates, dtype=np.float64), axes=1)


def _rap(bit_sums: np.ndarray, n: float, flip: float, post: Post) -> np.ndarray:
    """Eq. (14) written with f = 1/(1 + e^{eps[n]/2}) of eq. (13): theta = (s[n] - f) / (1 - 2 f)."""
    return post_process((bit_sums / n - flip) / (1 - 2 * flip), post)


def rap(bits: np.ndarray, eps: float | np.ndarray, post: Post = None) -> np.ndarray:
    """[RAP]_M (free-will eqs. 13-14) from a (users x k) bit matrix, eps one value or one per user.

    With one eps this is RAPPOR's own estimator RAP. eps[n] is defined by eq. 13 (the flip probabilities averaged
    over the users), and theta = (s[n] - f) / (1 - 2 f) with s[n] the mean bit vector and f = 1/(1 + e^{eps[n]/2}).

    Parameters
    ----------
    bits : array_like, shape (n, k)
        One RAPPOR report (eq. 12) per user.
    eps : float or array_like of shape (n,)
        The users' privacy levels.
    post : {None, "projection", "normalization"}
        The post-processing, as in ``inv``.

    Returns
    -------
    numpy.ndarray, shape (k,)
        The estimate of theta.

    Raises
    ------
    ValueError
        If bits is not a non-empty 2-D matrix, eps is not finite and positive, or post is not one of the values above.
    """
    check_choice(post, "post", POSTS)
    bits = check_bits(bits)
    if bits.shape[0] == 0:
        raise ValueError(f"bits must be a non-empty (users x k) matrix, got shape {bits.shape}")
    flip = flip_probability(eps)
    if np.ndim(flip) and np.shape(flip) != (bits.shape[0],):
        raise ValueError(f"eps must be one value or one per user ({bits.shape[0]},), got shape {np.shape(flip)}")
    flip = np.broadcast_to(flip, (bits.shape[0],))
    return _rap(bits.sum(axis=0, dtype=np.int64), bits.shape[0], float(flip.mean()), post)


def rap_grouped(reports: Sequence[RapporReports], post: Post = None) -> np.ndarray:
    """[RAP]_M (free-will eqs. 13-14) from grouped reports, through the sufficient statistics (bit sums, n^A).

    Parameters
    ----------
    reports : sequence of RapporReports
        The grouped reports of each RAPPOR mechanism, all on the same k secrets.
    post : {None, "projection", "normalization"}
        The post-processing, as in ``inv``.

    Returns
    -------
    numpy.ndarray, shape (k,)
        The estimate of theta; equal to ``rap`` on the ungrouped bits.

    Raises
    ------
    ValueError
        If reports is empty or its groups have different k, or post is not one of the values above.
    """
    check_choice(post, "post", POSTS)
    check_sequence(reports, "reports", minimum=1)
    for i, r in enumerate(reports):
        check_instance(r, f"reports[{i}]", RapporReports, "a privest.RapporReports")
    if len({r.k for r in reports}) != 1:
        raise ValueError("reports must be a non-empty list of RAPPOR groups on one alphabet")
    n = np.array([r.n for r in reports], dtype=np.float64)
    flip = float(n @ np.array([flip_probability(r.eps) for r in reports]) / n.sum())
    return _rap(np.sum([r.bit_sums() for r in reports], axis=0), n.sum(), flip, post)


def likely_subset_linear(alphabet: np.ndarray, reports: np.ndarray) -> np.ndarray:
    """IBU paper Prop. 8.2: the indices of [x_min, x_max] ∩ X, where x_min is the largest element of X at or below
    every report and x_max the smallest at or above every report (the ends of X when there is none)."""
    alphabet, reports = check_finite(alphabet, "alphabet"), check_finite(reports, "reports")
    if alphabet.ndim != 1 or alphabet.size == 0 or np.any(np.diff(alphabet) <= 0):
        raise ValueError("alphabet must be a strictly increasing 1-D array")
    if reports.size == 0:
        raise ValueError("reports must not be empty")
    below = alphabet[alphabet <= reports.min()]
    above = alphabet[alphabet >= reports.max()]
    low = below.max() if below.size else alphabet[0]
    high = above.min() if above.size else alphabet[-1]
    return np.flatnonzero((alphabet >= low) & (alphabet <= high))


def _hull(points: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """The vertices of the convex hull of distinct planar points, in order, and its half-plane equations (None when
    the points are fewer than three or on one line: the hull is then the segment between the two extreme points)."""
    from scipy.spatial import ConvexHull, QhullError  # here: scipy.spatial costs 0.3 s to import

    if len(points) > 2 and np.linalg.matrix_rank(points - points[0], tol=1e-12) == 2:
        try:
            hull = ConvexHull(points)
            return points[hull.vertices], hull.equations
        except QhullError:
            pass
    order = np.lexsort(points.T[::-1])
    return points[order[[0, -1]]], None


def _distance_to_hull(points: np.ndarray, vertices: np.ndarray, equations: np.ndarray | None) -> np.ndarray:
    """Euclidean distance of each point to the convex polygon (or segment) with the given vertices, 0 inside."""
    a, b = vertices, np.roll(vertices, -1, axis=0)
    ab = b - a
    length2 = np.maximum((ab**2).sum(axis=1), 1e-300)
    t = np.clip(((points[:, None, :] - a[None]) * ab[None]).sum(axis=2) / length2, 0, 1)
    nearest = a[None] + t[..., None] * ab[None]
    distance = np.sqrt(((points[:, None, :] - nearest) ** 2).sum(axis=2)).min(axis=1)
    if equations is None:
        return distance
    inside = np.all(points @ equations[:, :2].T + equations[:, 2] <= 1e-12, axis=1)
    return np.where(inside, 0.0, distance)


def likely_subset_planar(centres: np.ndarray, reports: np.ndarray, delta: float) -> np.ndarray:
    """IBU paper Prop. 8.3: the indices of the cells within delta' of the convex hull of the reported points, with
    delta' = (delta^2 + 2 delta max_ij d(z_i, z_j))^{1/2} (eq. 13) and delta the discretisation error of X."""
    centres, reports = check_finite(centres, "centres"), check_finite(reports, "reports")
    delta = check_non_negative(delta, "delta")
    if centres.ndim != 2 or centres.shape[1] != 2 or reports.ndim != 2 or reports.shape[1] != 2 or not len(reports):
        raise ValueError("centres and reports must be arrays of planar points, shape (., 2), reports not empty")
    if delta < 0:
        raise ValueError(f"delta must be non-negative, got {delta}")
    vertices, equations = _hull(np.unique(reports, axis=0))
    diameter = np.sqrt(((vertices[:, None] - vertices[None]) ** 2).sum(axis=2)).max()
    reach = np.sqrt(delta**2 + 2 * delta * diameter)
    return np.flatnonzero(_distance_to_hull(centres, vertices, equations) <= reach + 1e-12)


def likely_subset_krr(reports: np.ndarray) -> np.ndarray:
    """IBU paper Prop. 8.4: under k-RR the reported values are a likely subset."""
    reports = check_integers(reports, "reports", 0, None, ndim=1)
    if reports.size == 0:
        raise ValueError("reports must not be empty")
    return np.unique(reports)
