"""The estimators of a mixture of mechanisms that are not GIBU (free-will sections 4-5): [INV]_M and [IBU]_M on
the average mechanism and the pooled reports, and [e]_R, each mechanism's own estimate weighted by its users.
"""

from collections.abc import Sequence

import numpy as np

from privest._checks import (
    check_finite,
    check_non_negative_array,
    check_row_stochastic,
    check_sequence,
    check_weights,
)
from privest.consistency import AnyPost
from privest.estimators._calls import refuse_matrix
from privest.estimators.inversion import inv
from privest.estimators.iterative import Accelerate, IbuResult, Stop, ibu
from privest.mechanisms import average

__all__ = [
    "combine_results",
    "ibu_m",
    "inv_m",
]

def _pooled(mechanisms: Sequence[np.ndarray], counts: Sequence[np.ndarray], function: str
            ) -> tuple[np.ndarray, np.ndarray]:
    check_sequence(mechanisms, "mechanisms", minimum=1)
    for i, A in enumerate(mechanisms):
        refuse_matrix(A, f"mechanisms[{i}]", function)
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


def inv_m(mechanisms: Sequence[np.ndarray], counts: Sequence[np.ndarray], post: AnyPost = None) -> np.ndarray:
    """[INV]_M (free-will eq. 7): INV on the average mechanism and the pooled reports.

    Parameters
    ----------
    mechanisms : sequence of array_like, each of shape (k, k)
        The mechanisms used, all with the same observables Z = X.
    counts : sequence of array_like, each of shape (k,)
        The report counts of each mechanism's users; their sums n^A weigh the average mechanism A[n].
    post : str or None
        The post-processing, as in ``inv`` (every method of ``privest.consistency``).

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
    return inv(*_pooled(mechanisms, counts, "inv_m"), post=post)


def ibu_m(mechanisms: Sequence[np.ndarray], counts: Sequence[np.ndarray], delta: float = 1e-10,
          max_iter: int = 10_000, accelerate: Accelerate = "squarem-newton", stop: Stop = "gap") -> IbuResult:
    """[IBU]_M (free-will section 5.3): IBU on the average mechanism and the pooled reports.

    Parameters
    ----------
    mechanisms : sequence of array_like, each of shape (k, m)
        The mechanisms used, all with the same observables.
    counts : sequence of array_like, each of shape (m,)
        The report counts of each mechanism's users; their sums n^A weigh the average mechanism A[n] (eq. 7).
    delta, max_iter, accelerate, stop
        The stopping rule and the acceleration, as in ``gibu`` (``**privest.estimators.PLAIN_IBU``: the papers').

    Returns
    -------
    IbuResult
        The IBU estimate on (A[n], pooled counts).

    Raises
    ------
    ValueError
        If counts does not hold one array per mechanism, or as ``average`` and ``ibu``.
    """
    return ibu(*_pooled(mechanisms, counts, "ibu_m"), delta=delta, max_iter=max_iter, accelerate=accelerate, stop=stop)


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
