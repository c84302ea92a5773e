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
from privest.rappor import RapporReports, flip_probability
from privest.simplex import POSTS, Post, post_process

__all__ = [
    "rap",
    "rap_grouped",
]

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
