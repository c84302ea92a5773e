"""Longitudinal protocols (memoisation): L-GRR, L-SUE, L-OUE, L-OSUE, L-SOUE, L-BLH, L-OLH (LOLOHA) and L-ADP, as
multi-freq-ldpy names them (Arcolezi et al., arXiv:2111.04636 and EDBT 2023).

A user reports a value through two randomisers in a chain: the first ("permanent memoisation", at ``eps``) is drawn
once for each value the user holds and kept; the second ("instantaneous", parameters p2, q2) is drawn afresh for
every report from the memo. So however many reports one value gives, they reveal at most what the memo does, eps
(multi-freq-ldpy's eps_perm, the bound over infinitely many reports), while a single report is eps1-LDP
(multi-freq-ldpy's eps_1, default eps / 2 as its tutorials use).

Both steps are k-RR (L-GRR; over the g hashed values for local hashing, L-BLH and L-OLH) or flip each bit of the
unary encoding (L-SUE: SUE then a symmetric step; L-OUE: OUE then an OUE-shaped step with p2 = 1/2; L-OSUE: OUE then
a symmetric step; L-SOUE: SUE then an OUE-shaped step). The chain of two such channels is one channel of the same
kind, with

    p* = p1 p2 + (1 - p1) q2,      q* = q1 p2 + (1 - q1) q2,      p* - q* = (p1 - q1)(p2 - q2),

so one round's report is a report of a ``privest.protocols`` protocol with those values: the same sets, the same
unbiased estimator (multi-freq-ldpy's ``MI_long`` is Wang et al.'s with p*, q*), the same exact likelihood, GIBU
group, variance and audit. ``sample`` draws the two steps (the memo, then the instantaneous response), one round.

The second step's parameter is solved from eps1 (``chain``): the one-report level ln(p*/q*) (k-RR) or
ln(p* (1 - q*) / (q* (1 - p*))) (unary) equals eps1. For the unary protocols multi-freq-ldpy's closed forms are the
same solution. For L-GRR and local hashing it solves (p1 p2 + q1 q2) / (p1 q2 + q1 p2) = e^eps1, the two-value case,
whose one report is less than eps1-LDP when k > 2 (ln(p*/q*) = 0.245 at k = 10, eps = 1, eps1 = 0.5; 0.049 at k = 74):
``calibration="peer"`` takes that p2 (to reproduce multi-freq-ldpy), ``"exact"`` (the default) the p2 whose one
report is exactly eps1-LDP. ``eps1_actual`` is the level a report has either way.
"""

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from privest._checks import check_between, check_choice, check_flag, check_rng, check_secrets
from privest.protocols.base import EPS_MIN, _grr
from privest.protocols.hashing import OLH_EPS_MAX, HashReports, _LocalHashing
from privest.protocols.packed import PackedBits, bernoulli_bytes, sample_by_chunks, unary_packed
from privest.protocols.response import _KValues
from privest.protocols.unary import _UnaryEncoding

__all__ = [
    "CALIBRATIONS",
    "LBLH",
    "LGRR",
    "LOLH",
    "LOSUE",
    "LOUE",
    "LSOUE",
    "LSUE",
    "chain",
    "l_adp",
    "loloha_g",
]

CALIBRATIONS = ("exact", "peer")
"""How L-GRR and local hashing pick their second step's p2 from eps1 (module docstring)."""

Chain = tuple[float, float, float, float]


def chain(kind: str, size: int, eps: float, eps1: float, calibration: str = "exact") -> Chain:
    """(p1, q1, p2, q2) of a longitudinal protocol's two steps.

    Parameters
    ----------
    kind : {"rr", "sue", "oue", "osue", "soue"}
        "rr": k-RR over ``size`` values in both steps (L-GRR; local hashing over g = size); the unary kinds: the first
        step SUE (p1 = e^(eps/2) / (e^(eps/2) + 1), q1 = 1 - p1) or OUE (p1 = 1/2, q1 = 1 / (e^eps + 1)), the second
        symmetric (q2 = 1 - p2) or OUE-shaped (p2 = 1/2): L-SUE SUE and symmetric, L-OUE OUE and OUE-shaped, L-OSUE
        OUE and symmetric, L-SOUE SUE and OUE-shaped.
    size : int
        The values of the k-RR steps (ignored by the unary kinds).
    eps, eps1 : float
        The memo's level and one report's, 0 < eps1 < eps.
    calibration : {"exact", "peer"}
        For "rr": p2 such that one report is exactly eps1-LDP, or multi-freq-ldpy's (module docstring).

    Returns
    -------
    tuple of float
        p1, q1 (the memo's: the true value's or bit's probability, another value's or a zero bit's), p2, q2 (the
        same for the instantaneous step, given the memo).

    Raises
    ------
    ValueError
        If no second step gives eps1 (the OUE-shaped step reaches at most ln(p1 (2 - q1) / (q1 (2 - p1))), below eps).
    """
    if kind == "rr":
        c, e = math.exp(eps1), math.exp(eps)
        p1 = e / (e + size - 1)
        q1 = 1 / (e + size - 1)
        if calibration == "exact":  # (size - 1) P = p2 (size p1 - 1) + 1 - p1, the same for Q with q1: P = c Q
            p2 = (1 - p1 - c * (1 - q1)) / (1 - size * p1 - c * (1 - size * q1))
        else:
            p2 = (q1 - c * p1) / (-p1 * c + size * q1 * c - q1 * c - p1 * (size - 1) + q1)
        return p1, q1, p2, (1 - p2) / (size - 1)
    if kind in ("sue", "soue"):
        p1 = math.exp(eps / 2) / (math.exp(eps / 2) + 1)
        q1 = 1 / (math.exp(eps / 2) + 1)
    else:
        p1, q1 = 0.5, 1 / (math.exp(eps) + 1)
    if kind == "sue":  # p* + q* = 1, so p* / (1 - p*) = e^(eps1/2); p* = (2 p1 - 1) p2 + 1 - p1
        p_star = math.exp(eps1 / 2) / (math.exp(eps1 / 2) + 1)
        p2 = (p_star - 1 + p1) / (2 * p1 - 1)
        return p1, q1, p2, 1 - p2
    if kind == "osue":  # p* = 1/2, so the chain is OUE(eps1): q* = 1 / (e^eps1 + 1) = 1 - q1 - p2 (1 - 2 q1)
        p2 = (1 - q1 - 1 / (math.exp(eps1) + 1)) / (1 - 2 * q1)
        return p1, q1, p2, 1 - p2
    # OUE-shaped second step, p2 = 1/2: the level falls from its largest at q2 = 0 to 0 at q2 = 1/2; bisection
    return (p1, q1, 0.5, _solve_q2(p1, q1, eps1))


def _unary_level(p1: float, q1: float, p2: float, q2: float) -> float:
    """ln(p* (1 - q*) / (q* (1 - p*))), one report's level under a unary chain."""
    p_star, q_star = p1 * p2 + (1 - p1) * q2, q1 * p2 + (1 - q1) * q2
    return math.log(p_star) + math.log1p(-q_star) - math.log(q_star) - math.log1p(-p_star)


def _solve_q2(p1: float, q1: float, eps1: float) -> float:
    """q2 in [0, 1/2) with ``_unary_level(p1, q1, 1/2, q2) = eps1``, by bisection to the last bit."""
    highest = _unary_level(p1, q1, 0.5, 0.0)
    if not eps1 < highest:
        raise ValueError(f"eps1 must be below {highest!r} for this protocol at this eps (its second step, p2 = 1/2, "
                         f"reaches no more), got {eps1!r}")
    low, high = 0.0, 0.5
    while True:
        middle = (low + high) / 2
        if middle in (low, high):
            return high if abs(_unary_level(p1, q1, 0.5, high) - eps1) < abs(_unary_level(p1, q1, 0.5, low) - eps1) \
                else low
        if _unary_level(p1, q1, 0.5, middle) > eps1:
            low = middle
        else:
            high = middle


def loloha_g(eps: float, eps1: float) -> int:
    """L-OLH's (LOLOHA's) number of hashed values g, as multi-freq-ldpy computes it from eps and alpha = eps1 / eps
    (the g that minimises the estimator's variance, Arcolezi et al. EDBT 2023), at least 2."""
    alpha = eps1 / eps
    e, ea = math.exp(eps), math.exp(eps * alpha)
    root = math.sqrt(math.exp(4 * eps) - 14 * math.exp(2 * eps) - 12 * math.exp(2 * eps * (alpha + 1))
                     + 12 * math.exp(eps * (alpha + 1)) + 12 * math.exp(eps * (alpha + 3)) + 1)
    return int(max(np.rint((root - math.exp(2 * eps) + 6 * e - 6 * ea + 1) / (6 * (e - ea))), 2))


@dataclass(frozen=True)
class _Memoised:
    """What every longitudinal protocol adds to its one-round protocol: eps1, its chain and the two steps' levels."""

    _kind: ClassVar[str]

    def __post_init__(self) -> None:
        """The one-round protocol's checks (k, eps, hashes), then eps1, the calibration and the two steps' chain over
        the memo's values (k, or g after hashing)."""
        super().__post_init__()  # type: ignore[misc]
        eps1 = self.eps / 2 if self.eps1 is None else self.eps1  # type: ignore[attr-defined]
        eps1 = check_between(eps1, "eps1", EPS_MIN, self.eps, "(one report's level, below eps: the memo's)")
        if not eps1 < self.eps:
            raise ValueError(f"eps1 must be below eps = {self.eps!r} (one report's level; the memo's is eps), got "
                             f"{eps1!r}")
        object.__setattr__(self, "eps1", eps1)
        calibration = check_choice(getattr(self, "calibration", "exact"), "calibration", CALIBRATIONS)
        p1, q1, p2, q2 = chain(self._kind, self._memo_size, self.eps, eps1, calibration)
        if not (0 <= q2 < p2 <= 1 and 0 < q1 < p1 < 1):
            raise ValueError(f"{self.name}: no second step gives eps1 = {eps1!r} at eps = {self.eps!r} "
                             f"(p2 = {p2!r}, q2 = {q2!r})")
        object.__setattr__(self, "_chain", (p1, q1, p2, q2))

    @property
    def p1(self) -> float:
        """The memo's probability of the true value (k-RR) or of a one bit staying 1 (unary)."""
        return self._chain[0]

    @property
    def q1(self) -> float:
        """The memo's probability of another given value (k-RR) or of a zero bit turning 1 (unary)."""
        return self._chain[1]

    @property
    def p2(self) -> float:
        """The instantaneous step's probability of keeping the memo's value (k-RR) or a one bit (unary)."""
        return self._chain[2]

    @property
    def q2(self) -> float:
        """The instantaneous step's probability of another given value (k-RR) or of a zero bit turning 1 (unary)."""
        return self._chain[3]

    @property
    def p_chain(self) -> float:
        """The true value (k-RR) or a one bit (unary) through both steps: p1 p2 + (1 - p1) q2."""
        return self.p1 * self.p2 + (1 - self.p1) * self.q2

    @property
    def q_chain(self) -> float:
        """Another given value (k-RR) or a zero bit turned 1 (unary) through both steps: q1 p2 + (1 - q1) q2."""
        return self.q1 * self.p2 + (1 - self.q1) * self.q2

    @property
    def _gap(self) -> float:
        return (self.p1 - self.q1) * (self.p2 - self.q2)

    @property
    def _memo_size(self) -> int:
        """How many values a memo is drawn for: k, or g after hashing."""
        return getattr(self, "g", self.k)

    def _draw_seeds(self, n: int, rng: np.random.Generator) -> np.ndarray | None:
        """Each user's hash seed (local hashing), fixed over rounds; None for the others."""
        return None

    def _memo_values(self, secrets: np.ndarray, seeds: np.ndarray | None) -> np.ndarray:
        """The value each user's memo is of: the secret, or its hash under the user's seed."""
        return secrets

    @property
    def eps1_actual(self) -> float:
        """The level one report actually has, ln of the largest likelihood ratio between two secrets: eps1 under
        ``calibration="exact"``, below it for L-GRR and local hashing under "peer" when more than two values."""
        return math.log(self.high / self.low)


def _unary_step(bits: np.ndarray, k: int, p: float, q: float, rng: np.random.Generator) -> np.ndarray:
    """Each packed bit set to 1 with probability p where it is 1, q where it is 0 (the padding stays 0)."""
    return (bits & bernoulli_bytes(p, bits.shape[0], k, rng)) | (~bits & bernoulli_bytes(q, bits.shape[0], k, rng))


@dataclass(frozen=True)
class LGRR(_Memoised, _KValues):
    """Longitudinal GRR: k-RR at eps (the memo), then k-RR with keep probability p2 (``chain``)."""

    eps1: float | None = None
    calibration: str = "exact"
    name: ClassVar[str] = "L-GRR"
    _kind: ClassVar[str] = "rr"

    high = p_star = _Memoised.p_chain  # type: ignore[assignment]
    low = q_star = _Memoised.q_chain  # type: ignore[assignment]

    def sample(self, secrets: np.ndarray, rng: np.random.Generator, packed: bool = False) -> np.ndarray:
        """One round: the memo (k-RR at eps), then the instantaneous response (k-RR keeping it with p2)."""
        check_flag(packed, "packed")
        rng = check_rng(rng)
        return self._respond(self.sample_memo(secrets, rng), None, rng, False)

    def sample_memo(self, secrets: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """The memo alone (k-RR at eps): the report of infinitely many rounds' worth of information."""
        return self._draw_memos(check_secrets(secrets, self.k), check_rng(rng))

    def _draw_memos(self, values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return _grr(values, self.k, self.p1, rng)

    def _respond(self, memos: np.ndarray, seeds: np.ndarray | None, rng: np.random.Generator,
                 packed: bool) -> np.ndarray:
        return _grr(memos, self.k, self.p2, rng)


@dataclass(frozen=True)
class _LongitudinalUnary(_Memoised, _UnaryEncoding):
    """Unary encoding through two bit-flipping steps: bit x is 1 after both with probability p*, every other bit
    with q* (``_UnaryEncoding`` with one = p*, flip = q*)."""

    eps1: float | None = None

    one = _Memoised.p_chain  # type: ignore[assignment]
    flip = _Memoised.q_chain  # type: ignore[assignment]

    def sample(self, secrets: np.ndarray, rng: np.random.Generator, packed: bool = False
               ) -> np.ndarray | PackedBits:
        """One round of users with fresh memos, in packed bytes (``packed=True``: ``PackedBits``): the memo (unary
        encoding with p1, q1) and then the instantaneous step (a one kept with p2, a zero turned 1 with q2) leave every
        bit independent, bit x 1 with p* and every other with q*, so the round is drawn in that one step (half the
        draws; ``Rounds`` draws the two steps, since it keeps the memo)."""
        secrets, rng = check_secrets(secrets, self.k), check_rng(rng)
        return sample_by_chunks(secrets, self.k, lambda chunk: unary_packed(chunk, self.k, self.flip, self.one, rng),
                                packed)

    def sample_memo(self, secrets: np.ndarray, rng: np.random.Generator, packed: bool = False
                    ) -> np.ndarray | PackedBits:
        """The memo alone (unary encoding with p1, q1)."""
        secrets, rng = check_secrets(secrets, self.k), check_rng(rng)
        return sample_by_chunks(secrets, self.k, lambda chunk: self._draw_memos(chunk, rng), packed)

    def _draw_memos(self, values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return unary_packed(values, self.k, self.q1, self.p1, rng)

    def _respond(self, memos: np.ndarray, seeds: np.ndarray | None, rng: np.random.Generator,
                 packed: bool) -> np.ndarray | PackedBits:
        bits = _unary_step(memos, self.k, self.p2, self.q2, rng)
        return PackedBits(bits, self.k) if packed else np.unpackbits(bits, axis=1, count=self.k).view(bool)


@dataclass(frozen=True)
class LSUE(_LongitudinalUnary):
    """Longitudinal SUE (basic RAPPOR): SUE at eps (the memo), then each bit kept with p2 and flipped with
    q2 = 1 - p2."""

    name: ClassVar[str] = "L-SUE"
    _kind: ClassVar[str] = "sue"


@dataclass(frozen=True)
class LOUE(_LongitudinalUnary):
    """Longitudinal OUE: OUE at eps (the memo), then a one bit kept with p2 = 1/2 and a zero bit turned 1 with q2."""

    name: ClassVar[str] = "L-OUE"
    _kind: ClassVar[str] = "oue"


@dataclass(frozen=True)
class LOSUE(_LongitudinalUnary):
    """OUE at eps (the memo), then each bit kept with p2 and flipped with q2 = 1 - p2: one round is OUE at eps1
    exactly (p* = 1/2, q* = 1 / (e^eps1 + 1))."""

    name: ClassVar[str] = "L-OSUE"
    _kind: ClassVar[str] = "osue"


@dataclass(frozen=True)
class LSOUE(_LongitudinalUnary):
    """SUE at eps (the memo), then a one bit kept with p2 = 1/2 and a zero bit turned 1 with q2."""

    name: ClassVar[str] = "L-SOUE"
    _kind: ClassVar[str] = "soue"


@dataclass(frozen=True)
class _LongitudinalHashing(_Memoised, _LocalHashing):
    """Local hashing through two k-RR steps over the g hashed values: (seed, value) reports as BLH's and OLH's."""

    eps1: float | None = None
    calibration: str = "exact"
    _kind: ClassVar[str] = "rr"

    high = p_star = _Memoised.p_chain  # type: ignore[assignment]
    low = _Memoised.q_chain  # type: ignore[assignment]

    @property
    def _gap(self) -> float:  # p* - 1/g = (g - 1)/g (P_g - Q_g), P_g - Q_g = (p1 - q1)(p2 - q2)
        return (self.g - 1) * (self.p1 - self.q1) * (self.p2 - self.q2) / self.g

    def sample(self, secrets: np.ndarray, rng: np.random.Generator, packed: bool = False) -> HashReports:
        """One round: a seed a user, the memo (k-RR over g of the hashed value at eps), then the instantaneous
        response (k-RR over g keeping the memo with p2)."""
        check_flag(packed, "packed")
        memo = self.sample_memo(secrets, rng)
        return self._respond(memo.values, memo.seeds, check_rng(rng), False)

    def sample_memo(self, secrets: np.ndarray, rng: np.random.Generator) -> HashReports:
        """A seed a user and the memo alone (k-RR over g of the hashed value at eps)."""
        secrets, rng = check_secrets(secrets, self.k), check_rng(rng)
        seeds = self._draw_seeds(secrets.size, rng)
        return HashReports(seeds, self._draw_memos(self._memo_values(secrets, seeds), rng))

    _draw_seeds = _LocalHashing._draw_seeds  # before _Memoised's (no seeds) in the order of the bases
    _memo_values = _LocalHashing._memo_values

    def _draw_memos(self, values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return _grr(values, self.g, self.p1, rng)

    def _respond(self, memos: np.ndarray, seeds: np.ndarray | None, rng: np.random.Generator,
                 packed: bool) -> HashReports:
        return HashReports(seeds, _grr(memos, self.g, self.p2, rng))


@dataclass(frozen=True)
class LBLH(_LongitudinalHashing):
    """Longitudinal binary local hashing: g = 2 (where both calibrations agree)."""

    name: ClassVar[str] = "L-BLH"
    g: ClassVar[int] = 2


@dataclass(frozen=True)
class LOLH(_LongitudinalHashing):
    """Longitudinal optimised local hashing, LOLOHA (Arcolezi et al., EDBT 2023): g from eps and eps1
    (``loloha_g``)."""

    name: ClassVar[str] = "L-OLH"
    eps_max: ClassVar[float] = OLH_EPS_MAX

    def __post_init__(self) -> None:
        try:  # g from eps and eps1 where they are numbers with 0 < eps1 < eps; else the checks below say what is wrong
            g = loloha_g(float(self.eps), float(self.eps / 2 if self.eps1 is None else self.eps1))
        except (TypeError, ValueError, ArithmeticError):
            g = 2
        object.__setattr__(self, "_g", g)
        super().__post_init__()
        if self.g > 2**32:
            raise ValueError(f"L-OLH: g = {self.g} exceeds 2^32, the range of its 32-bit hash (eps = {self.eps!r}, "
                             f"eps1 = {self.eps1!r})")

    @property
    def g(self) -> int:  # type: ignore[override]
        return self._g


def l_adp(k: int, eps: float, eps1: float | None = None, calibration: str = "exact") -> "LGRR | LOSUE":
    """The adaptive longitudinal protocol (multi-freq-ldpy's L-ADP): an ``LGRR`` when its variance of a value no user
    holds, q* (1 - q*) / (p* - q*)^2, is at most ``LOSUE``'s, else an ``LOSUE`` (L-GRR at a tie)."""
    grr, osue = LGRR(k, eps, eps1, calibration), LOSUE(k, eps, eps1)

    def variance(m: LGRR | LOSUE) -> float:
        return m.q_star * (1 - m.q_star) / m._gap**2

    return grr if variance(grr) <= variance(osue) else osue


