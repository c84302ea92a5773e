"""RAPPOR with Bloom filters (Erlingsson, Pihur and Korolova, CCS 2014; pure-LDP's RAPPORClient/RAPPORServer): a
``Sketch`` on items 0..k-1, k up to 2^64, and Google's decoding of a candidate list, LASSO then least squares (the
paper's section 4; Fanti, Pihur and Erlingsson, PETS 2016, section 3).

A user holding x draws one of ``cohorts`` cohorts c uniformly and reports the ``bits`` bits of the Bloom filter
B_c(x) (bits h_{c,s}(x), s < ``hashes``, set) through the permanent randomised response: a bit of B_c(x) is reported
1 with probability 1 - f/2, any other bit with probability f/2 (one-time RAPPOR: no instantaneous response, as
pure-LDP). Two items differ in at most 2h bits, each of likelihood ratio (1 - f/2)/(f/2) = e^(eps/(2h)), so
f = 2/(1 + e^(eps/(2h))) gives eps-LDP (the paper's eps_inf = 2h ln((1 - f/2)/(f/2))). Hash s of cohort c is
xxh64(str(x), seed=c h + s) mod bits (pure-LDP's ``generate_hash``, whose servers draw the seeds at random; its
hash functions take these seeds in the conformance tests). Defaults: 2 hashes, 128 bits, 64 cohorts (the paper's
simulations, section 5).

``estimate``: t_{i,j} = (b_{i,j} - f/2)/(1 - f) has expectation bit j of B_{c_i}(x_i); a user's contribution to d is
Y_i(d) = (mean_s t_{i, h_{c_i,s}(d)} - beta)/(1 - beta), beta = 1 - (1 - 1/bits)^h the chance that an item with
independent uniform hashes sets a given bit: E[Y(d)] = 1[x = d] over the draw of the hashes, so the estimate is
unbiased as CMS's is (with the family fixed, E[theta-hat_d] = sum_x theta_x (F_x(d) - beta)/(1 - beta), F_x(d) the
share of d's (cohort, hash) bits set in B_c(x); the tests compute it exactly).

``decode`` is Google's estimator: y the estimated share of each cohort's users whose true filter has each bit set,
X[(c, j), d] = 1 if bit j of B_c(d) is set, y ~ X theta; the LASSO (non-negative coefficients, penalty ``penalty``
times the smallest penalty that zeroes every coefficient, by coordinate descent) selects candidates, least squares on
the selected gives their frequencies and standard errors, and a candidate is reported where its one-sided z test is
significant at ``alpha`` / (the number of candidates) (Bonferroni). Values of near-zero frequency are where it fails
(google/rappor#56): ``benchmarks/accuracy_sketch_mle.py`` measures it against the candidate MLE (``candidate_group``).
"""

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any, ClassVar

import numpy as np

from privest._checks import (
    check_between,
    check_finite,
    check_indices,
    check_instance,
    check_int,
    check_items,
    check_non_negative,
)
from privest.protocols.digests import xxh64_decimal
from privest.protocols.packed import PackedBits, set_bit, unary_packed
from privest.protocols.sketches import _BLOCK, Sketch, _bit_counts

__all__ = [
    "BloomReports",
    "RapporBloom",
    "RapporDecoding",
]


@dataclass(frozen=True)
class BloomReports:
    """Reports of RAPPOR with Bloom filters: user i's cohort ``cohorts[i]`` and ``bits[i]``, its perturbed filter."""

    cohorts: np.ndarray
    bits: PackedBits

    def __post_init__(self) -> None:
        cohorts = check_indices(self.cohorts, "cohorts", 2**16)
        check_instance(self.bits, "bits", PackedBits, "PackedBits")
        if len(self.bits) != cohorts.size:
            raise ValueError(f"bits must hold one report a cohort ({cohorts.size}), got {len(self.bits)}")

    def __len__(self) -> int:
        return int(self.cohorts.size)


@dataclass(frozen=True)
class RapporDecoding:
    """Google's decoding of a candidate list (``RapporBloom.decode``), one entry a candidate.

    Attributes
    ----------
    theta : numpy.ndarray
        The reported frequencies: the least-squares coefficient where significant, else 0.
    least_squares : numpy.ndarray
        The least-squares coefficients of the LASSO's selection (0 off it).
    std_error : numpy.ndarray
        Their standard errors (0 off the selection).
    selected, significant : numpy.ndarray of bool
        The LASSO's selection; the candidates whose z = coefficient / std_error exceeds the one-sided normal
        quantile of alpha / c.
    """

    theta: np.ndarray
    least_squares: np.ndarray
    std_error: np.ndarray
    selected: np.ndarray
    significant: np.ndarray


def nonnegative_lasso(X: np.ndarray, y: np.ndarray, penalty: float, tol: float = 1e-10,
                      max_sweeps: int = 100_000) -> np.ndarray:
    """argmin over b >= 0 of ||y - X b||^2 / (2 r) + penalty ||b||_1 (r the rows of X; glmnet's and scikit-learn's
    objective without intercept), by cyclic coordinate descent on the Gram matrix until no coefficient moves by more
    than ``tol`` in a sweep.

    Parameters
    ----------
    X : numpy.ndarray, shape (r, c)
    y : numpy.ndarray, shape (r,)
    penalty : float
        lambda >= 0.

    Returns
    -------
    numpy.ndarray, shape (c,)
    """
    X = check_finite(X, "X", ndim=2)
    y = check_finite(y, "y", shape=(X.shape[0],))
    penalty = check_non_negative(penalty, "penalty")
    if X.shape[0] == 0:
        raise ValueError("X must have at least one row")
    rows = X.shape[0]
    gram, target = X.T @ X / rows, X.T @ y / rows
    b = np.zeros(X.shape[1])
    diagonal = np.diag(gram).copy()
    for _ in range(max_sweeps):
        moved = 0.0
        for j in np.flatnonzero(diagonal > 0):
            new = max(0.0, (target[j] - gram[j] @ b + diagonal[j] * b[j] - penalty) / diagonal[j])
            moved = max(moved, abs(new - b[j]))
            b[j] = new
        if moved <= tol:
            break
    return b


@dataclass(frozen=True)
class RapporBloom(Sketch):
    """RAPPOR with Bloom filters (module docstring): ``hashes`` hash functions a cohort into ``bits`` bits,
    ``cohorts`` cohorts; f = 2/(1 + e^(eps/(2 hashes))). Defaults: 2 hashes, 128 bits, 64 cohorts."""

    hashes: int = 2
    bits: int = 128
    cohorts: int = 64
    name: ClassVar[str] = "RAPPOR-Bloom"

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "hashes", check_int(self.hashes, "hashes", minimum=1, maximum=64))
        object.__setattr__(self, "bits", check_int(self.bits, "bits", minimum=2, maximum=2**16))
        object.__setattr__(self, "cohorts", check_int(self.cohorts, "cohorts", minimum=1, maximum=2**16))

    @property
    def f(self) -> float:
        """The permanent randomised response's f, 2/(1 + e^(eps/(2 hashes)))."""
        return 2 / (1 + math.exp(self.eps / (2 * self.hashes)))

    @property
    def seeds(self) -> np.ndarray:
        """The xxh64 seed of hash s of cohort c, c hashes + s, shape (cohorts, hashes) uint64."""
        return np.arange(self.cohorts * self.hashes, dtype=np.uint64).reshape(self.cohorts, self.hashes)

    def filters(self, items: Any) -> np.ndarray:
        """h_{c,s}(x): the bits of each cohort's Bloom filter of each queried item, shape (cohorts, hashes, q)."""
        items = check_items(items, "items", self.k, ndim=1)
        return (xxh64_decimal(items[None, None, :], self.seeds[:, :, None]) % np.uint64(self.bits)).astype(np.int64)

    def _sample(self, items: np.ndarray, rng: np.random.Generator) -> BloomReports:
        cohorts = rng.integers(0, self.cohorts, items.size)
        positions = (xxh64_decimal(items[:, None], self.seeds[cohorts]) % np.uint64(self.bits)).astype(np.int64)
        low = self.f / 2
        packed = unary_packed(positions[:, 0], self.bits, low, 1 - low, rng)
        for s in range(1, self.hashes):  # a bit not set by an earlier hash: drawn again as a filter bit
            fresh = np.all(positions[:, s:s + 1] != positions[:, :s], axis=1)
            on = rng.random(items.size) < 1 - low
            rows = np.flatnonzero(fresh)
            sub = packed[rows]
            set_bit(sub, positions[rows, s], on[rows])
            packed[rows] = sub
        return BloomReports(cohorts, PackedBits(packed, self.bits))

    def _reports(self, reports: BloomReports) -> BloomReports:
        check_instance(reports, f"{self.name}: reports", BloomReports, "BloomReports (cohorts, bits)")
        self._indexed_bits(reports.cohorts, "cohorts", self.cohorts, reports.bits, "bits", self.bits)
        return reports

    def counts(self, reports: BloomReports) -> tuple[np.ndarray, np.ndarray]:
        """(users of each cohort, shape (cohorts,); how many of them reported each bit set, shape (cohorts, bits))."""
        reports = self._reports(reports)
        return (np.bincount(reports.cohorts, minlength=self.cohorts),
                _bit_counts(reports.cohorts, reports.bits, self.cohorts))

    def _beta(self) -> float:
        return 1 - (1 - 1 / self.bits) ** self.hashes

    def co_occurrence(self, reports: BloomReports) -> np.ndarray:
        """How many users of each cohort reported both bits i and j set, shape (cohorts, bits, bits) int64 (the
        diagonal: each bit's count), by one matrix product of the unpacked bits a cohort."""
        reports = self._reports(reports)
        order = np.argsort(reports.cohorts, kind="stable")
        bounds = np.concatenate([[0], np.cumsum(np.bincount(reports.cohorts, minlength=self.cohorts))])
        packed = reports.bits.bits[order]
        out = np.zeros((self.cohorts, self.bits, self.bits), dtype=np.int64)
        for c in range(self.cohorts):
            for first in range(bounds[c], bounds[c + 1], _BLOCK // self.bits):  # float64 sums exact below 2^53
                last = min(first + _BLOCK // self.bits, bounds[c + 1])
                unpacked = np.unpackbits(packed[first:last], axis=1, count=self.bits).astype(np.float64)
                out[c] += np.rint(unpacked.T @ unpacked).astype(np.int64)
        return out

    def _moments(self, reports: BloomReports, items: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Y = a S + b0, S the number of d's h bits (with repeats) reported 1 in the user's cohort: sum S from the
        bits' counts and sum S^2 = sum over hash pairs (s, s') of the co-occurrence of bits h_s(d), h_s'(d)."""
        filters, n = self.filters(items), len(reports)  # (cohorts, h, q)
        together = self.co_occurrence(reports)
        cohort = np.arange(self.cohorts)[:, None]
        first = np.stack([together[cohort, filters[:, s], filters[:, s]] for s in range(self.hashes)]).sum(axis=(0, 1))
        second = sum(together[cohort, filters[:, s], filters[:, r]].sum(axis=0)
                     for s in range(self.hashes) for r in range(self.hashes))
        beta = self._beta()
        a = 1 / (self.hashes * (1 - self.f) * (1 - beta))
        b0 = (-self.f / 2 / (1 - self.f) - beta) / (1 - beta)
        first, second = first.astype(np.float64), np.asarray(second, dtype=np.float64)
        return a * first + n * b0, a**2 * second + 2 * a * b0 * first + n * b0**2

    def _candidate_likelihood(self, reports: BloomReports, candidates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """P(report | d) relative to a filter of no bits: e^(a) for each bit of B_c(d) reported 1, e^(-a) for each
        reported 0, a = eps/(2h); "other": its mean over h independent uniform bits (``_other``)."""
        a, n = self.eps / (2 * self.hashes), len(reports)
        cells = self.filters(candidates)[reports.cohorts]  # (n, h, c)
        bit = (reports.bits.bits[np.arange(n)[:, None, None], cells // 8] >> (7 - cells % 8).astype(np.uint8)) & 1
        fresh = np.ones(cells.shape, dtype=bool)
        for s in range(1, self.hashes):
            fresh[:, s] = np.all(cells[:, s:s + 1] != cells[:, :s], axis=1)
        exponent = (np.where(bit == 1, a, -a) * fresh).sum(axis=1)  # (n, c)
        ones = reports.bits.set_counts()
        low = self.f / 2
        log_scale = ones * math.log(low) + (self.bits - ones) * math.log1p(-low) - math.log(self.cohorts)
        return np.column_stack([np.exp(exponent), self._other(ones)]), log_scale

    def _other(self, ones: np.ndarray) -> np.ndarray:
        """E over h independent uniform bits of e^(a (distinct drawn bits reported 1) - a (distinct drawn bits
        reported 0)), for reports of ``ones`` set bits: a recursion over the draws on (ones drawn, zeros drawn)."""
        a, m, h = self.eps / (2 * self.hashes), self.bits, self.hashes
        values, inverse = np.unique(ones, return_inverse=True)
        state = np.zeros((values.size, h + 1, h + 1))
        state[:, 0, 0] = 1.0
        for _ in range(h):
            new = np.zeros_like(state)
            for i in range(h + 1):
                for z in range(h + 1 - i):
                    mass = state[:, i, z]
                    new[:, i, z] += mass * (i + z) / m
                    if i < h:
                        new[:, i + 1, z] += mass * np.maximum(values - i, 0) / m * math.exp(a)
                    if z < h:
                        new[:, i, z + 1] += mass * np.maximum(m - values - z, 0) / m * math.exp(-a)
            state = new
        return state.sum(axis=(1, 2))[inverse]

    def regression(self, reports: BloomReports, candidates: Any) -> tuple[np.ndarray, np.ndarray]:
        """Google's regression y ~ X theta (Erlingsson et al. section 4): y[(c, j)] = (ones_cj / n_c - f/2)/(1 - f),
        the estimated share of cohort c's users whose true filter has bit j set, and X[(c, j), d] = 1 if bit j of
        B_c(d) is set, over the cohorts with users (rows cohort-major).

        Parameters
        ----------
        reports, candidates
            As in ``decode``.

        Returns
        -------
        (X, y) : numpy.ndarray of shapes (r, c) and (r,)
        """
        users, ones = self.counts(reports)
        candidates = check_items(candidates, "candidates", self.k, ndim=1)
        if len(reports) == 0 or candidates.size == 0 or np.unique(candidates).size != candidates.size:
            raise ValueError(f"{self.name}: reports must not be empty and candidates must be distinct items, at least "
                             f"one, got {len(reports)} reports and {candidates.size} candidates")
        kept = users > 0
        y = ((ones[kept] / users[kept, None] - self.f / 2) / (1 - self.f)).ravel()
        X = np.zeros((self.cohorts, self.bits, candidates.size))
        filters = self.filters(candidates)
        for s in range(self.hashes):
            X[np.arange(self.cohorts)[:, None], filters[:, s], np.arange(candidates.size)[None, :]] = 1.0
        return X[kept].reshape(-1, candidates.size), y

    def decode(self, reports: BloomReports, candidates: Any, alpha: float = 0.05, penalty: float = 0.01
               ) -> RapporDecoding:
        """Google's decoding (module docstring): the LASSO's selection among the candidates, least squares on it, and
        the candidates significant at alpha with Bonferroni's correction.

        Parameters
        ----------
        reports
            This sketch's reports (not empty).
        candidates : array_like of int, shape (c,)
            Distinct items in 0..k-1.
        alpha : float
            The family-wise significance level, in (0, 1).
        penalty : float
            The LASSO's lambda as a share of the smallest lambda that zeroes every coefficient, in [0, 1] (0.01:
            glmnet's last lambda when there are more candidates than rows; 0 selects by non-negativity alone).

        Returns
        -------
        RapporDecoding
        """
        alpha = check_between(alpha, "alpha", 1e-300, 1 - 1e-12)
        penalty = check_between(penalty, "penalty", 0.0, 1.0)
        X, y = self.regression(reports, candidates)
        candidates = np.empty(X.shape[1])
        top = max(float((X.T @ y).max()) / X.shape[0], 0.0)
        selected = nonnegative_lasso(X, y, penalty * top) > 0
        coefficients, std_error = np.zeros(candidates.size), np.zeros(candidates.size)
        if selected.any():
            chosen = X[:, selected]
            fit, *_ = np.linalg.lstsq(chosen, y, rcond=None)
            dof = max(chosen.shape[0] - int(selected.sum()), 1)
            sigma2 = float(((y - chosen @ fit) ** 2).sum()) / dof
            coefficients[selected] = fit
            std_error[selected] = np.sqrt(np.maximum(np.diag(np.linalg.pinv(chosen.T @ chosen)), 0.0) * sigma2)
        threshold = -NormalDist().inv_cdf(alpha / candidates.size)
        significant = selected & (coefficients > threshold * std_error)
        return RapporDecoding(np.where(significant, coefficients, 0.0), coefficients, std_error, selected, significant)

    def _audit_event(self, reports: BloomReports, x1: int, x2: int) -> np.ndarray:
        """In a cohort where the 2h bits of x1 and x2 are distinct, every bit of B_c(x1) reported 1 and every bit of
        B_c(x2) reported 0: probability ((1 - f/2) (1 - f/2))^h under x1 against (f/2 f/2)^h under x2, ratio e^eps."""
        reports = self._reports(reports)
        cells = self.filters(np.array([x1, x2], dtype=np.uint64))  # (cohorts, h, 2)
        both = cells.transpose(0, 2, 1).reshape(self.cohorts, -1)
        distinct = np.array([np.unique(row).size == row.size for row in both])
        n, bits = len(reports), reports.bits.unpack()
        own = cells[reports.cohorts]  # (n, h, 2)
        rows = np.arange(n)[:, None]
        return distinct[reports.cohorts] & bits[rows, own[:, :, 0]].all(axis=1) & ~bits[rows, own[:, :, 1]].any(axis=1)

    def _audit_description(self, x1: int, x2: int) -> str:
        return f"a cohort where B_c({x1}), B_c({x2}) share no bit: B_c({x1})'s bits reported 1, B_c({x2})'s 0"
