"""The prefix-tree heavy hitters (``privest.heavy_hitters``): PEM (Wang et al. 2019) and TreeHistogram (Bassily et
al. 2017), users split over the levels of a prefix tree, the server extending the top prefixes of each level.
"""

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from privest._checks import check_int, check_items
from privest.heavy_hitters.base import HeavyHitters, _Base, _grow, _levels, _top

__all__ = [
    "PEM",
    "TreeHist",
    "pem",
    "treehist",
]


@dataclass(frozen=True)
class _Tree(_Base):
    """The users split uniformly over the levels of a prefix tree, each level's users reporting their prefix to an
    oracle at ``level_eps``; what PEM and TreeHist share."""

    step: int = 4

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "step", check_int(self.step, "step", minimum=1, maximum=20))

    @property
    def first(self) -> int:
        """The bits of the first level before its step (PEM's start; 0 for TreeHist)."""
        return 0

    @property
    def level_eps(self) -> float:
        """The eps of a user's prefix report."""
        return self.eps

    @property
    def levels(self) -> list[int]:
        """Each level's prefix length in bits: first + step, first + 2 step, ..., m."""
        return _levels(self.bits, self.first, self.step)

    def _prefix_reports(self, values: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, list[Any]]:
        groups = rng.integers(0, len(self.levels), values.size)
        reports = []
        for level, length in enumerate(self.levels):
            oracle = self._oracle(self.prefix_domain(length), self.level_eps)
            reports.append(oracle.sample(values[groups == level] >> np.uint64(self.bits - length), rng))
        return groups, reports

    def estimate(self, reports: list[Any], level: int, prefixes: Any) -> np.ndarray:
        """Level ``level``'s unbiased estimate of the share of users whose item starts with each prefix (the level's
        users are a uniform sample of all).

        Parameters
        ----------
        reports : list
            Each level's oracle reports, as ``sample`` gives them.
        level : int
            The level, 0..len(levels) - 1.
        prefixes : array_like of int, shape (q,)
            Prefixes of levels[level] bits.

        Returns
        -------
        numpy.ndarray, shape (q,)
        """
        if not isinstance(reports, list) or len(reports) != len(self.levels):
            raise TypeError(f"reports must be the list of the {len(self.levels)} levels' reports that sample gives, "
                            f"got {type(reports).__name__}")
        level = check_int(level, "level", minimum=0, maximum=len(self.levels) - 1)
        domain = self.prefix_domain(self.levels[level])
        prefixes = check_items(prefixes, "prefixes", domain, ndim=1)
        return self._estimate(self._oracle(domain, self.level_eps), reports[level], prefixes)

    def _tree(self, reports: list[Any], top: int) -> tuple[np.ndarray, np.ndarray]:
        return _grow(self.bits, self.k, self.levels, lambda level, cand: self.estimate(reports, level, cand), top)


@dataclass(frozen=True)
class PEM(_Tree):
    """The prefix extending method (module docstring; Wang et al. 2019).

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
    step : int
        The bits added at each level (1..20).
    start : int
        The bits of the first level before its step (0..m-1).
    """

    start: int = 4
    name: ClassVar[str] = "PEM"

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "start", check_int(self.start, "start", minimum=0, maximum=max(self.bits - 1, 0)))

    @property
    def first(self) -> int:
        """start, the bits of the first level before its step."""
        return self.start

    def sample(self, values: Any, rng: np.random.Generator) -> tuple[np.ndarray, list[Any]]:
        """The users' reports: each user's group (uniform over the g groups) and each group's oracle reports of its
        users' prefixes, in user order within the group.

        Parameters
        ----------
        values, rng
            As in ``run``.
        """
        values, rng, _ = self._validated_run(values, rng, 1)
        return self._prefix_reports(values, rng)

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
        values, rng, top = self._validated_run(values, rng, top)
        _, reports = self._prefix_reports(values, rng)
        return HeavyHitters(*self._tree(reports, top))


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
        The frequency oracle of each group (``privest.protocols.by_name``: a sketch name, default "flh" with its
        1024 hashes, or a set-valued protocol such as "grr", "oue" or "olh" where each level's domain is small).
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
    return PEM(k, eps, oracle, dict(options), step, start)


@dataclass(frozen=True)
class TreeHist(_Tree):
    """TreeHistogram (module docstring; Bassily et al. 2017, as pure-LDP's TreeHistClient/Server).

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

    name: ClassVar[str] = "TreeHist"

    @property
    def level_eps(self) -> float:
        """eps / 2, the eps of the prefix report (and of the whole-item report)."""
        return self.eps / 2

    def sample(self, values: Any, rng: np.random.Generator) -> tuple[np.ndarray, list[Any], Any]:
        """The users' reports: each user's level, each level's prefix reports, and the whole-item reports.

        Parameters
        ----------
        values, rng
            As in ``PEM.run``.
        """
        values, rng, _ = self._validated_run(values, rng, 1)
        groups, prefixes = self._prefix_reports(values, rng)
        return groups, prefixes, self._oracle(self.k, self.eps / 2).sample(values, rng)

    def run(self, values: Any, rng: np.random.Generator, top: int = 10) -> HeavyHitters:
        """The users' reports drawn and the heavy hitters found: parameters and result as ``PEM.run``."""
        values, rng, top = self._validated_run(values, rng, top)
        _, prefixes, words = self.sample(values, rng)
        items, _ = self._tree(prefixes, top)
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
