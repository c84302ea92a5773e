"""What the heavy-hitter protocols share (``privest.heavy_hitters``): the ``HeavyHitters`` record, the domain, eps and
oracle of a protocol, and the server's prefix tree grown level by level (PEM, TreeHist).
"""

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from privest._checks import check_between, check_int, check_items, check_rng, check_text
from privest.protocols import NAMES, SKETCH_NAMES, by_name
from privest.protocols.sketches import Sketch

__all__ = [
    "MAX_CANDIDATES",
    "ORACLES",
    "HeavyHitters",
]

ORACLES = SKETCH_NAMES + NAMES
"""The frequency oracles a heavy-hitter protocol may build on (``privest.protocols.by_name``): the sketches, and the
set-valued protocols, which estimate every value of a level's domain (small levels only)."""

MAX_CANDIDATES = 1 << 20
"""The most candidates a level (or SFP's puzzles of one hash) may enumerate."""


@dataclass(frozen=True, eq=False)
class HeavyHitters:
    """What a heavy-hitter protocol found.

    Attributes
    ----------
    items : numpy.ndarray of uint64, shape (t,)
        The found items, highest estimated frequency first (t <= top).
    frequencies : numpy.ndarray of float64, shape (t,)
        Their unbiased estimated frequencies (shares of the users; they may be negative or above 1).
    """

    items: np.ndarray
    frequencies: np.ndarray


def _top(candidates: np.ndarray, estimates: np.ndarray, top: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``top`` candidates of highest estimate, highest first (ties by the smaller candidate: stable)."""
    order = np.lexsort((candidates, -estimates))[:top]
    return candidates[order], estimates[order]


@dataclass(frozen=True)
class _Base:
    """What the three protocols share: the domain k, eps, the oracle's name and options, and the bits of an item."""

    k: int
    eps: float
    oracle: str = "flh"
    options: dict = field(default_factory=dict)
    name: ClassVar[str] = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", check_int(self.k, "k", minimum=2, maximum=2**64))
        object.__setattr__(self, "eps", check_between(self.eps, "eps", 1e-12, 700.0))
        object.__setattr__(self, "oracle", check_text(self.oracle, "oracle").lower())
        if self.oracle not in ORACLES:
            raise ValueError(f"oracle: unknown frequency oracle {self.oracle!r}; known: {', '.join(ORACLES)}")
        if not isinstance(self.options, dict):
            raise TypeError(f"options must be a dict of the oracle's options, got {type(self.options).__name__}")
        self._oracle(2, self.eps)  # the oracle's name and options checked now, not at the first run

    @property
    def bits(self) -> int:
        """m = ceil(log2 k), the bits of an item."""
        return (self.k - 1).bit_length()

    def prefix_domain(self, length: int) -> int:
        """The values of a length-bit prefix of an item below k: ((k - 1) >> (m - length)) + 1."""
        return ((self.k - 1) >> (self.bits - length)) + 1

    def _oracle(self, domain: int, eps: float) -> Any:
        """The frequency oracle on ``domain`` values at eps (``privest.protocols.by_name``)."""
        return by_name(self.oracle, max(int(domain), 2), eps, **self.options)

    def _estimate(self, oracle: Any, reports: Any, items: np.ndarray) -> np.ndarray:
        """The oracle's unbiased estimates of the queried items (a sketch queries; a protocol estimates all)."""
        if isinstance(oracle, Sketch):
            return oracle.estimate(reports, items)
        return np.asarray(oracle.estimate(reports))[items.astype(np.int64)]

    def _validated_run(self, values: Any, rng: Any, top: Any) -> tuple[np.ndarray, np.random.Generator, int]:
        values = check_items(values, "values", self.k, ndim=1)
        if values.size == 0:
            raise ValueError(f"{self.name}: values must hold at least one user's item")
        return values, check_rng(rng), check_int(top, "top", minimum=1, maximum=1 << 16)


def _levels(bits: int, start: int, step: int) -> list[int]:
    """The prefix lengths of the levels: start + step, start + 2 step, ..., the last one m (capped)."""
    count = max(1, math.ceil((bits - start) / step))
    return [min(start + (i + 1) * step, bits) for i in range(count)]


def _extend(prefixes: np.ndarray, old: int, new: int) -> np.ndarray:
    """Every extension of the old-bit prefixes to new bits: each prefix followed by each (new - old)-bit suffix."""
    suffixes = np.arange(1 << (new - old), dtype=np.uint64)
    return ((prefixes[:, None] << np.uint64(new - old)) | suffixes[None, :]).ravel()


def _grow(bits: int, k: int, levels: list[int], estimate: Any, top: int) -> tuple[np.ndarray, np.ndarray]:
    """The prefix tree grown level by level (PEM's and TreeHist's server): level 0 enumerates every prefix, each later
    level the extensions of the previous level's top; ``estimate(level, candidates)`` gives a level's estimates.
    Prefixes that exceed the domain (k not a power of 2) are dropped."""
    candidates, previous = np.zeros(1, dtype=np.uint64), 0
    for level, length in enumerate(levels):
        if candidates.size << (length - previous) > MAX_CANDIDATES:  # checked before the candidates are made
            raise ValueError(f"a level would enumerate {candidates.size << (length - previous)} candidates (more than "
                             f"{MAX_CANDIDATES}): choose a smaller start, step or top")
        candidates = _extend(candidates, previous, length)
        candidates = candidates[candidates <= np.uint64((k - 1) >> (bits - length))]
        candidates, estimates = _top(candidates, estimate(level, candidates), top)
        previous = length
    return candidates, estimates


