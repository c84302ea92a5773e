"""Local hashing (Wang et al. 2017): BLH and OLH, k-RR over the g values of a seeded hash (``xxh32``), and their
reports ``HashReports`` (seed, hashed value).
"""

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from privest._checks import (
    check_flag,
    check_instance,
    check_int,
    check_integers,
    check_mapping,
    check_rng,
    check_secrets,
    check_text,
)
from privest.protocols.base import EPS_MIN, _grr, _RandomisedResponse
from privest.protocols.xxh32 import _members, _support, xxh32_decimal

__all__ = [
    "BLH",
    "OLH",
    "OLH_EPS_MAX",
    "HashReports",
]

OLH_EPS_MAX = math.log(2**32 - 1)
"""The largest eps of OLH, about 22.18: g = round(e^eps) + 1 <= 2^32, the range of the 32-bit hash."""


@dataclass(frozen=True)
class HashReports:
    """Reports of local hashing (BLH, OLH): user i hashed their secret with the function of ``seeds[i]`` and reported
    ``values[i]`` in [0, g) through GRR over the g hashed values.

    Attributes
    ----------
    seeds : numpy.ndarray of uint32, shape (n,)
        Each user's hash seed: h_seed(v) = xxh32(str(v), seed) mod g.
    values : numpy.ndarray of int64, shape (n,)
        Each user's reported hashed value.
    """

    seeds: np.ndarray
    values: np.ndarray

    def __post_init__(self) -> None:
        check_integers(self.seeds, "seeds", 0, 2**32, ndim=1)
        check_integers(self.values, "values", 0, None, ndim=1)
        if self.seeds.shape != self.values.shape or self.seeds.ndim != 1:
            raise ValueError(f"seeds and values must be 1-D of one length, got {self.seeds.shape}, "
                             f"{self.values.shape}")

    def __len__(self) -> int:
        return int(self.values.size)

    def __getitem__(self, index: Any) -> "HashReports":
        return HashReports(self.seeds[index], self.values[index])


@dataclass(frozen=True)
class _LocalHashing(_RandomisedResponse):
    """Local hashing (Wang et al. 2017): user i draws a seed, hashes x into g values with h_seed(v) = xxh32(str(v),
    seed) mod g, and reports (seed, GRR over g of h_seed(x)). P(seed, y | x) = P(seed) (p if h_seed(x) = y else q),
    p = e^eps/(e^eps + g - 1), q = 1/(e^eps + g - 1).

    k: at most 10^15 (the hash reads a value's decimal string, at most 15 digits).
    hashes: None draws seeds uniformly from [0, 2^32) (as the peers do: every user has their own hash function);
    an integer H draws them from [0, H), a finite hash family, so identical reports group and GIBU costs
    O(H g * k / g) = O(H k) per iteration whatever the number of users. The unbiased estimator assumes an ideal
    random hash (q* = 1/g): exactly unbiased over the draw of the seeds from 2^32, up to the family's collision
    rates for a small H. GIBU uses the exact sets and needs no such assumption.
    """

    hashes: int | None = None
    k_max: ClassVar[int | None] = 10**15

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.hashes is not None:
            object.__setattr__(self, "hashes", check_int(self.hashes, "hashes", minimum=1, maximum=2**32))

    g: ClassVar[int]

    def _hashed(self, hashes: np.ndarray) -> np.ndarray:
        """32-bit hashes mod g (g = 2^32, OLH's largest, leaves them as they are: np.uint32(2^32) overflows)."""
        return hashes if self.g == 2**32 else hashes % np.uint32(self.g)

    @property
    def _gap(self) -> float:
        return (self.g - 1) * math.expm1(self.eps) / (self.g * (math.exp(self.eps) + self.g - 1))

    @property
    def _rr_size(self) -> int:
        return self.g

    @property
    def q_star(self) -> float:  # type: ignore[override]
        return 1 / self.g

    def sample(self, secrets: np.ndarray, rng: np.random.Generator, packed: bool = False) -> HashReports:
        check_flag(packed, "packed")  # a seed and a value a user: as compact as it gets
        secrets = check_secrets(secrets, self.k)
        rng = check_rng(rng)
        seeds = self._draw_seeds(secrets.size, rng)
        return HashReports(seeds, _grr(self._memo_values(secrets, seeds), self.g, self.high, rng))

    def _draw_seeds(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """A hash seed a user: uniform on [0, hashes), or on [0, 2^32)."""
        return rng.integers(0, self.hashes or 2**32, n, dtype=np.uint64).astype(np.uint32)

    def _memo_values(self, secrets: np.ndarray, seeds: np.ndarray) -> np.ndarray:
        """Each user's secret hashed with its seed into [0, g)."""
        return self._hashed(xxh32_decimal(secrets, seeds)).astype(np.int64)

    def _reports(self, reports: HashReports) -> HashReports:
        check_instance(reports, f"{self.name}: reports", HashReports, "HashReports (seeds, values)")
        check_integers(reports.seeds, f"{self.name}: reports.seeds", 0, 2**32, ndim=1)
        check_integers(reports.values, f"{self.name}: reports.values", 0, self.g, shape=reports.seeds.shape)
        return reports

    def membership(self, reports: HashReports) -> np.ndarray:
        reports = self._reports(reports)
        return _members(reports.seeds, reports.values, self.k, self.g)

    def support(self, reports: HashReports) -> np.ndarray:
        """How many reports' sets hold each value (``Protocol.support``): counted over every report by the compiled
        kernel where it is built (n k hashes, no distinct reports, no membership matrix), else by the base's
        distinct reports and membership blocks; the same counts either way."""
        reports = self._reports(reports)
        counts = _support(reports.seeds, reports.values, self.k, self.g)
        return super().support(reports) if counts is None else counts

    def log_scale(self, reports: HashReports) -> np.ndarray:
        return np.full(len(self._reports(reports)), -math.log(self.hashes or 2**32))

    def distinct(self, reports: HashReports) -> tuple[HashReports, np.ndarray]:
        reports = self._reports(reports)
        keys = reports.seeds.astype(np.uint64) * np.uint64(self.g) + reports.values.astype(np.uint64)
        unique, counts = np.unique(keys, return_counts=True)
        seeds = (unique // np.uint64(self.g)).astype(np.uint32)
        return HashReports(seeds, (unique % np.uint64(self.g)).astype(np.int64)), counts

    def to_arrays(self, reports: HashReports, prefix: str) -> dict[str, np.ndarray]:
        check_text(prefix, "prefix")
        reports = self._reports(reports)
        return {f"{prefix}seeds": reports.seeds, f"{prefix}values": reports.values}

    def from_arrays(self, arrays: Any, prefix: str) -> HashReports:
        check_text(prefix, "prefix")
        check_mapping(arrays, "arrays", [f"{prefix}seeds", f"{prefix}values"])
        return HashReports(np.asarray(arrays[f"{prefix}seeds"], dtype=np.uint32),
                           np.asarray(arrays[f"{prefix}values"], dtype=np.int64))


@dataclass(frozen=True)
class BLH(_LocalHashing):
    """Binary local hashing (Wang et al. 2017): local hashing into g = 2 values."""

    name: ClassVar[str] = "BLH"
    g: ClassVar[int] = 2


@dataclass(frozen=True)
class OLH(_LocalHashing):
    """Optimised local hashing (Wang et al. 2017): local hashing into g = round(e^eps) + 1 values (``numpy.rint``,
    as the peers).

    eps is at most ``OLH_EPS_MAX`` = ln(2^32 - 1), about 22.18, where g reaches 2^32, the range of the 32-bit hash
    xxh32: a larger g would hold hashed values no user can reach (q* = 1/g would be wrong, and the values overflow
    the hash's uint32). A larger eps is refused rather than g capped, so that OLH's g stays the paper's.
    """

    name: ClassVar[str] = "OLH"
    eps_max: ClassVar[float] = OLH_EPS_MAX
    _eps_why: ClassVar[str] = (f"(below {EPS_MIN:g}, e^eps - 1 keeps fewer than 4 digits in float64; above "
                               f"ln(2^32 - 1) = {OLH_EPS_MAX:.4f}, OLH's g = round(e^eps) + 1 exceeds 2^32, the range"
                               " of its 32-bit hash xxh32)")

    @property
    def g(self) -> int:  # type: ignore[override]
        return int(np.rint(math.exp(self.eps))) + 1
