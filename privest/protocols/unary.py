"""Unary encoding: SUE (basic one-time RAPPOR) and OUE, k bits reported, each kept or flipped.
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
    "OUE",
    "SUE",
]

class _UnaryEncoding(_BitReports):
    """Unary encoding: bit x of the one-hot vector is reported 1 with probability ``one``, every other bit 1 with
    probability ``flip``, independently. P(b | x) = prod_v flip^b_v (1 - flip)^(1 - b_v) times one/flip if b_x = 1,
    (1 - one)/(1 - flip) if b_x = 0."""

    one: ClassVar[float]
    flip: ClassVar[float]

    def sample(self, secrets: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        secrets = check_secrets(secrets, self.k)
        rng = check_rng(rng)

        def draw(chunk: np.ndarray) -> np.ndarray:
            bits = rng.random((chunk.size, self.k)) < self.flip
            bits[np.arange(chunk.size), chunk] = rng.random(chunk.size) < self.one
            return bits

        return _bits_by_chunks(secrets, self.k, draw)

    def _size_log_scale(self, sizes: np.ndarray) -> np.ndarray:
        return sizes * math.log(self.flip) + (self.k - sizes) * math.log1p(-self.flip)

    @property
    def high(self) -> float:  # type: ignore[override]
        return self.one / self.flip

    @property
    def low(self) -> float:  # type: ignore[override]
        return (1 - self.one) / (1 - self.flip)

    @property
    def p_star(self) -> float:  # type: ignore[override]
        return self.one

    @property
    def q_star(self) -> float:  # type: ignore[override]
        return self.flip

    @property
    def _gap(self) -> float:
        return self.one - self.flip


@dataclass(frozen=True)
class SUE(_UnaryEncoding):
    """Symmetric unary encoding, basic one-time RAPPOR (free-will eq. 12): every bit of the one-hot vector kept with
    probability e^(eps/2)/(e^(eps/2) + 1)."""

    name: ClassVar[str] = "SUE"

    @property
    def flip(self) -> float:  # type: ignore[override]
        return 1 / (math.exp(self.eps / 2) + 1)

    @property
    def one(self) -> float:  # type: ignore[override]
        return 1 - self.flip

    # one/flip and (1 - one)/(1 - flip) in closed form: 1 - one rounds to 0 once flip < 1e-16 (eps > 74)
    @property
    def high(self) -> float:  # type: ignore[override]
        return math.exp(self.eps / 2)

    @property
    def low(self) -> float:  # type: ignore[override]
        return math.exp(-self.eps / 2)

    @property
    def _gap(self) -> float:
        return math.tanh(self.eps / 4)


@dataclass(frozen=True)
class OUE(_UnaryEncoding):
    """Optimised unary encoding (Wang et al. 2017): the true bit is 1 with probability 1/2, every other bit 1 with
    probability 1/(e^eps + 1)."""

    name: ClassVar[str] = "OUE"
    one: ClassVar[float] = 0.5

    @property
    def flip(self) -> float:  # type: ignore[override]
        return 1 / (math.exp(self.eps) + 1)

    @property
    def _gap(self) -> float:
        return math.tanh(self.eps / 2) / 2
