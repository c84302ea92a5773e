"""The protocols that report one value: GRR (generalised randomised response, k-RR) and HR (Hadamard response).
"""

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from privest._checks import (
    check_flag,
    check_integers,
    check_rng,
    check_secrets,
)
from privest.protocols.base import _grr, _RandomisedResponse, _ValueReports

__all__ = [
    "GRR",
    "HR",
]

class _KValues(_ValueReports):
    """A protocol whose report is one of the k values and whose set is that value alone (GRR, L-GRR): reports int in
    [0, k), membership the one-hot row, the count of each value its support."""

    def _reports(self, reports: np.ndarray) -> np.ndarray:
        return check_integers(reports, f"{self.name}: reports", 0, self.k, ndim=1)

    def membership(self, reports: np.ndarray) -> np.ndarray:
        reports = self._reports(reports)
        return reports[:, None] == np.arange(self.k)[None, :]

    def log_scale(self, reports: np.ndarray) -> np.ndarray:
        return np.zeros(self._reports(reports).size)

    def support(self, reports: np.ndarray) -> np.ndarray:
        return np.bincount(self._reports(reports), minlength=self.k).astype(np.int64)


@dataclass(frozen=True)
class GRR(_RandomisedResponse, _KValues):
    """Generalised randomised response (k-RR, free-will eq. 1): keep x with probability e^eps/(e^eps + k - 1), else
    report one of the other k - 1 values uniformly."""

    name: ClassVar[str] = "GRR"

    @property
    def _rr_size(self) -> int:
        return self.k

    q_star = _RandomisedResponse.low

    @property
    def _gap(self) -> float:
        return math.expm1(self.eps) / (math.exp(self.eps) + self.k - 1)

    def sample(self, secrets: np.ndarray, rng: np.random.Generator, packed: bool = False) -> np.ndarray:
        check_flag(packed, "packed")  # one value a user: as compact as it gets
        return _grr(check_secrets(secrets, self.k), self.k, self.high, check_rng(rng))


@dataclass(frozen=True)
class HR(_ValueReports):
    """Hadamard response (Acharya, Sun and Zhang 2019): K the smallest power of 2 above k, H the Sylvester Hadamard
    matrix of order K, H[i, j] = (-1)^popcount(i & j); secret x uses row x + 1. The report y is uniform on
    C_x = {y : H[x + 1, y] = +1} with probability e^eps/(e^eps + 1), else uniform on the other half.
    P(y | x) = (2/K) (high if x in S(y) else low), S(y) = {x : H[x + 1, y] = +1}.

    k is at most 2^62 - 1, so that K <= 2^62 and every report is an int64.
    """

    name: ClassVar[str] = "HR"
    k_max: ClassVar[int | None] = 2**62 - 1

    @property
    def K(self) -> int:  # noqa: N802 (the paper's name)
        return 1 << self.k.bit_length()

    @property
    def high(self) -> float:  # type: ignore[override]
        return math.exp(self.eps) / (math.exp(self.eps) + 1)

    @property
    def low(self) -> float:  # type: ignore[override]
        return 1 / (math.exp(self.eps) + 1)

    p_star = high
    q_star: ClassVar[float] = 0.5

    @property
    def _gap(self) -> float:
        return math.tanh(self.eps / 2) / 2

    def sample(self, secrets: np.ndarray, rng: np.random.Generator, packed: bool = False) -> np.ndarray:
        """A uniform y, moved to the wanted half by flipping the lowest bit of the row index x + 1 (a bijection
        between the halves) when it lies in the other one."""
        check_flag(packed, "packed")  # one value a user: as compact as it gets
        rows = check_secrets(secrets, self.k) + 1
        rng = check_rng(rng)
        inside = rng.random(rows.size) < self.high
        y = rng.integers(0, self.K, rows.size)
        wrong = (np.bitwise_count(rows & y) % 2 == 0) != inside
        return np.where(wrong, y ^ (rows & -rows), y)

    def _reports(self, reports: np.ndarray) -> np.ndarray:
        return check_integers(reports, "HR: reports", 0, self.K, ndim=1)

    def membership(self, reports: np.ndarray) -> np.ndarray:
        rows = np.arange(1, self.k + 1)
        return np.bitwise_count(self._reports(reports)[:, None] & rows[None, :]) % 2 == 0

    def log_scale(self, reports: np.ndarray) -> np.ndarray:
        return np.full(self._reports(reports).size, math.log(2 / self.K))
