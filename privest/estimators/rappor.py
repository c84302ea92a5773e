"""RAPPOR's own estimator RAP and [RAP]_M over RAPPOR mechanisms of several eps (free-will eqs. 13-14), from the
bits or from grouped reports' sufficient statistics. (The likelihood of RAPPOR reports, for GIBU, is
``privest.groups.rappor_group``.)
"""

from collections.abc import Sequence

import numpy as np

from privest._checks import (
    check_bits,
    check_choice,
    check_instance,
    check_sequence,
)
from privest.consistency import NEEDS_VARIANCE, POSTS, AnyPost, apply
from privest.estimators._calls import refuse_matrix
from privest.rappor import RapporReports, flip_probability

__all__ = [
    "rap",
    "rap_grouped",
]

def _rap(bit_sums: np.ndarray, n: float, flip: float, post: AnyPost, flip_variance: float) -> np.ndarray:
    """Eq. (14) written with f = 1/(1 + e^{eps[n]/2}) of eq. (13): theta = (s[n] - f) / (1 - 2 f). flip_variance is
    sum over users of f_i (1 - f_i): the variance of a bit sum of a value no user holds, whence Var* of Base-Cut,
    Power and PowerNS (NDSS 2020, section IV)."""
    raw = (bit_sums / n - flip) / (1 - 2 * flip)
    if post not in NEEDS_VARIANCE:
        return apply(raw, post)
    return apply(raw, post, variance=flip_variance / (n * (1 - 2 * flip)) ** 2, n=round(n))


def rap(bits: np.ndarray, eps: float | np.ndarray, post: AnyPost = None) -> np.ndarray:
    """[RAP]_M (free-will eqs. 13-14) from a (users x k) bit matrix, eps one value or one per user.

    With one eps this is RAPPOR's own estimator RAP. eps[n] is defined by eq. 13 (the flip probabilities averaged
    over the users), and theta = (s[n] - f) / (1 - 2 f) with s[n] the mean bit vector and f = 1/(1 + e^{eps[n]/2}).

    Parameters
    ----------
    bits : array_like, shape (n, k)
        One RAPPOR report (eq. 12) per user.
    eps : float or array_like of shape (n,)
        The users' privacy levels.
    post : str or None
        The post-processing, as in ``inv`` (every method of ``privest.consistency``).

    Returns
    -------
    numpy.ndarray, shape (k,)
        The estimate of theta.

    Raises
    ------
    ValueError
        If bits is not a non-empty 2-D matrix, eps is not finite and positive, or post is not one of the values above.
    """
    refuse_matrix(bits, "bits", "rap", what="bits", constructors=False)
    check_choice(post, "post", POSTS)
    bits = check_bits(bits)
    if bits.shape[0] == 0:
        raise ValueError(f"bits must be a non-empty (users x k) matrix, got shape {bits.shape}")
    flip = flip_probability(eps)
    if np.ndim(flip) and np.shape(flip) != (bits.shape[0],):
        raise ValueError(f"eps must be one value or one per user ({bits.shape[0]},), got shape {np.shape(flip)}")
    flip = np.broadcast_to(flip, (bits.shape[0],))
    return _rap(bits.sum(axis=0, dtype=np.int64), bits.shape[0], float(flip.mean()), post, float(flip @ (1 - flip)))


def rap_grouped(reports: Sequence[RapporReports], post: AnyPost = None) -> np.ndarray:
    """[RAP]_M (free-will eqs. 13-14) from grouped reports, through the sufficient statistics (bit sums, n^A).

    Parameters
    ----------
    reports : sequence of RapporReports
        The grouped reports of each RAPPOR mechanism, all on the same k secrets.
    post : str or None
        The post-processing, as in ``inv`` (every method of ``privest.consistency``).

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
    flips = np.array([flip_probability(r.eps) for r in reports])
    return _rap(np.sum([r.bit_sums() for r in reports], axis=0), n.sum(), float(n @ flips / n.sum()), post,
                float(n @ (flips * (1 - flips))))
