"""Fast local hashing (pure-LDP's FastLHClient/FastLHServer): OLH (Wang et al. 2017) on a finite family of hash
functions, as a sketch oracle (``privest.protocols.sketches.Sketch``) on items 0..k-1, k up to 2^64: hash j is
xxh32(str(x), seed=j) mod g, g = round(e^eps) + 1, and a user reports (j, GRR over g of h_j(x)).
"""

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from privest._checks import check_indices, check_instance, check_int, check_items
from privest.protocols.base import _grr
from privest.protocols.digests import xxh32_decimal_wide
from privest.protocols.hashing import HashReports
from privest.protocols.sketches import Sketch

__all__ = [
    "FLH",
]


@dataclass(frozen=True)
class FLH(Sketch):
    """Fast local hashing (pure-LDP's FastLHClient/FastLHServer; OLH of Wang et al. 2017 on a finite family of
    ``hashes`` hash functions, xxh32(str(x), seed=j) mod g, g = round(e^eps) + 1): each user draws j and reports
    GRR over g of h_j(x). Default 1024 hashes. eps at most ln(2^32 - 1), as OLH's."""

    hashes: int = 1024
    name: ClassVar[str] = "FLH"
    eps_max: ClassVar[float] = math.log(2**32 - 1)

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "hashes", check_int(self.hashes, "hashes", minimum=1, maximum=2**32))

    @property
    def g(self) -> int:
        """The number of hashed values, round(e^eps) + 1 (``numpy.rint``, as OLH)."""
        return int(np.rint(math.exp(self.eps))) + 1

    @property
    def keep(self) -> float:
        """p = e^eps/(e^eps + g - 1), the probability of reporting h_j(x)."""
        return 1 / (1 + (self.g - 1) * math.exp(-self.eps))

    def cells(self, items: Any) -> np.ndarray:
        """h_j(x) for every hash j (rows) and queried item x (columns), shape (hashes, q) int64."""
        items = check_items(items, "items", self.k, ndim=1)
        seeds = np.arange(self.hashes, dtype=np.uint64)[:, None]
        return (xxh32_decimal_wide(items[None, :], seeds) % np.uint64(self.g)).astype(np.int64)

    def _sample(self, items: np.ndarray, rng: np.random.Generator) -> HashReports:
        seeds = rng.integers(0, self.hashes, items.size, dtype=np.uint64).astype(np.uint32)
        hashed = (xxh32_decimal_wide(items, seeds) % np.uint64(self.g)).astype(np.int64)
        return HashReports(seeds, _grr(hashed, self.g, self.keep, rng))

    def _reports(self, reports: HashReports) -> HashReports:
        check_instance(reports, f"{self.name}: reports", HashReports, "HashReports (seeds, values)")
        check_indices(reports.seeds, f"{self.name}: reports.seeds", self.hashes)
        check_indices(reports.values, f"{self.name}: reports.values", self.g, shape=reports.seeds.shape)
        return reports

    def _moments(self, reports: HashReports, items: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        keys = np.sort(reports.seeds.astype(np.int64) * self.g + reports.values)
        asked = np.arange(self.hashes, dtype=np.int64)[:, None] * self.g + self.cells(items)
        hits = (np.searchsorted(keys, asked, side="right") - np.searchsorted(keys, asked)).sum(axis=0)
        gap = self.keep - 1 / self.g
        return self._two_valued(len(reports), hits.astype(np.float64), -1 / self.g / gap, (1 - 1 / self.g) / gap)

    def _candidate_likelihood(self, reports: HashReports, candidates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        hit = self.cells(candidates)[reports.seeds.astype(np.int64)] == reports.values[:, None]
        low = (1 - self.keep) / (self.g - 1)
        likelihood = np.column_stack([np.where(hit, self.keep, low), np.full(len(reports), 1 / self.g)])
        return likelihood, np.full(len(reports), -math.log(self.hashes))

    def _audit_event(self, reports: HashReports, x1: int, x2: int) -> np.ndarray:
        """h_j(x1) reported and h_j(x2) not: ratio p / ((1 - p)/(g - 1)) = e^eps."""
        reports = self._reports(reports)
        n = len(reports)
        first, second = ((xxh32_decimal_wide(np.full(n, x, dtype=np.uint64), reports.seeds) % np.uint64(self.g))
                         .astype(np.int64) for x in (x1, x2))
        return (reports.values == first) & (reports.values != second)

    def _audit_description(self, x1: int, x2: int) -> str:
        return f"h_j({x1}) reported and h_j({x2}) not"
