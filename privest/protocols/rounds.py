"""Several rounds of a longitudinal protocol (``privest.protocols.longitudinal``): ``Rounds`` keeps each user's memo
of each value, so that reporting one value again reveals no more than its memo.
"""

import numpy as np

from privest._checks import check_flag, check_instance, check_int, check_rng, check_secrets
from privest.protocols.longitudinal import _Memoised

__all__ = [
    "Rounds",
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
