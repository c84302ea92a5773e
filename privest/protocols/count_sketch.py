"""Private Count Sketch (pure-LDP's PCSClient/PCSServer; the count sketch of Charikar, Chen and Farach-Colton 2002
under randomised response, as in Bassily et al. 2017 and Apple 2017): a ``Sketch`` on items 0..k-1, k up to 2^64.

A user holding x draws one of l = ``hashes`` hash pairs (h_j into ``width`` cells, g_j a sign) and reports j and a
vector v in {-1, 1}^width: every entry a fair coin but v[h_j(x)] = g_j(x) b, b = 1 with probability e^eps/(1 + e^eps)
else -1 (pure-LDP's ``_perturb``). The report is stored as width bits, bit = (v + 1)/2. The contribution of user i to
item d is Y_i(d) = c g_j(d) v_i[h_j(d)], c = (e^eps + 1)/(e^eps - 1): E[Y(d) | x = d] = 1 and, for x != d, 0 over the
draw of the hash pairs (g_j(d) g_j(x) independent signs where the cells collide, a fair coin where they do not), so
``estimate`` is unbiased and ``estimate_variance`` is exact: Y^2 = c^2, Var[theta-hat_d] = (c^2 - theta_d^2)/n for
i.i.d. items.

The hash pairs are pure-LDP's: h_j(x) = xxh64(str(x), seed=j) mod width and g_j(x) = 2 (xxh64(str(x), seed=j) mod 2)
- 1 (``generate_hash_funcs(l, w)`` and ``generate_hash_funcs(l, 2)``: the same digest). For an even width g_j(x) is
therefore the parity of h_j(x): items that share a cell share a sign, and with this fixed family the estimate of d
carries the mass of the items colliding with it, E[theta-hat_d] = sum_x theta_x F_x(d), F_x(d) = mean_j 1[h_j(x) =
h_j(d)] g_j(x) g_j(d) (as CMS's collision bias; the tests compute it exactly). pure-LDP's server returns sum_j g_j(d)
M[j, h_j(d)] / l with M[j] = l sum of the vectors of hash j (``use_median=False``): theta-hat_d n / c; by default it
returns the median over j, which is not unbiased, and it never rescales by c.
"""

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from privest._checks import check_instance, check_items
from privest.protocols.digests import xxh64_decimal
from privest.protocols.packed import PackedBits
from privest.protocols.sketches import CmsReports, _bit_counts, _HashedSketch

__all__ = [
    "PCS",
    "PcsReports",
]


@dataclass(frozen=True)
class PcsReports(CmsReports):
    """Reports of PCS: user i's hash index ``hashes[i]`` and ``bits[i]``, the width bits of its vector (pure-LDP's v
    in {-1, 1}^width is 2 bits - 1)."""


def _bit_at(bits: np.ndarray, users: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """Bit ``cells`` of packed row ``users`` (broadcast), as uint8 0/1."""
    return (bits[users, cells // 8] >> (7 - cells % 8).astype(np.uint8)) & np.uint8(1)


@dataclass(frozen=True)
class PCS(_HashedSketch):
    """Private Count Sketch (pure-LDP's PCSClient/PCSServer, module docstring): each user draws one of ``hashes`` hash
    pairs (h_j, g_j) and reports width fair coins but for cell h_j(x), which holds g_j(x) kept with probability
    e^eps/(1 + e^eps). Defaults: 256 hashes, width 1024."""

    name: ClassVar[str] = "PCS"

    @property
    def keep(self) -> float:
        """The probability that v[h_j(x)] = g_j(x), e^eps/(1 + e^eps)."""
        return 1 / (1 + math.exp(-self.eps))

    def cells_and_signs(self, items: Any) -> tuple[np.ndarray, np.ndarray]:
        """(h_j(x), g_j(x)) for every hash j (rows) and queried item x (columns): cells int64 in 0..width-1 and signs
        int8 in {-1, 1}, each of shape (hashes, q)."""
        items = check_items(items, "items", self.k, ndim=1)
        digests = xxh64_decimal(items[None, :], np.arange(self.hashes, dtype=np.uint64)[:, None])
        return self._split(digests)

    def _split(self, digests: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        cells = (digests % np.uint64(self.width)).astype(np.int64)
        return cells, (2 * (digests & np.uint64(1)).astype(np.int8) - 1).astype(np.int8)

    def _sample(self, items: np.ndarray, rng: np.random.Generator) -> PcsReports:
        n = items.size
        hashes = rng.integers(0, self.hashes, n)
        cells, signs = self._split(xxh64_decimal(items, hashes.astype(np.uint64)))
        bits = rng.integers(0, 256, (n, -(-self.width // 8)), dtype=np.uint8)
        if self.width % 8:
            bits[:, -1] &= np.uint8((0xFF << (8 - self.width % 8)) & 0xFF)
        kept = rng.random(n) < self.keep
        value = np.where(kept, signs > 0, signs < 0).astype(np.uint8)  # the bit of g_j(x) b
        shift = (7 - cells % 8).astype(np.uint8)
        rows, columns = np.arange(n), cells // 8
        bits[rows, columns] = (bits[rows, columns] & ~(np.uint8(1) << shift)) | (value << shift)
        return PcsReports(hashes, PackedBits(bits, self.width))

    def _reports(self, reports: PcsReports) -> PcsReports:
        check_instance(reports, f"{self.name}: reports", PcsReports, "PcsReports (hashes, bits)")
        self._indexed_bits(reports.hashes, "hashes", self.hashes, reports.bits, "width", self.width)
        return reports

    def sketch(self, reports: PcsReports) -> np.ndarray:
        """The sum of the users' vectors v of each hash index, shape (hashes, width) int64 (pure-LDP's sketch matrix
        over l), from per-byte histograms of the packed bits."""
        reports = self._reports(reports)
        users = np.bincount(reports.hashes, minlength=self.hashes)
        return 2 * _bit_counts(reports.hashes, reports.bits, self.hashes) - users[:, None]

    def _moments(self, reports: PcsReports, items: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        cells, signs = self.cells_and_signs(items)
        agree = (signs * self.sketch(reports)[np.arange(self.hashes)[:, None], cells]).sum(axis=0)
        c = 1 / math.tanh(self.eps / 2)  # (e^eps + 1)/(e^eps - 1)
        n = len(reports)
        return c * agree.astype(np.float64), np.full(items.size, n * c**2)

    def _candidate_likelihood(self, reports: PcsReports, candidates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """P(report | d) = (1/l) 2^-(width - 1) (keep if v[h_j(d)] = g_j(d) else 1 - keep); "other": 1/2 for keep."""
        cells, signs = self.cells_and_signs(candidates)
        cells, signs = cells[reports.hashes], signs[reports.hashes]  # (n, c)
        bit = _bit_at(reports.bits.bits, np.arange(len(reports))[:, None], cells)
        hit = bit == (signs > 0)
        likelihood = np.column_stack([np.where(hit, self.keep, 1 - self.keep), np.full(len(reports), 0.5)])
        log_scale = np.full(len(reports), -math.log(self.hashes) - (self.width - 1) * math.log(2))
        return likelihood, log_scale

    def _audit_event(self, reports: PcsReports, x1: int, x2: int) -> np.ndarray:
        """v[h_j(x1)] = g_j(x1) and v[h_j(x2)] != g_j(x2): ratio (keep/2)/((1 - keep)/2) = e^eps where the cells
        differ; impossible under either input where they are equal with equal signs."""
        reports = self._reports(reports)
        n = len(reports)
        got = []
        for x in (x1, x2):
            cells, signs = self._split(xxh64_decimal(np.full(n, x, dtype=np.uint64), reports.hashes.astype(np.uint64)))
            got.append(_bit_at(reports.bits.bits, np.arange(n), cells) == (signs > 0))
        return got[0] & ~got[1]

    def _audit_description(self, x1: int, x2: int) -> str:
        return f"v[h_j({x1})] = g_j({x1}) and v[h_j({x2})] != g_j({x2})"
