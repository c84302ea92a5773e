"""Subset selection (SS): a subset of omega values reported, holding the secret with a raised probability.
"""

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from privest._checks import (
    check_rng,
    check_secrets,
)
from privest.protocols.base import _BitReports
from privest.protocols.packed import PackedBits, sample_by_chunks, subset_packed

__all__ = [
    "SS",
]

@dataclass(frozen=True)
class SS(_BitReports):
    """Subset selection (Ye and Barg 2018; Wang et al. 2016): report a subset of omega = max(1, rint(k/(e^eps + 1)))
    values that holds x with probability omega e^eps/(omega e^eps + k - omega), the rest uniform among the others.

    P(S | x) = p_in / C(k-1, omega-1) if x in S, (1 - p_in) / C(k-1, omega) otherwise; stored as
    exp(-log C(k-1, omega)) times high = p_in (k - omega)/omega or low = 1 - p_in. The subset size omega lies in
    1..floor(k/2) (e^eps + 1 > 2), so every subset leaves a value out.
    """

    name: ClassVar[str] = "SS"

    @property
    def omega(self) -> int:
        return int(max(1, np.rint(self.k / (math.exp(self.eps) + 1))))

    @property
    def p_in(self) -> float:
        w = self.omega
        return w * math.exp(self.eps) / (w * math.exp(self.eps) + self.k - w)

    @property
    def high(self) -> float:  # type: ignore[override]
        return self.p_in * (self.k - self.omega) / self.omega

    @property
    def low(self) -> float:  # type: ignore[override]
        # 1 - p_in in closed form: the difference rounds to 0 once p_in > 1 - 1e-16 (eps > 37)
        w = self.omega
        return (self.k - w) / (w * math.exp(self.eps) + self.k - w)

    p_star = p_in

    @property
    def _gap(self) -> float:
        w, k = self.omega, self.k
        return w * (k - w) * math.expm1(self.eps) / ((k - 1) * (w * math.exp(self.eps) + k - w))

    @property
    def q_star(self) -> float:  # type: ignore[override]
        w, k = self.omega, self.k
        return (self.p_in * (w - 1) + self.low * w) / (k - 1)

    def sample(self, secrets: np.ndarray, rng: np.random.Generator, packed: bool = False
               ) -> np.ndarray | PackedBits:
        """One report per user (``Protocol.sample``): x joins S with probability p_in; the rest of S, omega - 1 or
        omega values, is a uniform subset of the k - 1 others, drawn into packed bytes by
        ``privest.protocols.packed`` (i.i.d. bits at a rate below omega / k, then completed to the size by uniform
        proposals; every step treats the others alike, so each subset of the size is equally likely).
        ``packed=True`` returns the ``PackedBits`` without forming the (n, k) bool matrix."""
        secrets = check_secrets(secrets, self.k)
        rng = check_rng(rng)
        return sample_by_chunks(
            secrets, self.k, lambda chunk: subset_packed(chunk, self.k, self.omega, self.p_in, rng), packed)

    def membership(self, reports: np.ndarray | PackedBits) -> np.ndarray:
        reports = self._reports(reports)
        self._size_log_scale(self._set_counts(reports))  # checks every report holds omega values
        return super().membership(reports)

    def _size_log_scale(self, sizes: np.ndarray) -> np.ndarray:
        if sizes.size and np.any(sizes != self.omega):
            raise ValueError(f"SS: every report must hold exactly omega = {self.omega} values")
        k, w = self.k, self.omega
        log_choose = math.lgamma(k) - math.lgamma(w + 1) - math.lgamma(k - w)
        return np.full(sizes.size, -log_choose)
