"""The IBU/GIBU iteration engine: the normalised log-likelihood of a list of groups and its EM map (free-will
Algorithm 1), the plain loop, the block loop (with privest's compiled update loop, ``privest._kernel``, where it
is built), and the batch over runs (SQUAREM in ``_squarem``). Private: ``privest.estimators.iterative`` is its API;
``IbuResult`` and ``COMPILED_KERNEL`` are re-exported there and by ``privest.estimators``.
"""

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from privest._checks import check_weights
from privest.estimators._bits import _Bits, _Parts, dense_bits, set_parts
from privest.estimators._sets import _Sets, as_matrix_group
from privest.groups import BitGroup, Group, SetGroup
from privest.intervals import Interval, fisher_interval

try:  # IBU's update loop compiled (privest/_kernel.c), built with the package where a C compiler is found
    from privest import _kernel
except ImportError:  # then numpy runs the same iteration
    _kernel = None
if _kernel is not None and not hasattr(_kernel, "THETA_FLOOR"):  # a build of an older _kernel.c: numpy, until rebuilt
    _kernel = None

THETA_FLOOR = 2.0**-511
"""Every plain IBU/GIBU iteration (numpy's, the compiled loop's, the batch's) sets an entry of theta that an
update takes below this (2^-511, the square root of the smallest normal double) to 0. Such an entry is one the
estimate drives to 0; kept, it turns subnormal, and every product with a subnormal costs 5-10x (measured: IBU at
k = 100 from 4.9 to 31 us an iteration; the free-will GIBU on ten geometric mechanisms 3x slower as a whole). Its
terms in m = G^T theta lie far below the last bit of any reported column's probability, so the other entries, L and
the iteration count keep the bits of the iteration without the floor (tests/test_estimators.py); the floored
entries read 0 instead of a number below 1e-154. SQUAREM takes no floor: its few hundred updates seldom reach
subnormals, and its extrapolation's sign test reads the tiny entries (floored, its steps and so its estimates moved
within delta: measured on the standard-protocols study)."""


def _floor(theta: np.ndarray) -> np.ndarray:
    """theta with its entries below ``THETA_FLOOR`` set to 0, in place."""
    theta[theta < THETA_FLOOR] = 0.0
    return theta


# A set-valued group whose dense k x (distinct reports) matrix has at most this many entries (GRR up to k = 256)
# iterates as a matrix group (``_sets.as_matrix_group``): in the compiled loop instead of two sparse products and
# about ten numpy calls an iteration (benchmarks/bench_peers.py).
_DENSE_SETS = 1 << 16


@dataclass(frozen=True)
class _Likelihood:
    """The normalised log-likelihood of GIBU's groups (free-will Algorithm 1) and its EM map: the matrix groups'
    columns side by side in G (k, m) with weights w (m,), the set-valued groups in ``sets``, and the constant
    ``offset`` of the column scales."""

    G: np.ndarray
    w: np.ndarray
    offset: float
    sets: "_Sets | _Bits | _Parts | None"
    n: float = 1.0
    start: tuple[float, np.ndarray] | None = None  # a single matrix group's ``Group._start``
    _last: list = field(default_factory=list, repr=False, compare=False)  # ``_at``'s theta, theta G and sets' state

    @classmethod
    def _of_matrix(cls, G: np.ndarray, w: np.ndarray, n: float) -> "_Likelihood":
        """``cls(G, w, 0.0, None, n)`` without the dataclass's __init__ (half a microsecond of ibu's one call, whose
        arrays its compiled checks have checked)."""
        likelihood = object.__new__(cls)
        likelihood.__dict__.update(G=G, w=w, offset=0.0, sets=None, n=n, start=None, _last=[])
        return likelihood

    @classmethod
    def of(cls, groups: Sequence[Group | SetGroup | BitGroup], dense_sets: bool = False) -> "_Likelihood":
        if len(groups) == 1 and isinstance(groups[0], Group):  # IBU: the same values as below, fewer calls
            group = groups[0]
            n = group.n
            return cls(group.G, group.counts / n, float((group.counts @ group.log_scale) / n), None, float(n),
                       group._start)
        k = groups[0].G.shape[0] if isinstance(groups[0], Group) else groups[0].k
        if any((g.G.shape[0] if isinstance(g, Group) else g.k) != k for g in groups):
            raise ValueError(f"groups must all have k = {k} rows (secrets)")
        n = sum(g.n for g in groups)
        # with dense_sets (the plain iteration), a set-valued group with a small dense matrix (few distinct reports:
        # GRR, SS, RAPPOR ... at small k) joins the matrix groups, whose iteration is the compiled loop's
        if dense_sets:
            groups = [(as_matrix_group(g) if isinstance(g, SetGroup) else dense_bits(g))
                      if isinstance(g, SetGroup | BitGroup) and g.k * g.counts.size <= _DENSE_SETS else g
                      for g in groups]
        matrices = [g for g in groups if isinstance(g, Group)]
        sets = [g for g in groups if isinstance(g, SetGroup)]
        bits = [g for g in groups if isinstance(g, BitGroup)]
        if len(matrices) == 1:  # one group: its columns as they are, no copy
            G, w = matrices[0].G, matrices[0].counts / n
        else:
            G = np.concatenate([g.G for g in matrices], axis=1) if matrices else np.zeros((k, 0))
            w = np.concatenate([g.counts for g in matrices]) / n if matrices else np.zeros(0)
        offset = float(sum(g.counts @ g.log_scale for g in groups) / n)
        return cls(G, w, offset, set_parts(sets, bits, n, _Sets), float(n))

    @property
    def k(self) -> int:
        return self.G.shape[0]

    @cached_property
    def g_fortran(self) -> np.ndarray:
        """G in F order, for numpy's products outside the compiled loop (SQUAREM, set-valued groups): the layout in
        which privest 0.1 always held G (a gathered copy), so these products keep its bits. A copy where G is in C
        order (a matrix as given), made once, on first use."""
        return np.asfortranarray(self.G)

    def _at(self, theta: np.ndarray) -> tuple[np.ndarray, object]:
        """(theta G, the sets' forward state) at theta: one pass, kept for the next call at the same theta (SQUAREM
        asks L and then dL/dtheta of each accepted step, the gap rule both of its last iterate), so that each costs
        one pass over the reports and gives the bits a call of its own would give."""
        cached = self._last
        if cached and np.array_equal(cached[0], theta):
            return cached[1], cached[2]
        products = theta @ self.g_fortran
        state = self.sets.forward(theta) if self.sets else None
        cached[:] = [theta.copy(), products, state]
        return products, state

    def value(self, theta: np.ndarray) -> float:
        """L(theta)."""
        products, state = self._at(theta)
        value = float(self.w @ np.log(products)) + self.offset
        return value + self.sets.log_likelihood(state) if self.sets else value

    def em(self, theta: np.ndarray) -> np.ndarray:
        """One GIBU update (free-will Algorithm 1, line 5)."""
        return theta * self.gradient(theta)

    def gradient(self, theta: np.ndarray) -> np.ndarray:
        """u = dL/dtheta at theta, (k,): the factor of GIBU's update, theta^{t+1} = theta^t * u. As sum_x theta_x u_x
        = 1 and L is concave, L(theta*) - L(theta) <= max_x u_x - 1 for the MLE theta* (``gap``)."""
        products, state = self._at(theta)
        update = self.g_fortran @ (self.w / products)
        return update + self.sets.backward(state) if self.sets else update

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
    gap : float or None
        Where the iteration stopped by the gap (``stop="gap"``): max_x dL/dtheta_x - 1 at the estimate, a bound on
        L(MLE) - L(theta) (L is concave); None where it stopped by the change of L.
    """

    theta: np.ndarray
    iterations: int
    log_likelihood: float
    capped: bool
    likelihood: "_Likelihood | None" = field(default=None, repr=False, compare=False)
    gap: float | None = None

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

    def _holding(self, likelihood: "_Likelihood") -> "IbuResult":
        """This result with its likelihood (as ``dataclasses.replace``, at a third of its cost per call)."""
        return IbuResult(self.theta, self.iterations, self.log_likelihood, self.capped, likelihood, self.gap)


# The block kernel of ``_iterate`` without the compiled loop: used while G has at most _BLOCK_WORK entries (beyond, a
# product costs far more than numpy's call overhead and the plain loop is as fast), with at most _BLOCK_ROWS
# iterations a block and buffers of at most about _BLOCK_BYTES.
_BLOCK_WORK = 1 << 18

_BLOCK_ROWS = 64

_BLOCK_BYTES = 1 << 21

# From this many reported columns, a block's rows whose change of L cannot fall below delta take no logarithm
# (``_first_candidate``): 5-12% of an iteration at k = 256 and 3% at k = 1024 saved; below, its few numpy calls a
# block cost more than the logarithms they save (k = 16: 18-36% slower, measured 2026-11-26).
_SCREEN_COLUMNS = 64

# The compiled update loop (privest._kernel) runs matrix groups of up to _KERNEL_WORK entries: it reads G once an
# iteration for both products where numpy (and numba) read it twice, so it is the faster at every k measured
# (benchmarks/bench_ibu.py, benchmarks/bench_peers.py: k = 16 to 1024); the bound only keeps a huge G, whose sums
# would round differently from numpy's, on numpy's products.
_KERNEL_WORK = 1 << 26

# ``ibu_runs`` runs its runs one at a time through the compiled loop while G has at most _BATCH_KERNEL_WORK entries
# (k = 256 square); beyond, the batch's matrix-matrix products cost less per run.
_BATCH_KERNEL_WORK = 1 << 16

COMPILED_KERNEL = _kernel is not None
"""Whether privest's compiled IBU update loop (``privest._kernel``) is installed. It runs single-problem IBU and
GIBU on matrix mechanisms (up to 2^26 entries), and ``ibu_runs`` run by run: the same stopping rule, with the two
products summed in a fixed order (the same bits on every CPU and BLAS), which differ from numpy's BLAS products in
the last bits. Without a C compiler at install, numpy runs them."""

# From this many entries, the compiled loop sums each dot product of G ratio as 16 partial sums (``strided`` in
# privest/_kernel.c: no chain of dependent additions a row long), 7-14% faster per iteration than the sum in order
# from k = 128 to 256 (G square; measured 2026-11-26, benchmarks/bench_peers.py's k-RR and the geometric mechanism)
# and no slower beyond; below (k = 100 and under: the same speed, 2x slower at k = 16), the sum in order.
_STRIDED_START = 1 << 14


def _iterate(likelihood: _Likelihood, theta: np.ndarray, delta: float, max_iter: int,
             stop: str = "change") -> IbuResult:
    """The GIBU iteration from theta: per iteration one division, two matrix-vector products (and two sparse ones
    for set-valued groups), a log and a dot product, into reused buffers (numpy's call overhead, not arithmetic, is
    the cost at k = 100). Stops at the first t with ``|L(theta^t) - L(theta^{t-1})| < delta``.

    Matrix groups go to the compiled loop where it is built (``_iterate_compiled``), else (up to _BLOCK_WORK
    entries) to ``_iterate_blocks``, numpy's products on G as it is (no copy); here the products are numpy's on G in
    F order (``_Likelihood.g_fortran``), those of privest 0.1."""
    G, w, offset, sets = likelihood.G, likelihood.w, likelihood.offset, likelihood.sets
    if stop == "gap":
        return _iterate_to_gap(likelihood, theta, delta, max_iter)
    if sets is None and 0 < G.size <= _KERNEL_WORK and _kernel is not None:
        return _iterate_compiled(G, w, offset, theta, delta, max_iter, likelihood.start)
    if sets is None and 0 < G.size <= _BLOCK_WORK:
        return _iterate_blocks(G, w, offset, theta, delta, max_iter)
    G = likelihood.g_fortran
    GT = G.T  # C order: a view
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
        _floor(theta)
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


def _iterate_to_gap(likelihood: _Likelihood, theta: np.ndarray, delta: float, max_iter: int) -> IbuResult:
    """The plain GIBU iteration stopped by the gap: at the first theta^t with max_x u_x - 1 < delta (u = dL/dtheta,
    the update's own factor), so that L(MLE) - L(theta^t) < delta. One gradient an iteration; numpy's products."""
    theta = theta.copy()
    for t in range(max_iter + 1):
        u = likelihood.gradient(theta)
        gap = float(u.max()) - 1.0
        if gap < delta or t == max_iter:
            theta = theta / theta.sum()
            return IbuResult(theta, t, likelihood.value(theta), gap >= delta, gap=gap)
        theta *= u
        _floor(theta)
    raise AssertionError("unreachable")


def _log_likelihoods(logs: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``w . logs[j]`` for every row j, each the bits of ``numpy.dot(w, logs[j])`` (``numpy.vecdot`` runs the same dot
    product loop row by row in one call; numpy before 2.0 has no vecdot, so one dot product a row)."""
    if _vecdot is not None:
        return _vecdot(logs, w)
    return np.array([np.dot(w, row) for row in logs])


_vecdot = getattr(np, "vecdot", None)


def _iterate_compiled(G: np.ndarray, w: np.ndarray, offset: float, theta: np.ndarray, delta: float, max_iter: int,
                      start: tuple[float, np.ndarray] | None = None) -> IbuResult:
    """``_iterate`` on matrix groups alone in the compiled loop (``privest._kernel.ibu_run``): one call runs the
    updates, reading G once an update for both products, and L^t after each, to the stop. Every sum in a fixed
    order and L's logs the kernel's own (within 1 ulp of libm's), so the result is the same bits on every CPU and
    BLAS; it differs from numpy's iteration in the last bits. m^0 = G^T theta as the updates sum it: ``start``
    (f, G^T (f, ..., f)) from the pass that checked G (``Group._start``) where theta is that uniform start, else
    ``combine_rows``."""
    k, columns = G.shape
    G, w = np.ascontiguousarray(G, dtype=np.float64), np.ascontiguousarray(w, dtype=np.float64)
    # theta^t and theta^(t-1), m^t and m^(t-1), ratio, logs (the kernel aligns the last three inside the pad)
    work = np.empty(2 * k + 4 * columns + _kernel.WORK_PAD)
    theta0, m0 = work[:k], work[2 * k : 2 * k + columns]
    theta0[:] = theta
    if start is not None and (theta == start[0]).all():
        m0[:] = start[1]
    else:
        _kernel.combine_rows(G, theta0, m0, k, columns)
    t, L, capped = _kernel.ibu_run(G, w, work, k, columns, delta, max_iter, G.size >= _STRIDED_START, offset)
    return IbuResult(theta0, t, L, capped)


def _ibu_matrix(A: np.ndarray, w: np.ndarray, n: float, delta: float, max_iter: int) -> IbuResult | None:
    """``ibu(A, q)``'s plain iteration from the uniform start in one compiled call (``privest._kernel.ibu_matrix``):
    A a C-contiguous float64 (k, m) matrix of at most _KERNEL_WORK entries and w = q / n every column's weight; A's
    checks and first product in one pass, then ``_iterate_compiled``'s iteration (the same bits). None where a check
    fails or a column was not reported (then ``ibu``'s own path, which names the error or drops the column)."""
    k, m = A.shape
    work = np.empty(2 * k + 4 * m + _kernel.WORK_PAD)
    out = _kernel.ibu_matrix(A, w, work, k, m, _uniform(k), 1e-9, delta, max_iter, A.size >= _STRIDED_START)
    if out is None:
        return None
    result = object.__new__(IbuResult)  # IbuResult(...) without the dataclass's __init__ (as _Likelihood._of_matrix)
    result.__dict__.update(theta=work[:k], iterations=out[0], log_likelihood=out[1], capped=out[2],
                           likelihood=_Likelihood._of_matrix(A, w, n), gap=None)
    return result


@functools.cache
def _uniform(k: int) -> float:
    """The uniform start's entry (``_start(k, None)``: 1 / k, renormalised)."""
    return float(_start(k, None)[0])


def _iterate_blocks(G: np.ndarray, w: np.ndarray, offset: float, theta: np.ndarray, delta: float,
                    max_iter: int) -> IbuResult:
    """``_iterate`` on matrix groups alone without the compiled loop, with its stopping rule tested once per block of
    iterations, exactly as if it were tested every iteration: numpy's products ``G ratio`` and ``theta @ G`` on G
    as it is.

    A block runs b updates, keeping each theta^t and m^t = G^T theta^t in rows of two buffers, four numpy calls an
    update (bound methods and positional outputs: numpy's call overhead is most of an iteration's cost at
    k = 100). Then one log and one row-wise dot product give every L(theta^t) of the block as ``_iterate`` computes it
    (``_log_likelihoods``), and the first iteration of the block where ``|L^t - L^(t-1)| < delta`` is the result; the
    updates run past it are discarded. Blocks grow with t: at most max(16, t / 8) iterations run past the stop.
    """
    k, columns = G.shape
    rows = min(_BLOCK_ROWS, max(16, _BLOCK_BYTES // (8 * (k + 2 * columns))), max_iter)
    T, M = np.empty((rows + 1, k)), np.empty((rows + 1, columns))
    logs, L, ratio = np.empty((rows + 1, columns)), np.empty(rows + 1), np.empty(columns)
    T[0] = theta
    M[0] = theta @ G  # as _iterate starts
    T_rows, M_rows = list(T), list(M)  # row views, made once
    divide, multiply, G_dot, update, floor = np.divide, np.multiply, G.dot, np.empty(k), _floor

    def transposed_dot(theta_new: np.ndarray, m_new: np.ndarray) -> None:  # G^T theta as theta @ G: no copy
        np.dot(theta_new, G, m_new)

    with np.errstate(all="ignore"):  # a zero m gives L = -inf, and -inf - -inf a NaN change: no stop, as _iterate
        L[0] = float(w @ np.log(M[0])) + offset
        # known: L[0] holds L of M[0]; screen: rule out rows that cannot stop (_first_candidate) where logs cost more
        t, known, screen = 0, True, columns >= _SCREEN_COLUMNS
        while True:
            b = min(rows, max_iter - t, max(16, t // 8))
            steps = zip(M_rows[:b], T_rows[:b], T_rows[1 : b + 1], M_rows[1 : b + 1], strict=True)
            for m_old, theta_old, theta_new, m_new in steps:
                divide(w, m_old, ratio)
                G_dot(ratio, update)
                multiply(theta_old, update, theta_new)
                floor(theta_new)
                transposed_dot(theta_new, m_new)
            first = _first_candidate(M, w, b, delta, offset, logs) if screen else 1
            screen = first > 1  # a candidate at the block's first row: near the stop, where no row is screened out
            if first <= b:  # L^t of rows first - 1 .. b (row 0's too if not yet known), as _iterate computes it
                low = first - 1 if first > 1 or not known else 1
                np.add(_log_likelihoods(np.log(M[low : b + 1], out=logs[low : b + 1]), w), offset, out=L[low : b + 1])
                j = _first_stop(L, first, b, delta)
                if j:
                    return IbuResult(T[j] / T[j].sum(), t + j, float(L[j]), False)
            known, t = first <= b, t + b
            if t == max_iter:
                if not known:
                    L[b] = float(_log_likelihoods(np.log(M[b : b + 1], out=logs[b : b + 1]), w)[0]) + offset
                return IbuResult(T[b] / T[b].sum(), max_iter, float(L[b]), True)
            T[0], M[0], L[0] = T[b], M[b], L[b]


def _first_stop(L: np.ndarray, first: int, b: int, delta: float) -> int:
    """The first j of first..b with ``|L[j] - L[j - 1]| < delta``, 0 if none; over a short block (up to 16 rows) a loop
    over Python floats: the same doubles and test without numpy's calls (tens of µs in a call of a few iterations)."""
    if b - first < 16:
        values = L[first - 1 : b + 1].tolist()
        return next((first + i for i in range(b - first + 1) if abs(values[i + 1] - values[i]) < delta), 0)
    held = np.flatnonzero(np.abs(L[first : b + 1] - L[first - 1 : b]) < delta)
    return first + int(held[0]) if held.size else 0


def _first_candidate(M: np.ndarray, w: np.ndarray, b: int, delta: float, offset: float, scratch: np.ndarray) -> int:
    """The first row j of 1..b whose change |L^j - L^(j-1)|, as ``_iterate_blocks`` computes it, may be below delta
    (b + 1 if none), without a logarithm: log r >= 1 - 1/r gives L^j - L^(j-1) >= sum_z w_z (1 - M[j-1, z] / M[j, z]),
    and a row is screened out when that bound, less twice the rounding error of every sum and log involved (each a
    sum of m terms: (m + 6) u times its absolute terms, u = 2^-53), still reaches delta. A zero or NaN: a candidate."""
    q = np.divide(M[:b], M[1 : b + 1], out=scratch[1 : b + 1])
    ratios = _log_likelihoods(q, w)
    lowest, highest, total, u = float(M[: b + 1].min()), float(M[: b + 1].max()), float(np.sum(w)), 2.0**-53
    if not (lowest > 0 and math.isfinite(highest)):
        return 1
    largest_log = max(abs(math.log(lowest)), abs(math.log(highest)))
    m = M.shape[1] + 6
    margin = 2.1 * m * u * (ratios + total + 2 * (1.01 * total * largest_log + abs(offset)))
    unsafe = np.flatnonzero(~((total - ratios) - margin >= delta))
    return int(unsafe[0]) + 1 if unsafe.size else b + 1


def _iterate_batch(G: np.ndarray, W: np.ndarray, delta: float, max_iter: int) -> list[IbuResult]:
    """``_iterate`` for R problems sharing the columns G, row r of W (R, m) the weights of problem r, all from
    the uniform distribution: matrix-matrix products instead of matrix-vector ones. A problem leaves the batch at
    its own stopping iteration, so each result equals that of ``_iterate`` on its own. A column that a problem
    did not report (weight 0) takes no part in its update or likelihood, as in ``_iterate``, even where that
    problem's estimate gives the column probability 0 (which would make 0/0). One problem, or any number where the
    compiled loop applies, goes to ``_iterate`` one at a time, on its reported columns (matrix-vector products,
    cheaper than the batch's at small k): each result is then ``ibu``'s bit for bit."""
    R, k = W.shape[0], G.shape[0]
    if R == 1 or (_kernel is not None and 0 < G.size <= _BATCH_KERNEL_WORK):  # the compiled loop beats the batch
        return [_iterate(_Likelihood(_columns(G, w > 0), w[w > 0], 0.0, None), _start(k, None), delta, max_iter)
                for w in W]
    G = np.asfortranarray(G)  # the layout the batch has always multiplied with (so, the same bits); G.T is C-ordered
    GT = G.T
    index, T = np.arange(R), np.full((R, k), 1.0 / k)
    M = T @ G
    previous = np.einsum("ij,ij->i", W, np.log(M, out=np.zeros_like(M), where=W > 0))
    results: list[IbuResult] = [None] * R  # type: ignore[list-item]
    for t in range(1, max_iter + 1):
        T *= np.divide(W, M, out=np.zeros_like(W), where=W > 0) @ GT
        _floor(T)
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


def _columns(G: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """The columns of G where keep is True: G itself when every column is kept (no copy), else a C-contiguous copy
    of those columns (``numpy.compress``: a boolean mask's gather costs several times more at k = 1024)."""
    return G if keep.all() else np.compress(keep, G, axis=1)


def _start(k: int, theta0: np.ndarray | None) -> np.ndarray:
    if theta0 is None:
        theta = np.full(k, 1.0 / k)
        return theta / theta.sum()
    theta = check_weights(theta0, k, "theta0")
    if np.any(theta <= 0):
        raise ValueError("theta0 must have full support (every entry positive)")
    return theta / theta.sum()
