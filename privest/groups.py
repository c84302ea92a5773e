"""Likelihood groups: the reports of one mechanism as GIBU's likelihood needs them (free-will Algorithm 1).

Reports of one mechanism enter as a ``Group``: the columns of the mechanism for the observables that were reported,
and how often each was reported. A matrix mechanism's group is its matrix and the counts of its columns. A set-valued
protocol (``privest.protocols``) gives a ``SetGroup`` (its distinct reports' sets and the likelihood's two values) or,
where its report is k bits (SUE, OUE, SS) and for RAPPOR, a ``BitGroup``: the same, the sets kept bit-packed.
``privest.estimators.gibu`` works on any list of them.

A data model, below both ``privest.protocols`` (which build SetGroups and BitGroups) and ``privest.estimators``
(which iterate on them).
"""

import math
from dataclasses import dataclass, field

import numpy as np

from privest._checks import (
    check_finite,
    check_instance,
    check_int,
    check_integers,
    check_matrix,
    check_mechanism_columns,
    check_non_negative_array,
    check_positive,
    check_weights,
)
from privest.rappor import RapporReports, log_probability

__all__ = [
    "BitGroup",
    "Group",
    "GroupLike",
    "SetGroup",
    "matrix_group",
    "rappor_group",
]

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
    # (f, G^T (f, ..., f)) where ``ibu``'s one pass over its matrix computed it: IBU's first product from the
    # uniform start, summed as the compiled loop sums it, so that the iteration does not read G once more for it
    _start: tuple[float, np.ndarray] | None = field(default=None, init=False, repr=False, compare=False)

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
    (the members of S_i are ``indices[indptr[i]:indptr[i + 1]]``). GIBU iterates on it in O(sum of ``|S_i|``), never
    forming the k x ``|Z|`` matrix (OLH's Z holds 2^32 g reports). Build it with ``Protocol.group``.

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


@dataclass(frozen=True)
class BitGroup:
    """The reports of one mechanism whose report is a set S of secrets held as k bits, grouped by distinct report and
    kept bit-packed: unary encodings (SUE, OUE), subset selection (SS) and RAPPOR.

    P(report_i | x) = exp(log_scale[i]) * (high if x in S_i else low), the likelihood of ``SetGroup``; S_i is held as
    the k bits of row i of ``bits``, packed as ``numpy.packbits(membership, axis=1)`` packs them (numpy's default bit
    order: secret j is bit 7 - j % 8 of byte j // 8; the padding bits of the last byte are 0). GIBU iterates on it in
    O(m ceil(k / 8)) byte lookups, never forming the k x m matrix or a list of members.

    Attributes
    ----------
    k : int
        The number of secrets.
    bits : numpy.ndarray of uint8, shape (m, ceil(k / 8))
        Each distinct report's set, bit-packed.
    counts : numpy.ndarray, shape (m,)
        How many users sent each distinct report.
    high, low : float
        The two likelihood values (up to the report's factor), for secrets in and out of the set; both positive.
    log_scale : numpy.ndarray, shape (m,)
        The log of each report's factor, so that the log-likelihood is exact.
    """

    k: int
    bits: np.ndarray
    counts: np.ndarray
    high: float
    low: float
    log_scale: np.ndarray

    def __post_init__(self) -> None:
        check_int(self.k, "k", minimum=1)
        if not (isinstance(self.bits, np.ndarray) and self.bits.dtype == np.uint8 and self.bits.ndim == 2
                and self.bits.shape[1] == -(-self.k // 8)):
            raise ValueError(f"BitGroup: bits must be a uint8 array of shape (m, {-(-self.k // 8)}) (k = {self.k} "
                             f"bits packed by numpy.packbits), got {getattr(self.bits, 'dtype', type(self.bits))} "
                             f"{getattr(self.bits, 'shape', '')}")
        m = self.bits.shape[0]
        check_non_negative_array(self.counts, "counts", shape=(m,), positive_sum=True)
        check_finite(self.log_scale, "log_scale", shape=(m,))
        check_positive(self.high, "high")
        check_positive(self.low, "low")
        if self.k % 8 and m and np.any(self.bits[:, -1] & np.uint8((1 << (8 - self.k % 8)) - 1)):
            raise ValueError(f"BitGroup: the padding bits after secret {self.k - 1} must be 0")

    @property
    def n(self) -> float:
        return float(self.counts.sum())


GroupLike = Group | SetGroup | BitGroup | tuple


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
    A, column_max, _ = check_mechanism_columns(A, "A", atol=1e-9)
    return _reported_columns(A, check_weights(counts, A.shape[1], "counts"), column_max)


# A reported column whose largest entry is below this is scaled to a largest entry of 1 (``_reported_columns``): its
# products with theta (whose entries IBU floors at 2^-511) could underflow to 0. No mechanism of the papers or of
# privest's constructors has one; other columns keep their entries, and so every result its bits.
_FAINT_COLUMN = 2.0**-511


def _reported_columns(A: np.ndarray, counts: np.ndarray, column_max: np.ndarray | None = None,
                      start: tuple[float, np.ndarray] | None = None) -> Group:
    """``matrix_group`` on a checked A and counts (and A's column maxima, if the check gave them; and IBU's first
    product from the uniform start (f, A^T (f, ..., f)), if it gave that: see ``Group._start``)."""
    seen = counts > 0
    if seen.all():  # A as it is, no copy (C-contiguous: numpy's products, and so their bits, depend on the layout)
        G = np.ascontiguousarray(A)
    else:  # the reported columns, C-contiguous (a boolean mask would gather them column by column, in F order)
        G = np.compress(seen, A, axis=1)
        column_max = None if column_max is None else column_max[seen]
        start = None if start is None else (start[0], start[1][seen])
    column_max = G.max(axis=0) if column_max is None else column_max
    if column_max.min() <= 0:
        raise ValueError("counts: an observable was reported that no secret can produce under A")
    log_scale = np.zeros(G.shape[1])
    faint = column_max < _FAINT_COLUMN
    if faint.any():  # such a column's products with theta underflow to 0 (L = -inf, NaN estimates): its entries
        # over its largest, that scale in log_scale (P(z | x) = exp(log_scale[z]) G[x, z], IBU's updates unchanged)
        G = G.copy() if G is A else G
        G[:, faint] /= column_max[faint]
        log_scale[faint] = np.log(column_max[faint])
        start = None
    group = Group._of_checked(G, counts[seen], log_scale)
    if start is not None:
        object.__setattr__(group, "_start", start)
    return group


def rappor_group(reports: RapporReports) -> BitGroup | Group:
    """The group of RAPPOR reports: its distinct bit vectors, bit-packed (IBU paper, lemma in section 4.4).

    P(beta | x) = p^k e^{-(1/2 + S(beta)/2 - beta_x) eps} = exp(log_scale) (1 if beta_x = 1 else e^{-eps}), with
    log_scale = k log p + (1 - S(beta)) eps / 2: a ``BitGroup`` with high = 1 and low = e^{-eps}. Beyond eps = 700
    (e^{-eps} nears the smallest float64) a ``Group`` holding G = e^{eps (beta_x - 1)} and the same column scales.

    Parameters
    ----------
    reports : RapporReports
        The grouped reports of one RAPPOR mechanism (free-will eq. 12) on k secrets, m distinct bit vectors.

    Returns
    -------
    BitGroup or Group
        A group of the m distinct reports, never the 2^k-column matrix.

    Examples
    --------
    >>> import numpy as np
    >>> import privest
    >>> bits = np.array([[1, 0, 0], [1, 0, 0], [0, 1, 1]], dtype=np.uint8)
    >>> group = privest.rappor_group(privest.RapporReports.from_bits(bits, 1.0))
    >>> group.bits.ravel(), group.counts, round(group.low, 4)
    (array([ 96, 128], dtype=uint8), array([1., 2.]), 0.3679)
    """
    check_instance(reports, "reports", RapporReports, "a privest.RapporReports")
    if reports.eps > _RAPPOR_BITS_EPS:
        log_p = log_probability(reports.bits, reports.eps)
        log_scale = log_p.max(axis=0)
        return Group(np.exp(log_p - log_scale), reports.counts.astype(np.float64), log_scale)
    k, eps = reports.k, float(reports.eps)
    log_p = eps / 2 - np.logaddexp(0.0, eps / 2)
    log_scale = k * log_p + (1 - reports.bits.sum(axis=1, dtype=np.int64)) * (eps / 2)
    return BitGroup(k, np.packbits(reports.bits, axis=1), reports.counts.astype(np.float64), 1.0,
                    math.exp(-eps), log_scale)


# RAPPOR's eps up to which its group is a BitGroup (low = e^-eps a normal float64, as for the protocols' EPS_MAX)
_RAPPOR_BITS_EPS = 700.0


def _as_group(item: GroupLike) -> Group | SetGroup | BitGroup:
    """A GIBU group from what a caller holds: a group, a (protocol, reports) pair or a (matrix, counts) pair."""
    if isinstance(item, Group | SetGroup | BitGroup):
        return item
    if isinstance(item, tuple) and len(item) == 2:
        mechanism, reports = item
        if hasattr(mechanism, "group"):
            return mechanism.group(reports)
        if isinstance(mechanism, np.ndarray | list):
            return matrix_group(mechanism, reports)
    raise TypeError("groups: each item must be a Group, a SetGroup, a BitGroup, a (protocol, reports) pair or a "
                    f"(matrix, counts) pair, got {type(item).__name__}")
