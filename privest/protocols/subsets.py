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
from privest.protocols.base import _BitReports, _bits_by_chunks

__all__ = [
    "SS",
]

def _floyd_omega(k: int) -> int:
    """The largest omega that SS samples by Floyd's algorithm at k: O(omega) numpy steps on all users against O(k)
    keys a user. Measured on 5 * 10^4 users: Floyd 3 times faster at k = 64, omega = 17, twice as fast at k = 256,
    omega = 69 and at k = 1024, omega = 122, and as fast at k = 1024, omega = 275 (omega = k / 3.7)."""
    return max(8, k // 3)


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

    def sample(self, secrets: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """x joins S with probability p_in; the rest of S, omega - 1 or omega values, is a uniform subset of the k - 1
        others. For omega up to ``_FLOYD_OMEGA(k)`` it is drawn by Floyd's algorithm for all users at once, omega
        draws a user (O(n omega)); beyond, as the omega smallest of k uniform keys (O(n k), faster there).

        Floyd: to choose r of the N = k - 1 others (numbered 0..N-1 skipping x), for j = N - r, ..., N - 1 draw t
        uniform in 0..j and add t, or j if t is already in S: every r-subset comes out with probability 1/C(N, r).
        A user with r = omega - 1 (x in S) skips the first step, j = N - omega."""
        secrets = check_secrets(secrets, self.k)
        rng = check_rng(rng)
        omega, p_in, others = self.omega, self.p_in, self.k - 1
        if omega > _floyd_omega(self.k):
            return self._sample_by_keys(secrets, rng)

        def draw(chunk: np.ndarray) -> np.ndarray:
            users = np.arange(chunk.size)
            bits = np.zeros((chunk.size, self.k), dtype=bool)
            inside = rng.random(chunk.size) < p_in
            bits[users[inside], chunk[inside]] = True
            for j in range(others - omega, others):
                t = rng.integers(0, j + 1, size=chunk.size)
                t += t >= chunk  # the t-th of the others, skipping x
                t = np.where(bits[users, t], j + (j >= chunk), t)  # taken: the j-th of the others
                if j == others - omega:  # the first step is for the users with x outside S only
                    bits[users[~inside], t[~inside]] = True
                else:
                    bits[users, t] = True
            return bits

        return _bits_by_chunks(secrets, self.k, draw)

    def _sample_by_keys(self, secrets: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """The omega smallest of k uniform keys, with x's key forced to -1 (x in S) or 2 (x not in S): the rest of S
        is a uniform subset of the other values."""
        omega, p_in = self.omega, self.p_in

        def draw(chunk: np.ndarray) -> np.ndarray:
            keys = rng.random((chunk.size, self.k))
            keys[np.arange(chunk.size), chunk] = np.where(rng.random(chunk.size) < p_in, -1.0, 2.0)
            bits = np.zeros((chunk.size, self.k), dtype=bool)
            np.put_along_axis(bits, np.argpartition(keys, omega - 1, axis=1)[:, :omega], True, axis=1)
            return bits

        return _bits_by_chunks(secrets, self.k, draw)

    def membership(self, reports: np.ndarray) -> np.ndarray:
        bits = super().membership(reports)
        if bits.size and np.any(bits.sum(axis=1) != self.omega):
            raise ValueError(f"SS: every report must hold exactly omega = {self.omega} values")
        return bits

    def _size_log_scale(self, sizes: np.ndarray) -> np.ndarray:
        if sizes.size and np.any(sizes != self.omega):
            raise ValueError(f"SS: every report must hold exactly omega = {self.omega} values")
        k, w = self.k, self.omega
        log_choose = math.lgamma(k) - math.lgamma(w + 1) - math.lgamma(k - w)
        return np.full(sizes.size, -log_choose)
