"""Several rounds of a longitudinal protocol (``privest.protocols.longitudinal``): ``Rounds`` keeps each user's memo
of each value, so that reporting one value again reveals no more than its memo; ``joint_group`` is the exact
likelihood of a user's rounds of one value, for GIBU.
"""

from collections.abc import Sequence
from typing import Any

import numpy as np

from privest._checks import check_flag, check_instance, check_int, check_rng, check_secrets, check_sequence
from privest.groups import Group
from privest.protocols.hashing import HashReports
from privest.protocols.longitudinal import _Memoised

__all__ = [
    "Rounds",
    "joint_group",
]


class Rounds:
    """A longitudinal protocol's users over several rounds, each user's memo of each value kept (what makes the
    protocol longitudinal: multi-freq-ldpy's clients keep none, so every call there draws a new memo).

    ``report(secrets, rng)`` gives one round's reports: a user whose value has a memo (from any earlier round) sends
    it through the instantaneous step again; a value seen for the first time gets its memo drawn, then kept. For
    local hashing each user's seed is drawn once, here, and kept, so that the memo is of the hashed value (at most g
    memos a user). However many rounds a value is reported in, what they reveal of it is at most what its memo does:
    eps; one round's reports are those of ``protocol.sample`` (the same distribution, for the estimate, ``gibu`` and
    the audit, round by round).

    Parameters
    ----------
    protocol : LGRR, LSUE, LOUE, LOSUE, LSOUE, LBLH or LOLH
        The longitudinal protocol.
    users : int
        How many users report each round (user i is position i of every round's secrets).
    rng : numpy.random.Generator
        Draws the local-hashing seeds (nothing for the other protocols).

    Examples
    --------
    Ten rounds, the users' values unchanged: each user's memo is drawn once, so no report reveals more than it.

    >>> import numpy as np
    >>> import privest
    >>> from privest import protocols
    >>> rng = privest.rng_for(2026, "rounds doctest")
    >>> m = protocols.l_grr(4, 2.0)
    >>> secrets = rng.choice(4, 5_000, p=[0.4, 0.3, 0.2, 0.1])
    >>> rounds = protocols.Rounds(m, 5_000, rng)
    >>> estimates = [m.estimate(rounds.report(secrets, rng)) for _ in range(10)]
    >>> rounds.memos  # one memo a user: the values never changed
    5000
    >>> bool(np.abs(np.mean(estimates, axis=0) - [0.4, 0.3, 0.2, 0.1]).max() < 0.05)
    True
    """

    def __init__(self, protocol: _Memoised, users: int, rng: np.random.Generator) -> None:
        check_instance(protocol, "protocol", _Memoised, "a longitudinal protocol (protocols.l_grr, l_sue, ...)")
        self.protocol = protocol
        self.users = check_int(users, "users", minimum=1)
        self.seeds = protocol._draw_seeds(self.users, check_rng(rng))
        self._keys = np.zeros(0, dtype=np.int64)  # user * size + memoised value, sorted
        self._memos: np.ndarray | None = None  # the memo of each key, in the keys' order

    @property
    def memos(self) -> int:
        """How many (user, value) memos have been drawn so far."""
        return int(self._keys.size)

    def report(self, secrets: np.ndarray, rng: np.random.Generator, packed: bool = False) -> object:
        """One round's reports: ``secrets`` (users,) each user's value this round; ``packed`` as ``sample``'s."""
        m = self.protocol
        secrets = check_secrets(secrets, m.k)
        if secrets.shape != (self.users,):
            raise ValueError(f"secrets must hold one value per user, shape ({self.users},), got {secrets.shape}")
        rng, packed = check_rng(rng), check_flag(packed, "packed")
        values = m._memo_values(secrets, self.seeds)
        keys = np.arange(self.users, dtype=np.int64) * m._memo_size + values
        at = np.searchsorted(self._keys, keys)
        known = (at < self._keys.size) & (self._keys[np.minimum(at, self._keys.size - 1)] == keys) \
            if self._keys.size else np.zeros(self.users, dtype=bool)
        if not known.all():  # memos for the values seen for the first time, in the users' order, then kept sorted
            new = keys[~known]
            drawn = m._draw_memos(values[~known], rng)
            merged = np.concatenate([self._keys, new])
            order = np.argsort(merged, kind="stable")
            memos = drawn if self._memos is None else np.concatenate([self._memos, drawn])
            self._keys, self._memos = merged[order], memos[order]
            at = np.searchsorted(self._keys, keys)
        return m._respond(self._memos[at], self.seeds, rng, packed)


def joint_group(protocol: _Memoised, rounds: Sequence[Any]) -> Group:
    """GIBU's group of R rounds of reports from users whose value did not change, each user's memo kept (``Rounds``):
    the exact likelihood of a user's R reports, summed over the memo they share,

        P(y_1, ..., y_R | x) = sum_b P(b | x) prod_r P(y_r | b),

    where one round's group treats the rounds as independent reports (they are not: they share the memo, and R
    rounds reveal at most what the memo does, eps). Let s_x be how many of the user's R reports hold x (its value,
    its bit, or its hashed value: ``membership``) and t(c) = p2^c q2^(R - c). For k-RR memos (L-GRR, and L-BLH, L-OLH
    over the g hashed values) the sum has two terms, P = q1 sum_b t(c_b) + (p1 - q1) t(s_x), c_b how many reports
    hold the memo value b; for unary memos (L-SUE, L-OUE, L-OSUE, L-SOUE) the bits are independent, and
    P = prod_i g0(s_i) g1(s_x) / g0(s_x) with g_v(s) = P(bit 1 | v) p2^s (1 - p2)^(R - s) + P(bit 0 | v) q2^s
    (1 - q2)^(R - s). Users of the same counts share a column.

    Parameters
    ----------
    protocol : LGRR, LSUE, LOUE, LOSUE, LSOUE, LBLH or LOLH
        The longitudinal protocol of every round.
    rounds : sequence of reports
        R >= 1 rounds of ``protocol``'s reports (``Rounds.report``), user i at position i of each; local hashing's
        users keep their seeds over the rounds.

    Returns
    -------
    Group
        For ``privest.gibu``: the MLE of the users' distribution from all their reports.

    Examples
    --------
    >>> import numpy as np
    >>> import privest
    >>> from privest import protocols
    >>> rng = privest.rng_for(2026, "joint doctest")
    >>> m = protocols.l_grr(4, 2.0)
    >>> secrets = rng.choice(4, 20_000, p=[0.4, 0.3, 0.2, 0.1])
    >>> rounds = protocols.Rounds(m, 20_000, rng)
    >>> reports = [rounds.report(secrets, rng) for _ in range(5)]
    >>> theta = privest.gibu([protocols.joint_group(m, reports)]).theta
    >>> bool(np.abs(theta - [0.4, 0.3, 0.2, 0.1]).max() < 0.02)
    True
    """
    check_instance(protocol, "protocol", _Memoised, "a longitudinal protocol (protocols.l_grr, l_sue, ...)")
    rounds = check_sequence(rounds, "rounds", minimum=1)
    sizes = []
    for r, reports in enumerate(rounds):
        try:
            sizes.append(protocol.count(reports))
        except (TypeError, ValueError) as error:  # the protocol's own words, naming the round
            raise type(error)(f"rounds[{r}]: {error}") from error
    first, n = rounds[0], sizes[0]
    for r, reports in enumerate(rounds):
        if sizes[r] != n:
            raise ValueError(f"rounds[{r}] holds {sizes[r]} reports, rounds[0] {n}: one a user a round")
        if isinstance(first, HashReports) and not np.array_equal(reports.seeds, first.seeds):
            raise ValueError(f"rounds[{r}]: the users' seeds differ from rounds[0]'s; a user keeps one seed over "
                             "the rounds (Rounds)")
    R, k = len(rounds), protocol.k
    held = np.zeros((n, k), dtype=np.int32)  # s_x: the reports holding x
    for reports in rounds:
        held += protocol.membership(reports)
    p1, q1, p2, q2 = protocol._chain
    c = np.arange(R + 1)
    if protocol._kind == "rr":
        t = p2**c * q2 ** (R - c)
        hashed = isinstance(first, HashReports)  # the memo of the g hashed values, not of x itself
        if hashed:  # c_b of the g hashed values, from the reported values, beside s_x
            memo_counts = np.zeros((n, protocol._memo_size), dtype=np.int32)
            for reports in rounds:
                memo_counts[np.arange(n), reports.values] += 1
            keys = np.concatenate([held, memo_counts], axis=1)
        else:  # a k-RR memo of x: c_b is s_b
            keys = held
        patterns, counts = np.unique(keys, axis=0, return_counts=True)
        total = q1 * t[patterns[:, k:] if hashed else patterns].sum(axis=1)
        likelihood = total[None, :] + (p1 - q1) * t[patterns[:, :k]].T
        log_scale = np.zeros(patterns.shape[0])
    else:
        ones, zeros = p2**c * (1 - p2) ** (R - c), q2**c * (1 - q2) ** (R - c)
        g1, g0 = p1 * ones + (1 - p1) * zeros, q1 * ones + (1 - q1) * zeros
        patterns, counts = np.unique(held, axis=0, return_counts=True)
        likelihood = (g1 / g0)[patterns].T
        log_scale = np.log(g0)[patterns].sum(axis=1)
    top = likelihood.max(axis=0)
    return Group(likelihood / top, counts.astype(np.float64), log_scale + np.log(top))
