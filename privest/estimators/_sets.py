"""The sparse likelihood of GIBU's set-valued groups (``SetGroup``: GRR, OLH, BLH, HR, ... as CSR membership rows),
and a set-valued group as a matrix group where its dense matrix is small. Private: ``privest.estimators._iteration``
uses them."""

from collections.abc import Sequence

import numpy as np

from privest.groups import Group, SetGroup


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


def as_matrix_group(group: SetGroup) -> Group:
    """A set-valued group as a matrix group: column i holds high for the members of S_i and low elsewhere, with the
    report's log scale; the same likelihood (SetGroup's P(report_i | x)), so the same GIBU update."""
    m = group.counts.size
    G = np.full((group.k, m), group.low)
    G[group.indices, np.repeat(np.arange(m), np.diff(group.indptr))] = group.high
    return Group._of_checked(G, group.counts, group.log_scale)
