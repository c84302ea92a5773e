"""Heavy hitters on domains too large to enumerate (pure-LDP's heavy_hitters): PEM, TreeHist and SFP.

A user holds an item in 0..k-1 (k up to 2^64; strings through ``privest.protocols.item_ids``), read as an m-bit word,
m = ceil(log2 k). Each protocol splits the users or the budget over frequency oracles of ``privest.protocols``
(default ``flh``, fast local hashing, as pure-LDP's default OLH; any sketch name of ``by_name``, or a set-valued one
such as ``grr``, ``oue`` or ``olh`` where each level's domain is small), and builds the heavy hitters level by level
from the oracles' unbiased estimates of candidate prefixes or fragments:

- ``pem``: the prefix extending method (Wang, Li, Lopuhaa-Zwakenberg, Skoric and Jha 2017, "Locally differentially
  private frequent itemset mining" / TDSC 2019, "Locally differentially private heavy hitter identification",
  section 4): g groups of users, group i reports its prefix of start + (i+1) step bits; the server keeps the top
  prefixes of each group and extends them by every step-bit suffix.
- ``treehist``: TreeHistogram (Bassily, Nissim, Stemmer and Thakurta, NeurIPS 2017, "Practical locally private heavy
  hitters", section 3): half the budget for the prefix of a random level (step bits a level, from the top), half
  for the whole item; the prefix tree is grown level by level, the survivors estimated by the whole-item oracle.
- ``sfp``: Apple's Sequence Fragment Puzzle (Apple Differential Privacy Team 2017, "Learning with privacy at
  scale"): half the budget for the whole item, half for a pair (an 8-bit hash of the item, a random step-bit
  fragment of it); the fragments sharing a hash at every position are put together and the puzzles scored by the
  whole-item oracle.

Every protocol's ``run(values, rng, top)`` gives a ``HeavyHitters`` record (the found items, most frequent first,
and their estimated frequencies as shares of the users); ``precision``, ``recall`` and ``ncr`` (normalised
cumulative rank, Wang et al. 2019, section 6.1) score a found list against the true top items. Sampling is
vectorised over users; the loops run over levels and fragment positions only.
"""

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from privest._checks import check_between, check_int, check_items, check_rng, check_text
from privest.protocols import by_name, xxh64_decimal
from privest.protocols.sketches import Sketch

__all__ = [
    "PEM",
    "SFP",
    "HeavyHitters",
    "TreeHist",
    "ncr",
    "pem",
    "precision",
    "recall",
    "sfp",
    "treehist",
]

_HASH_SEED = 0x5F5  # the seed of SFP's 8-bit hash of the item (xxh64 of its decimal string)
_MAX_CANDIDATES = 1 << 20  # the most candidates a level may enumerate: 2^(start + step) and top 2^step


@dataclass(frozen=True)
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
        if not isinstance(self.options, dict):
            raise TypeError(f"options must be a dict of the oracle's options, got {type(self.options).__name__}")

    @property
    def bits(self) -> int:
        """m = ceil(log2 k), the bits of an item."""
        return (self.k - 1).bit_length()

    def _oracle(self, domain: int, eps: float) -> Any:
        """The frequency oracle on ``domain`` values at eps (``privest.protocols.by_name``)."""
        return by_name(self.oracle, max(int(domain), 2), eps, **self.options)

    def _estimate(self, oracle: Any, reports: Any, items: np.ndarray) -> np.ndarray:
        """The oracle's unbiased estimates of the queried items (a sketch queries; a protocol estimates all)."""
        if isinstance(oracle, Sketch):
            return oracle.estimate(reports, items)
        return np.asarray(oracle.estimate(reports))[items.astype(np.int64)]

    def _check_run(self, values: Any, rng: Any, top: Any) -> tuple[np.ndarray, np.random.Generator, int]:
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
    candidates = np.arange(1 << levels[0], dtype=np.uint64)
    previous = levels[0]
    for level, length in enumerate(levels):
        if level > 0:
            candidates = _extend(candidates, previous, length)
        candidates = candidates[candidates <= np.uint64((k - 1) >> (bits - length))]
        if candidates.size > _MAX_CANDIDATES:
            raise ValueError(f"a level would enumerate {candidates.size} candidates (more than {_MAX_CANDIDATES}): "
                             "choose a smaller start, step or top")
        candidates, estimates = _top(candidates, estimate(level, candidates), top)
        previous = length
    return candidates, estimates


@dataclass(frozen=True)
class PEM(_Base):
    """The prefix extending method (module docstring; Wang et al. 2019, section 4).

    The users are split uniformly at random into g = ceil((m - start) / step) groups; group i reports the first
    start + (i+1) step bits of its item (m at most) to a frequency oracle on that many bits at the full eps. The
    server enumerates the 2^(start + step) prefixes of group 0, keeps the ``top``, extends each by the 2^step
    suffixes, estimates them from group 1, and so on; the last group's top are the heavy hitters, each with its
    estimated frequency (a group's estimate of a prefix is an unbiased estimate of its share of all users, the
    groups being uniform samples). pure-LDP's PEMClient/PEMServer with start_length, fragment_length, and
    max_string_length m; its estimates are counts scaled by g, ours shares.

    Attributes
    ----------
    k, eps, oracle, options
        As in ``pem``.
    start : int
        The bits of the first level before its step (0..m-1).
    step : int
        The bits added at each level (1..20).
    """

    start: int = 4
    step: int = 4
    name: ClassVar[str] = "PEM"

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "start", check_int(self.start, "start", minimum=0, maximum=max(self.bits - 1, 0)))
        object.__setattr__(self, "step", check_int(self.step, "step", minimum=1, maximum=20))

    @property
    def levels(self) -> list[int]:
        """Each group's prefix length in bits."""
        return _levels(self.bits, self.start, self.step)

    def sample(self, values: Any, rng: np.random.Generator) -> tuple[np.ndarray, list[Any]]:
        """The users' reports: each user's group (uniform over the g groups) and each group's oracle reports of its
        users' prefixes, in user order within the group."""
        values, rng, _ = self._check_run(values, rng, 1)
        groups = rng.integers(0, len(self.levels), values.size)
        reports = []
        for level, length in enumerate(self.levels):
            prefixes = values[groups == level] >> np.uint64(self.bits - length)
            reports.append(self._oracle(self._domain(length), self.eps).sample(prefixes, rng))
        return groups, reports

    def _domain(self, length: int) -> int:
        return ((self.k - 1) >> (self.bits - length)) + 1

    def estimate(self, reports: list[Any], level: int, prefixes: Any) -> np.ndarray:
        """Group ``level``'s unbiased estimate of the share of users whose item starts with each prefix."""
        length = self.levels[level]
        prefixes = check_items(prefixes, "prefixes", self._domain(length), ndim=1)
        return self._estimate(self._oracle(self._domain(length), self.eps), reports[level], prefixes)

    def run(self, values: Any, rng: np.random.Generator, top: int = 10) -> HeavyHitters:
        """The users' reports drawn and the heavy hitters found (module docstring).

        Parameters
        ----------
        values : array_like of int, shape (n,)
            Each user's item, in 0..k-1.
        rng : numpy.random.Generator
            The source of randomness.
        top : int
            How many heavy hitters to find (and candidates to keep at each level), 1..65536.

        Returns
        -------
        HeavyHitters
        """
        values, rng, top = self._check_run(values, rng, top)
        _, reports = self.sample(values, rng)
        items, estimates = _grow(self.bits, self.k, self.levels,
                                 lambda level, cand: self.estimate(reports, level, cand), top)
        return HeavyHitters(items, estimates)


def pem(k: int, eps: float, start: int = 4, step: int = 4, oracle: str = "flh", **options: Any) -> PEM:
    """The prefix extending method on items 0..k-1 (k in 2..2^64) at eps (``PEM``; Wang et al. 2019).

    Parameters
    ----------
    k : int
        The domain size; an item is read as m = ceil(log2 k) bits.
    eps : float
        The privacy level of every user's one report.
    start, step : int
        The first level's bits before its step, and the bits added at each level (pure-LDP's start_length and
        fragment_length; default 4 and 4: groups of 8, 12, ..., m bits).
    oracle : str
        The frequency oracle of each group (``privest.protocols.by_name``; default "flh", 1024 hashes).
    **options
        The oracle's options (``hashes``, ``width``, ...).

    Examples
    --------
    >>> import numpy as np
    >>> from privest import heavy_hitters, rng_for
    >>> values = np.repeat(np.array([7, 2**31 + 5, 123456789, 99], dtype=np.uint64), [4000, 3000, 2000, 1000])
    >>> found = heavy_hitters.pem(2**32, eps=4.0).run(values, rng_for(1, "pem"), top=3)
    >>> sorted(int(v) for v in found.items)
    [7, 123456789, 2147483653]
    """
    return PEM(k, eps, oracle, dict(options), start, step)


def _ranks(found: Any, truth: Any) -> tuple[np.ndarray, np.ndarray]:
    found = check_items(found, "found", None, ndim=1)
    truth = check_items(truth, "truth", None, ndim=1)
    if np.unique(found).size != found.size or np.unique(truth).size != truth.size:
        raise ValueError("found and truth must each list distinct items")
    return found, truth


def precision(found: Any, truth: Any) -> float:
    """The share of the found items that are true heavy hitters: |found & truth| / |found| (0 if none found).

    Parameters
    ----------
    found : array_like of int, shape (t,)
        The items a protocol found (distinct).
    truth : array_like of int, shape (k,)
        The true top items (distinct).

    Examples
    --------
    >>> from privest.heavy_hitters import precision
    >>> precision([1, 2, 3, 4], [1, 3, 5])
    0.5
    """
    found, truth = _ranks(found, truth)
    return float(np.isin(found, truth).sum() / found.size) if found.size else 0.0


def recall(found: Any, truth: Any) -> float:
    """The share of the true heavy hitters that were found: |found & truth| / |truth|.

    Parameters
    ----------
    found, truth
        As in ``precision`` (truth not empty).

    Examples
    --------
    >>> from privest.heavy_hitters import recall
    >>> recall([1, 2, 3, 4], [1, 3, 5, 6])
    0.5
    """
    found, truth = _ranks(found, truth)
    if truth.size == 0:
        raise ValueError("truth must list at least one item")
    return float(np.isin(truth, found).sum() / truth.size)


def ncr(found: Any, truth: Any) -> float:
    """The normalised cumulative rank (Wang et al. 2019, section 6.1): the true top-k items in rank order get the
    qualities k, k-1, ..., 1; NCR is the qualities of the found ones over k (k + 1) / 2, their sum.

    Parameters
    ----------
    found : array_like of int
        The items a protocol found (distinct; their order does not matter).
    truth : array_like of int, shape (k,)
        The true top items, most frequent first (distinct, not empty).

    Examples
    --------
    >>> from privest.heavy_hitters import ncr
    >>> ncr([10, 30], [10, 20, 30])  # (3 + 1) / 6
    0.6666666666666666
    """
    found, truth = _ranks(found, truth)
    if truth.size == 0:
        raise ValueError("truth must list at least one item")
    quality = np.arange(truth.size, 0, -1, dtype=np.float64)
    return float(quality[np.isin(truth, found)].sum() / quality.sum())


def _by_group(values: np.ndarray, groups: np.ndarray, count: int, report: Any) -> list[Any]:
    """Each group's oracle reports, ``report(group, its users' values)``, in user order within the group."""
    return [report(group, values[groups == group]) for group in range(count)]


@dataclass(frozen=True)
class TreeHist(_Base):
    """TreeHistogram (module docstring; Bassily et al. 2017, section 3, as pure-LDP's TreeHistClient/Server).

    Each user spends eps/2 on the prefix of a level drawn uniformly (step, 2 step, ..., m bits: one oracle a level,
    the users of a level a uniform sample) and eps/2 on the whole item (one oracle on k values, all users). The
    server grows the prefix tree from the 2^step prefixes of the first level, keeping the ``top`` of each level and
    extending them by the 2^step suffixes; the last level's survivors are scored by the whole-item oracle, which
    orders them. pure-LDP's estimates are counts, ours shares.

    Attributes
    ----------
    k, eps, oracle, options
        As in ``treehist``.
    step : int
        The bits of a level (1..20).
    """

    step: int = 4
    name: ClassVar[str] = "TreeHist"

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "step", check_int(self.step, "step", minimum=1, maximum=20))

    @property
    def levels(self) -> list[int]:
        """Each level's prefix length in bits."""
        return _levels(self.bits, 0, self.step)

    def _domain(self, length: int) -> int:
        return ((self.k - 1) >> (self.bits - length)) + 1

    def sample(self, values: Any, rng: np.random.Generator) -> tuple[np.ndarray, list[Any], Any]:
        """The users' reports: each user's level, each level's prefix reports, and the whole-item reports."""
        values, rng, _ = self._check_run(values, rng, 1)
        groups = rng.integers(0, len(self.levels), values.size)
        prefixes = _by_group(values, groups, len(self.levels), lambda level, v: self._oracle(
            self._domain(self.levels[level]), self.eps / 2).sample(v >> np.uint64(self.bits - self.levels[level]), rng))
        return groups, prefixes, self._oracle(self.k, self.eps / 2).sample(values, rng)

    def run(self, values: Any, rng: np.random.Generator, top: int = 10) -> HeavyHitters:
        """The users' reports drawn and the heavy hitters found: parameters and result as ``PEM.run``."""
        values, rng, top = self._check_run(values, rng, top)
        _, prefixes, words = self.sample(values, rng)

        def estimate(level: int, candidates: np.ndarray) -> np.ndarray:
            oracle = self._oracle(self._domain(self.levels[level]), self.eps / 2)
            return self._estimate(oracle, prefixes[level], candidates)

        items, _ = _grow(self.bits, self.k, self.levels, estimate, top)
        return HeavyHitters(*_top(items, self._estimate(self._oracle(self.k, self.eps / 2), words, items), top))


def treehist(k: int, eps: float, step: int = 4, oracle: str = "flh", **options: Any) -> TreeHist:
    """TreeHistogram on items 0..k-1 (k in 2..2^64) at eps (``TreeHist``; Bassily et al. 2017).

    Parameters
    ----------
    k, eps, oracle, **options
        As in ``pem``.
    step : int
        The bits of a level (pure-LDP's fragment_length; default 4: levels of 4, 8, ..., m bits).

    Examples
    --------
    >>> import numpy as np
    >>> from privest import heavy_hitters, rng_for
    >>> values = np.repeat(np.array([7, 2**31 + 5, 123456789, 99], dtype=np.uint64), [4000, 3000, 2000, 1000])
    >>> found = heavy_hitters.treehist(2**32, eps=6.0).run(values, rng_for(1, "treehist"), top=3)
    >>> sorted(int(v) for v in found.items)
    [7, 123456789, 2147483653]
    """
    return TreeHist(k, eps, oracle, dict(options), step)


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

    def _fragments(self, values: np.ndarray, position: int) -> np.ndarray:
        padded_shift = self.positions * self.step - self.bits
        shift = np.uint64((self.positions - 1 - position) * self.step)
        return (((values << np.uint64(padded_shift)) >> shift) & np.uint64((1 << self.step) - 1)).astype(np.int64)

    def sample(self, values: Any, rng: np.random.Generator) -> tuple[np.ndarray, list[Any], Any]:
        """The users' reports: each user's position, each position's pair reports, and the whole-item reports."""
        values, rng, _ = self._check_run(values, rng, 1)
        positions = rng.integers(0, self.positions, values.size)
        pairs = self.item_hash(values) * (1 << self.step)
        fragment_oracle = self._oracle(self.hash_values << self.step, self.eps / 2)
        fragments = [fragment_oracle.sample((pairs[positions == l] + self._fragments(values[positions == l], l))
                                            .astype(np.uint64), rng) for l in range(self.positions)]
        return positions, fragments, self._oracle(self.k, self.eps / 2).sample(values, rng)

    def run(self, values: Any, rng: np.random.Generator, top: int = 10) -> HeavyHitters:
        """The users' reports drawn and the heavy hitters found: parameters and result as ``PEM.run``."""
        values, rng, top = self._check_run(values, rng, top)
        _, fragments, words = self.sample(values, rng)
        fragment_oracle = self._oracle(self.hash_values << self.step, self.eps / 2)
        codes = np.arange(self.hash_values << self.step, dtype=np.uint64)
        found = [_top(codes, self._estimate(fragment_oracle, reports, codes), top)[0].astype(np.int64)
                 for reports in fragments]
        puzzles = [self._puzzles(found, h) for h in set.intersection(*(set((f >> self.step).tolist()) for f in found))]
        candidates = np.unique(np.concatenate(puzzles)) if puzzles else np.zeros(0, dtype=np.uint64)
        if candidates.size == 0:
            return HeavyHitters(candidates, np.zeros(0))
        return HeavyHitters(*_top(candidates, self._estimate(self._oracle(self.k, self.eps / 2), words, candidates),
                                  top))

    def _puzzles(self, found: list[np.ndarray], h: int) -> np.ndarray:
        """Every item whose fragments are among the found pairs of hash h, whose hash is h and that lies below k."""
        mask = (1 << self.step) - 1
        words = np.zeros(1, dtype=np.uint64)
        for pairs in found:
            pieces = (pairs[(pairs >> self.step) == h] & mask).astype(np.uint64)
            words = ((words[:, None] << np.uint64(self.step)) | pieces[None, :]).ravel()
            if words.size > _MAX_CANDIDATES:
                raise ValueError(f"SFP: hash {h} would make more than {_MAX_CANDIDATES} puzzles: choose a smaller top")
        items = words >> np.uint64(self.positions * self.step - self.bits)
        items = items[items < np.uint64(self.k - 1) + np.uint64(1)] if self.k < 2**64 else items
        return items[self.item_hash(items) == h]


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
    >>> found = heavy_hitters.sfp(2**32, eps=6.0).run(values, rng_for(1, "sfp"), top=3)
    >>> sorted(int(v) for v in found.items)
    [7, 123456789, 2147483653]
    """
    return SFP(k, eps, oracle, dict(options), step)
