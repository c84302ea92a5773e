"""Apple's Sequence Fragment Puzzle (``privest.heavy_hitters``; Apple Differential Privacy Team 2017, "Learning with
privacy at scale"): an item's hash and one of its fragments, put together again on the server.
"""

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from privest._checks import check_int, check_items
from privest.heavy_hitters.base import MAX_CANDIDATES, HeavyHitters, _Base, _top
from privest.protocols import xxh64_decimal

__all__ = [
    "SFP",
    "sfp",
]

_HASH_SEED = 0x5F5  # the seed of SFP's 8-bit hash of the item (xxh64 of its decimal string)

@dataclass(frozen=True)
class SFP(_Base):
    """Apple's Sequence Fragment Puzzle (module docstring; as pure-LDP's SFPClient/SFPServer).

    The item, m bits, is padded on the right to P = ceil(m / step) fragments of step bits. Each user spends eps/2 on
    the whole item (one oracle on k values) and eps/2 on the pair (h(x), its fragment at a position l drawn
    uniformly), h an 8-bit hash of the item (xxh64 of its decimal string, seed 0x5F5, mod 256), coded as
    h 2^step + fragment on an oracle of 256 2^step values, one oracle a position. The server keeps each position's
    ``top`` pairs; a hash found at every position gives the puzzles, every choice of one of its fragments a
    position; the puzzles whose hash is not h (a check pure-LDP does not make) or that exceed k are dropped, and the
    rest scored by the whole-item oracle, its ``top`` the heavy hitters.

    Attributes
    ----------
    k, eps, oracle, options
        As in ``sfp``.
    step : int
        The bits of a fragment (1..12).
    """

    step: int = 4
    name: ClassVar[str] = "SFP"
    hash_values: ClassVar[int] = 256

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "step", check_int(self.step, "step", minimum=1, maximum=12))

    @property
    def positions(self) -> int:
        """P = ceil(m / step), the fragments of an item."""
        return math.ceil(self.bits / self.step)

    def item_hash(self, values: Any) -> np.ndarray:
        """h(x), the 8-bit hash of each item, int64."""
        values = check_items(values, "values", self.k, ndim=1)
        return (xxh64_decimal(values, _HASH_SEED) % np.uint64(self.hash_values)).astype(np.int64)

    def _shift(self, position: int) -> int:
        """m - (position + 1) step: where the fragment at ``position`` sits in the item (negative for a last fragment
        that runs past the item's bits, its low bits padding)."""
        return self.bits - (position + 1) * self.step

    def _fragments(self, values: np.ndarray, position: int) -> np.ndarray:
        """Each item's fragment at ``position`` (step bits, int64)."""
        shift = self._shift(position)
        moved = values >> np.uint64(shift) if shift >= 0 else values << np.uint64(-shift)
        return (moved & np.uint64((1 << self.step) - 1)).astype(np.int64)

    def sample(self, values: Any, rng: np.random.Generator) -> tuple[np.ndarray, list[Any], Any]:
        """The users' reports: each user's position, each position's pair reports, and the whole-item reports."""
        values, rng, _ = self._validated_run(values, rng, 1)
        positions = rng.integers(0, self.positions, values.size)
        pairs = self.item_hash(values) * (1 << self.step)
        fragment_oracle = self._oracle(self.hash_values << self.step, self.eps / 2)
        fragments = []
        for position in range(self.positions):
            users = positions == position
            codes = pairs[users] + self._fragments(values[users], position)
            fragments.append(fragment_oracle.sample(codes.astype(np.uint64), rng))
        return positions, fragments, self._oracle(self.k, self.eps / 2).sample(values, rng)

    def estimate_pairs(self, reports: list[Any], position: int, codes: Any) -> np.ndarray:
        """Position ``position``'s unbiased estimate of the share of users whose pair (h(x), fragment of x at the
        position) is each code h 2^step + fragment (the position's users are a uniform sample of all).

        Parameters
        ----------
        reports : list
            Each position's pair reports, as ``sample`` gives them.
        position : int
            The fragment's position, 0..positions - 1.
        codes : array_like of int, shape (q,)
            Codes in 0..256 2^step - 1.

        Returns
        -------
        numpy.ndarray, shape (q,)
        """
        if not isinstance(reports, list) or len(reports) != self.positions:
            raise TypeError(f"reports must be the list of the {self.positions} positions' reports that sample gives, "
                            f"got {type(reports).__name__}")
        position = check_int(position, "position", minimum=0, maximum=self.positions - 1)
        codes = check_items(codes, "codes", self.hash_values << self.step, ndim=1)
        return self._estimate(self._oracle(self.hash_values << self.step, self.eps / 2), reports[position], codes)

    def run(self, values: Any, rng: np.random.Generator, top: int = 10) -> HeavyHitters:
        """The users' reports drawn and the heavy hitters found: parameters and result as ``PEM.run``."""
        values, rng, top = self._validated_run(values, rng, top)
        _, fragments, words = self.sample(values, rng)
        codes = np.arange(self.hash_values << self.step, dtype=np.uint64)
        found = [_top(codes, self.estimate_pairs(fragments, position, codes), top)[0].astype(np.int64)
                 for position in range(self.positions)]
        hashes = sorted(set.intersection(*(set((f >> self.step).tolist()) for f in found)))
        puzzles = [self._puzzles(found, h) for h in hashes]
        candidates = np.concatenate([np.zeros(0, dtype=np.uint64), *puzzles])
        hashes = np.repeat(np.array(hashes, dtype=np.int64), [p.size for p in puzzles])
        candidates = np.unique(candidates[self.item_hash(candidates) == hashes])  # one hash call for every puzzle
        if candidates.size == 0:
            return HeavyHitters(candidates, np.zeros(0))
        return HeavyHitters(*_top(candidates, self._estimate(self._oracle(self.k, self.eps / 2), words, candidates),
                                  top))

    def _puzzles(self, found: list[np.ndarray], h: int) -> np.ndarray:
        """Every item below k whose fragments are among the found pairs of hash h (``run`` drops those whose hash is
        not h)."""
        items = np.zeros(1, dtype=np.uint64)
        for position, pairs in enumerate(found):
            pieces = (pairs[(pairs >> self.step) == h] & ((1 << self.step) - 1)).astype(np.uint64)
            shift = self._shift(position)
            if shift >= 0:
                pieces = pieces << np.uint64(shift)
            else:  # the last fragment's low bits pad the item: a piece with any of them set is no item's
                pieces = pieces[(pieces & np.uint64((1 << -shift) - 1)) == 0] >> np.uint64(-shift)
            items = (items[:, None] | pieces[None, :]).ravel()
            if items.size > MAX_CANDIDATES:
                raise ValueError(f"SFP: hash {h} would make more than {MAX_CANDIDATES} puzzles: choose a smaller top")
        if self.k < 2**64:
            items = items[items < np.uint64(self.k)]
        return items


def sfp(k: int, eps: float, step: int = 4, oracle: str = "flh", **options: Any) -> SFP:
    """Apple's Sequence Fragment Puzzle on items 0..k-1 (k in 2..2^64) at eps (``SFP``; Apple 2017).

    Parameters
    ----------
    k, eps, oracle, **options
        As in ``pem``.
    step : int
        The bits of a fragment (pure-LDP's fragment_length; default 4: 8 fragments of a 32-bit item).

    Examples
    --------
    >>> import numpy as np
    >>> from privest import heavy_hitters, rng_for
    >>> values = np.repeat(np.array([7, 2**31 + 5, 123456789, 99], dtype=np.uint64), [4000, 3000, 2000, 1000])
    >>> found = heavy_hitters.sfp(2**32, eps=6.0, hashes=256).run(values, rng_for(1, "sfp"), top=3)
    >>> sorted(int(v) for v in found.items)
    [7, 123456789, 2147483653]
    """
    return SFP(k, eps, oracle, dict(options), step)
