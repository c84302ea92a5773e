"""IBU and GIBU, the iterative Bayesian update (free-will eq. 10 and Algorithm 1; IBU paper Algorithm 1): the MLE
of theta from the reports of one mechanism or of any mix of matrices, RAPPOR and set-valued protocols, with
SQUAREM acceleration and batches over runs. The iteration itself is in ``privest.estimators._iteration``.
"""

import math
from collections.abc import Sequence
from typing import Literal

import numpy as np

from privest._checks import (
    as_array,
    check_choice,
    check_distribution,
    check_int,
    check_mechanism_columns,
    check_positive,
    check_row_stochastic,
    check_sequence,
    check_stopping,
    check_weights,
)
from privest.estimators import _iteration
from privest.estimators._calls import refuse_groups, refuse_matrix, refuse_protocol_reports
from privest.estimators._iteration import (
    COMPILED_KERNEL,
    IbuResult,
    _columns,
    _iterate,
    _iterate_batch,
    _Likelihood,
    _start,
)
from privest.estimators._squarem import _squarem
from privest.groups import BitGroup, Group, GroupLike, SetGroup, _as_group, _reported_columns, matrix_group
from privest.protocols.base import Protocol

__all__ = [
    "COMPILED_KERNEL",
    "PLAIN_IBU",
    "Accelerate",
    "IbuResult",
    "Stop",
    "gibu",
    "gibu_matrix_runs",
    "ibu",
    "ibu_runs",
    "log_likelihood",
    "squarem",
]

Accelerate = Literal["squarem-newton", "squarem", "squarem-direct"] | None
Stop = Literal["gap", "change"]
PLAIN_IBU = {"accelerate": None, "stop": "change"}
"""The papers' IBU (``gibu(..., **PLAIN_IBU)``): the plain iteration, stopped when L changes by less than delta. The
defaults (SQUAREM without its stabilising update, stopped by the gap) reach the MLE faster; the studies ask for this
wherever the papers use IBU."""


def log_likelihood(theta: np.ndarray, groups: Sequence[GroupLike]) -> float:
    """The normalised log-likelihood L(theta) = sum_A (n^A/n) sum_z q^A_z log sum_x theta_x A_xz (Algorithm 1).

    theta: a distribution over the k secrets; groups: as in ``gibu``."""
    refuse_groups(groups, "log_likelihood", "log_likelihood(theta, {})")
    check_sequence(groups, "groups", minimum=1)
    likelihood = _Likelihood.of([_as_group(item) for item in groups])
    return likelihood.value(check_distribution(theta, "theta", likelihood.k))


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
    refuse_groups(groups, "squarem", "squarem({})")
    check_sequence(groups, "groups", minimum=1)
    delta = None if delta is None else check_positive(delta, "delta")
    tol = None if tol is None else check_positive(tol, "tol")
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    likelihood = _Likelihood.of([_as_group(item) for item in groups])
    return _squarem(likelihood, _start(likelihood.k, theta0), delta, max_iter, tol)._holding(likelihood)


def gibu(groups: Sequence[GroupLike], delta: float = 1e-10, max_iter: int = 10_000,
         theta0: np.ndarray | None = None, accelerate: Accelerate = "squarem-newton", stop: Stop = "gap") -> IbuResult:
    """Generalised IBU (free-will Algorithm 1): the MLE of theta from the reports of several mechanisms.

    theta^{t+1}_x = sum_A (n^A/n) sum_z q^A_z theta^t_x A_xz / sum_u theta^t_u A_uz: the columns of all matrix groups
    side by side, two matrix-vector products per iteration whatever the number of users; the set-valued protocols'
    distinct reports as one sparse membership matrix, two sparse products per iteration costing O(sum of ``|S|``), or,
    bit-packed (``BitGroup``: SUE, OUE, SS, RAPPOR), one pass of byte-table lookups over their bytes. It
    equals the per-user update (free-will eq. 15) with users grouped by mechanism and report.

    Parameters
    ----------
    groups : sequence of Group, SetGroup, BitGroup, (Protocol, reports) or (matrix, counts)
        The reports of each mechanism, all on the same k secrets: groups from ``matrix_group``, ``rappor_group`` or
        ``Protocol.group``, or the pairs those take (a protocol of ``privest.protocols`` and its reports; a
        row-stochastic matrix and its report counts).
    delta : float
        The tolerance of the stopping rule ``stop`` (L the normalised log-likelihood).
    max_iter : int
        Stop after this many iterations at most (then ``capped=True``).
    theta0 : array_like, shape (k,), optional
        The starting distribution, with full support (default: uniform).
    accelerate : {"squarem-newton", "squarem-direct", "squarem", None}
        "squarem" runs SQUAREM (``squarem``: the same fixed points, far fewer updates; ``iterations`` then counts
        updates) with Varadhan & Roland's stabilising update after each extrapolation (three updates a step);
        "squarem-direct" takes the extrapolation itself (two a step: a third fewer passes over the reports,
        measured); "squarem-newton" (the default) is "squarem-direct" for max(32, k) updates, then, if it has not
        stopped, Newton's method on the estimate's support (an active-set method on L's quadratic model, its
        information matrix n k^2 multiply-adds a step; k <= 4096), counted in ``iterations`` one a step: where the
        MLE has zeros, which EM approaches slowly, it ends in a few steps (OUE, k = 50, n = 10^5, eps = 1, binomial
        secrets: 52 updates where SQUAREM alone took 350 to 3,584); None the plain iteration of the papers.
    stop : {"gap", "change"}
        "gap" (the default) stops at the first estimate whose gap, max_x dL/dtheta_x - 1, is below delta: since L
        is concave and sum_x theta_x dL/dtheta_x = 1, that bounds L(MLE) - L(theta), so the result is within delta
        of the MLE's log-likelihood (``IbuResult.gap``). "change" stops when ``|L(theta^t) - L(theta^{t-1})| <
        delta`` (the papers' rule, which stops early where L rises slowly: on a near-uniform channel, about 2e-7
        short of the MLE's L at delta = 1e-10).

    Returns
    -------
    IbuResult
        theta (k,), the iterations used, the final log-likelihood, whether the cap stopped it and, under "gap", the
        gap; its ``interval`` gives Wald intervals from the observed Fisher information.

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
    >>> print(result.theta.round(3), result.capped, result.gap < 1e-14)
    [0.1 0.2 0.3 0.4] False True

    The papers' plain IBU and its stopping rule:

    >>> plain = privest.gibu(groups, delta=1e-14, accelerate=None, stop="change")
    >>> bool(np.abs(plain.theta - result.theta).max() < 1e-5)
    True
    """
    refuse_groups(groups, "gibu", "gibu({})")
    check_sequence(groups, "groups", minimum=1)
    delta, max_iter = check_stopping(delta, max_iter)
    check_choice(accelerate, "accelerate", (None, "squarem-newton", "squarem", "squarem-direct"))
    check_choice(stop, "stop", ("gap", "change"))
    likelihood = _Likelihood.of([_as_group(item) for item in groups],
                                dense_sets=accelerate is None and stop == "change")
    theta = _start(likelihood.k, theta0)
    if accelerate is not None:
        return _squarem(likelihood, theta, delta, max_iter, stop=stop, stabilise=accelerate == "squarem",
                        newton=accelerate == "squarem-newton")._holding(likelihood)
    return _iterate(likelihood, theta, delta, max_iter, stop)._holding(likelihood)


def ibu(A: "np.ndarray | Protocol | Group | SetGroup | BitGroup", q: "np.ndarray | None" = None,
        delta: float = 1e-10, max_iter: int = 10_000, theta0: np.ndarray | None = None,
        accelerate: Accelerate = "squarem-newton", stop: Stop = "gap") -> IbuResult:
    """IBU (free-will eq. 10; IBU paper Algorithm 1): the MLE of theta from the reports of one mechanism.

    GIBU with one group: ``gibu([(A, q)], ...)``, or ``gibu([A], ...)`` for a built group.

    Parameters
    ----------
    A : array_like of shape (k, m), Protocol, or a group
        The mechanism, rows summing to 1 within 1e-9; or a protocol of ``privest.protocols`` (q its reports); or a
        group from ``matrix_group``, ``rappor_group`` or ``Protocol.group`` (q None).
    q : array_like of shape (m,), or a protocol's reports
        The report counts (or frequencies) over the columns of A, or the protocol's reports.
    delta, max_iter, theta0, accelerate, stop
        The stopping rule, the start and the acceleration, as in ``gibu`` (by default SQUAREM to a gap below delta;
        ``accelerate=None, stop="change"`` is the papers' plain IBU).

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

    A protocol and its reports:

    >>> oue = privest.protocols.oue(5, 1.0)
    >>> reports = oue.sample(np.repeat(np.arange(5), 200), rng)
    >>> privest.ibu(oue, reports).theta.shape
    (5,)
    """
    if (accelerate is None and stop == "change" and theta0 is None and type(A) is np.ndarray and type(q) is np.ndarray
            and _iteration._kernel is not None):  # the papers' IBU on a matrix: one compiled call where it applies
        result = _ibu_one_call(A, q, delta, max_iter)
        if result is not None:
            return result
    refuse_protocol_reports(A, q, "ibu")
    rule = {"delta": delta, "max_iter": max_iter, "theta0": theta0, "accelerate": accelerate, "stop": stop}
    if isinstance(A, Protocol):
        return gibu([(A, q)], **rule)
    if isinstance(A, Group | SetGroup | BitGroup):
        if q is not None:
            raise ValueError("q must be None when A is a group (it holds its reports)")
        return gibu([A], **rule)
    if q is None:
        raise ValueError("q (the report counts over A's columns) is required with a matrix A: ibu(A, counts); a "
                         "protocol's reports go with the protocol, ibu(protocol, reports)")
    if accelerate is not None or stop != "change":
        A = check_row_stochastic(A, "A", atol=1e-9)
        return gibu([matrix_group(A, check_weights(q, A.shape[1], "q"))], **rule)
    A = as_array(A, "A")
    # the uniform start's value, where the iteration takes its first product from the check's pass over A
    start = _start_value(A) if theta0 is None else None
    A, column_max, product = check_mechanism_columns(A, "A", atol=1e-9, start=start)
    q = check_weights(q, A.shape[1], "q")
    return gibu([_reported_columns(A, q, column_max, None if product is None else (start, product))], **rule)


def _ibu_one_call(A: np.ndarray, q: np.ndarray, delta: float, max_iter: int) -> IbuResult | None:
    """``ibu(A, q)``'s plain iteration in one compiled call (``_iteration._ibu_matrix``: the checks, the first product
    and the iteration), where A is a C-contiguous float64 matrix of at most _KERNEL_WORK entries, q a contiguous
    float64 vector with every column reported and the stopping rule plain numbers; the same result, bit for bit, as
    the path below. None otherwise, or where a check fails (then the path below names the error)."""
    if not (A.dtype == np.float64 and q.dtype == np.float64 and A.ndim == 2 and q.ndim == 1
            and A.flags.c_contiguous and q.flags.c_contiguous and q.shape[0] == A.shape[1]
            and 0 < A.size <= _iteration._KERNEL_WORK and type(delta) is float and 0 < delta < math.inf
            and type(max_iter) is int and max_iter >= 1):
        return None
    n = q.sum()
    if not 0 < n < math.inf:
        return None
    return _iteration._ibu_matrix(A, q / n, float(n), delta, max_iter)


def _start_value(A: np.ndarray) -> float | None:
    """The uniform start's value for IBU on A where the compiled loop takes G^T theta from the check's pass over A
    (``Group._start``: A 2-D with at most _KERNEL_WORK entries), else None."""
    wanted = _iteration._kernel is not None and A.ndim == 2 and 0 < A.size <= _iteration._KERNEL_WORK
    return _iteration._uniform(A.shape[0]) if wanted else None


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
    refuse_matrix(A, "A", "ibu_runs")
    A = check_row_stochastic(A, "A", atol=1e-9)
    counts = as_array(counts, "counts")
    if counts.ndim != 2 or counts.shape[1] != A.shape[1]:
        raise ValueError(f"counts must have shape (runs, {A.shape[1]}), got {counts.shape}")
    for run in counts:
        matrix_group(A, run)  # validates every run's counts
    delta, max_iter = check_stopping(delta, max_iter)
    seen = counts.max(axis=0) > 0
    n = counts.sum(axis=1, keepdims=True)
    G, W = _columns(np.ascontiguousarray(A), seen), _columns(counts, seen) / n
    results = _iterate_batch(G, W, delta, max_iter)
    # every run's likelihood shares G (a column a run did not report weighs 0 in it): no copy per run
    return [result._holding(_Likelihood(G, w, 0.0, None, float(users)))
            for result, w, users in zip(results, W, n[:, 0], strict=True)]


def gibu_matrix_runs(matrices: Sequence[np.ndarray], counts: np.ndarray, delta: float = 1e-10,
                     max_iter: int = 10_000) -> list[IbuResult]:
    """GIBU (Algorithm 1) on matrix mechanisms for many runs at once: counts (runs, M, m).

    Algorithm 1's update is IBU's update on the columns of all mechanisms side by side, weighted by count / n; IBU's
    update does not change when every column is scaled by one constant, so GIBU is IBU on the row-stochastic
    [A^1 | ... | A^M] / M with the concatenated counts, which ``ibu_runs`` batches over runs. The
    log-likelihood differs from Algorithm 1's by the constant log M, so the stopping rule is the same.

    Parameters
    ----------
    matrices : sequence of array_like, each of shape (k, m)
        The M mechanisms, rows summing to 1 within 1e-9, all with k rows and m columns.
    counts : array_like, shape (R, M, m)
        counts[r, i] holds the report counts of mechanism i's users in run r.
    delta, max_iter
        The stopping rule, as in ``gibu`` (each run stops on its own).

    Returns
    -------
    list of IbuResult
        One per run, in order; each that of ``gibu`` on the run's (matrix, counts) pairs, up to rounding.

    Raises
    ------
    ValueError
        If a matrix is not row-stochastic, the matrices differ in shape, counts is not (R, M, m), or as ``ibu_runs``.
    """
    check_sequence(matrices, "matrices", minimum=1)
    matrices = [check_row_stochastic(A, f"matrices[{i}]", atol=1e-9) for i, A in enumerate(matrices)]
    if any(A.shape != matrices[0].shape for A in matrices):
        raise ValueError(f"matrices must share one shape, got {[A.shape for A in matrices]}")
    counts = as_array(counts, "counts")
    if counts.ndim != 3 or counts.shape[1] != len(matrices):
        raise ValueError(f"counts must have shape (runs, {len(matrices)}, m), got {counts.shape}")
    stacked = np.concatenate(matrices, axis=1) / len(matrices)
    return ibu_runs(stacked, counts.reshape(counts.shape[0], -1), delta=delta, max_iter=max_iter)
