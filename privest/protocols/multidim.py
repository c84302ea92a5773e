"""Several attributes a user (multi-freq-ldpy's mdim_freq_est): SPL, SMP and RS+FD, each giving d frequency estimates.

A user holds a tuple of d values, attribute j in [0, k_j).

- SPL (split) reports every attribute through the protocol at eps / d: eps-LDP for the tuple by composition.
- SMP (sample) draws one attribute uniformly and reports it, with its index in the clear, at eps: eps-LDP for the
  tuple (the index says nothing of the values).
- RS+FD (random sampling plus fake data, Arcolezi et al., CIKM 2021) draws one attribute, reports it at the amplified
  eps' = ln(d (e^eps - 1) + 1) and every other attribute as fake data, without the index: GRR's fake value uniform,
  UE-zero's the zero vector and UE-rnd's a uniform random value through the unary step, so that the server cannot
  tell which attribute is true. As the
  peer parameterises it, a report is eps-LDP between tuples that differ in one attribute when the protocol is UE-zero
  or GRR with equal k_j (the amplification eps' is built on), and only eps'-LDP between arbitrary tuples.

For each attribute j the reports of column j have a channel of their own, ``marginal(j)``, a ``Protocol`` of
``privest.protocols``: the protocol at eps / d (SPL), at eps on the users who drew j (SMP), or the mixture
(1/d) M_j(y | x) + ((d - 1)/d) F_j(y) of RS+FD, which for GRR is GRR with p* = p/d + (d - 1)/(d k_j) (GRR at
eps_j = ln(p*/q*)) and for UE-zero unary encoding with one = p/d + (d - 1) q / d and flip = q. So every attribute has
the unbiased estimate (multi-freq-ldpy's MI is ``post="normalization"``), its variance and interval, the exact
likelihood and GIBU (``groups``): the MLE of theta_j from column j, which for SMP is the MLE from all reports and for
SPL and RS+FD a composite (per-attribute) likelihood of them.
"""

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from privest._checks import (
    check_between,
    check_choice,
    check_int,
    check_integers,
    check_rng,
    check_secrets,
    check_sequence,
)
from privest.consistency import AnyPost
from privest.groups import BitGroup, Group, SetGroup
from privest.intervals import Interval
from privest.protocols.base import EPS_MAX, EPS_MIN, Protocol
from privest.protocols.factories import HISTOGRAM_NAMES, LONGITUDINAL_NAMES, NAMES, by_name
from privest.protocols.packed import bernoulli_bytes, sample_by_chunks, unary_packed
from privest.protocols.response import GRR
from privest.protocols.unary import _UnaryEncoding
from privest.rappor import distinct_rows

__all__ = [
    "RSFD_PROTOCOLS",
    "SOLUTIONS",
    "SOLUTION_NAMES",
    "MultiReports",
    "Multidimensional",
    "rsfd",
    "smp",
    "spl",
]

SOLUTIONS = ("spl", "smp", "rsfd")

SOLUTION_NAMES = {"spl": "SPL", "smp": "SMP", "rsfd": "RS+FD"}
"""Each solution's name as the papers and multi-freq-ldpy write it, for tables and figures."""

RSFD_PROTOCOLS = ("grr", "sue_zero", "oue_zero", "sue_rnd", "oue_rnd", "adp")
"""RS+FD's protocols: GRR (fake data a uniform value), SUE or OUE of the zero vector (UE-zero) or of a uniform random
value (UE-rnd, whose bits are not independent: its GIBU group is a matrix) and ADP (GRR or OUE-zero an attribute,
whichever has the lower variance)."""


@dataclass(frozen=True)
class MultiReports:
    """The reports of n users' d-attribute tuples.

    Attributes
    ----------
    columns : tuple
        Column j holds attribute j's reports in the marginal protocol's report type: of every user (SPL, RS+FD), or
        of the users who drew attribute j (SMP), in the users' order.
    attribute : numpy.ndarray of int64, shape (n,), or None
        SMP: the attribute each user drew and reported; None for SPL and RS+FD (RS+FD's is not reported).
    """

    columns: tuple
    attribute: np.ndarray | None = None


def _amplified(eps: float, d: int) -> float:
    """RS+FD's eps' = ln(d (e^eps - 1) + 1), the level of the one attribute reported truly."""
    return math.log(d * math.expm1(eps) + 1)


@dataclass(frozen=True)
class _RsfdUnary(_UnaryEncoding):
    """RS+FD with UE-zero, attribute j's column: a user's true bit vector (unary encoding at eps') with probability
    1/d, else the zero vector through the same step; bit x is 1 with probability one = p/d + (d - 1) q / d, every
    other bit with q, independently (so unary encoding with those values)."""

    d: int = 1
    optimal: bool = True  # OUE (p = 1/2, q = 1/(e^eps' + 1)) or SUE (p = e^(eps'/2)/(e^(eps'/2) + 1), q = 1 - p)
    name: ClassVar[str] = "RS+FD UE-zero"

    @property
    def amplified(self) -> float:
        """eps' = ln(d (e^eps - 1) + 1), the level the true attribute is reported at."""
        return _amplified(self.eps, self.d)

    @property
    def _base(self) -> tuple[float, float]:
        if self.optimal:
            return 0.5, 1 / (math.exp(self.amplified) + 1)
        return 1 / (1 + math.exp(-self.amplified / 2)), 1 / (math.exp(self.amplified / 2) + 1)

    @property
    def one(self) -> float:  # type: ignore[override]
        p, q = self._base
        return p / self.d + (self.d - 1) * q / self.d

    @property
    def flip(self) -> float:  # type: ignore[override]
        return self._base[1]

    @property
    def _gap(self) -> float:
        p, q = self._base
        return (p - q) / self.d


@dataclass(frozen=True)
class _RsfdUnaryRandom(_RsfdUnary):
    """RS+FD with UE-rnd, attribute j's column: the true bit vector (unary encoding at eps') with probability 1/d,
    else the unary encoding at eps' of a uniform random value. Its bits are not independent (the fake one-hot is one
    value), so its likelihood depends on the report's weight w = |y|: with B(y) = q^w (1 - q)^(k - w), a = p / q and
    c = (1 - p) / (1 - q),

        P(y | x) = B(y) ((a if y_x = 1 else c) / d + (d - 1) (w a + (k - w) c) / (d k)),

    a matrix group with one column per distinct report for GIBU. Each bit's marginal is what the unbiased estimate
    needs: p* = p/d + (d - 1) s and q* = q/d + (d - 1) s, s = (p + (k - 1) q) / (d k)."""

    name: ClassVar[str] = "RS+FD UE-rnd"

    @property
    def _fake_share(self) -> float:
        p, q = self._base
        return (self.d - 1) * (p + (self.k - 1) * q) / (self.d * self.k)

    @property
    def p_star(self) -> float:  # type: ignore[override]
        return self._base[0] / self.d + self._fake_share

    @property
    def q_star(self) -> float:  # type: ignore[override]
        return self._base[1] / self.d + self._fake_share

    def sample(self, secrets: np.ndarray, rng: np.random.Generator, packed: bool = False) -> Any:
        """One column's reports: each user's value with probability 1/d, else a uniform random one, through
        unary encoding at eps'."""
        secrets, rng = check_secrets(secrets, self.k), check_rng(rng)
        fake = rng.random(secrets.size) >= 1 / self.d
        values = np.where(fake, rng.integers(0, self.k, secrets.size), secrets)
        p, q = self._base
        return sample_by_chunks(values, self.k, lambda chunk: unary_packed(chunk, self.k, q, p, rng), packed)

    def _columns_of(self, bits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(log B(y) (n,), (n, k) the factor of each secret) for bool reports (n, k)."""
        p, q = self._base
        w = bits.sum(axis=1)
        a, c = p / q, (1 - p) / (1 - q)
        shared = (self.d - 1) * (w * a + (self.k - w) * c) / (self.d * self.k)
        factors = np.where(bits, a, c) / self.d + shared[:, None]
        return w * math.log(q) + (self.k - w) * math.log1p(-q), factors

    def likelihood(self, reports: Any) -> np.ndarray:
        log_scale, factors = self._columns_of(self.membership(reports))
        return np.exp(log_scale)[:, None] * factors

    def group(self, reports: Any) -> Group:  # type: ignore[override]
        """A matrix group over the k secrets, one column per distinct report (``likelihood``'s factors)."""
        unique, counts = distinct_rows(self.membership(reports))
        if counts.size == 0:
            raise ValueError(f"{self.name}: reports must not be empty")
        log_scale, factors = self._columns_of(unique)
        return Group(np.ascontiguousarray(factors.T), counts.astype(np.float64), log_scale)


def _rsfd_grr(k: int, eps: float, d: int) -> GRR:
    """RS+FD with GRR, one attribute's column: GRR at eps' with probability 1/d, else a uniform value, which is GRR
    with p* = p/d + (d - 1)/(d k): GRR at ln(p*/q*)."""
    amplified = _amplified(eps, d)
    p = math.exp(amplified) / (math.exp(amplified) + k - 1)
    q = 1 / (math.exp(amplified) + k - 1)
    return GRR(k, math.log((p + (d - 1) / k) / (q + (d - 1) / k)))


def _variance_of_none(m: Protocol) -> float:
    """q* (1 - q*) / (p* - q*)^2: the variance (times n) of the estimate of a value no user holds."""
    return m.q_star * (1 - m.q_star) / m._gap**2


@dataclass(frozen=True)
class Multidimensional:
    """A multidimensional solution (SPL, SMP or RS+FD; module docstring) over attributes of sizes ``ks`` at eps.

    Attributes
    ----------
    solution : {"spl", "smp", "rsfd"}
    ks : tuple of int
        Each attribute's number of values (at least 2 each, at least one attribute).
    eps : float
        The level of the whole tuple's report (RS+FD: module docstring).
    protocol : str
        A name of ``privest.protocols.by_name`` (SPL, SMP), or one of ``RSFD_PROTOCOLS`` (RS+FD). A longitudinal
        name (``l_grr``, ...) gives multi-freq-ldpy's longitudinal SPL and SMP.
    options : tuple of (name, value) pairs
        The protocol's options (``by_name``'s: ``eps1``, ``calibration``, ``hashes``, ...), given to every
        attribute's; SPL splits ``eps1`` by d as it splits eps. RS+FD takes none.
    """

    solution: str
    ks: tuple
    eps: float
    protocol: str
    options: tuple = ()

    def __post_init__(self) -> None:
        check_choice(self.solution, "solution", SOLUTIONS)
        check_sequence(self.ks, "ks", minimum=1)
        object.__setattr__(self, "ks", tuple(check_int(k, f"ks[{j}]", minimum=2) for j, k in enumerate(self.ks)))
        object.__setattr__(self, "eps", check_between(self.eps, "eps", EPS_MIN, EPS_MAX))
        object.__setattr__(self, "options", tuple(sorted(dict(self.options).items())))
        if self.solution != "rsfd":  # a protocol of by_name's but dBitFlipPM (it estimates buckets, not the values)
            check_choice(self.protocol, "protocol", [n for n in NAMES + HISTOGRAM_NAMES + LONGITUDINAL_NAMES
                                                     if n != "dbitflip"])
        else:
            check_choice(self.protocol, "protocol", RSFD_PROTOCOLS)
            if self.options:
                raise ValueError(f"options: RS+FD takes none, got {dict(self.options)}")
        object.__setattr__(self, "_marginals", tuple(self._marginal(j) for j in range(self.d)))

    @property
    def d(self) -> int:
        """The number of attributes."""
        return len(self.ks)

    def _marginal(self, j: int) -> Protocol:
        k, options = self.ks[j], dict(self.options)
        if self.solution == "spl":
            if options.get("eps1") is not None:
                options["eps1"] = options["eps1"] / self.d
            return by_name(self.protocol, k, self.eps / self.d, **options)
        if self.solution == "smp":
            return by_name(self.protocol, k, self.eps, **options)
        if self.protocol == "adp":  # the lower variance of a value no user holds (multi-freq-ldpy's rule, GRR at a tie)
            grr, oue = _rsfd_grr(k, self.eps, self.d), _RsfdUnary(k, self.eps, self.d, True)
            return grr if _variance_of_none(grr) <= _variance_of_none(oue) else oue
        if self.protocol == "grr":
            return _rsfd_grr(k, self.eps, self.d)
        unary = _RsfdUnaryRandom if self.protocol.endswith("_rnd") else _RsfdUnary
        return unary(k, self.eps, self.d, self.protocol.startswith("oue"))

    def marginal(self, j: int) -> Protocol:
        """Attribute j's column as a protocol: its reports' channel given attribute j's value (module docstring)."""
        return self._marginals[check_int(j, "j", minimum=0, maximum=self.d - 1)]

    def sample(self, secrets: np.ndarray, rng: np.random.Generator, packed: bool = False) -> MultiReports:
        """One report a user of the tuple ``secrets`` (n, d), column j in [0, k_j); ``packed`` for bit columns."""
        secrets = check_integers(secrets, "secrets", 0, None, ndim=2)
        if secrets.shape[1] != self.d:
            raise ValueError(f"secrets must have one column per attribute, shape (n, {self.d}), got {secrets.shape}")
        for j, k in enumerate(self.ks):
            if secrets.shape[0] and secrets[:, j].max() >= k:
                raise ValueError(f"secrets[:, {j}] must lie in 0..{k - 1}, got {secrets[:, j].max()}")
        rng = check_rng(rng)
        n = secrets.shape[0]
        if self.solution == "spl":
            return MultiReports(tuple(m.sample(secrets[:, j], rng, packed) for j, m in enumerate(self._marginals)))
        drawn = rng.integers(0, self.d, n)
        if self.solution == "smp":
            return MultiReports(tuple(m.sample(secrets[drawn == j, j], rng, packed)
                                      for j, m in enumerate(self._marginals)), drawn)
        return MultiReports(tuple(self._rsfd_column(j, secrets[:, j], drawn == j, rng, packed) for j in range(self.d)))

    def _rsfd_column(self, j: int, values: np.ndarray, true: np.ndarray, rng: np.random.Generator,
                     packed: bool) -> Any:
        """Attribute j's RS+FD column: the true users' value at eps', the others' fake data."""
        m, k = self._marginals[j], self.ks[j]
        if isinstance(m, GRR):
            reported = GRR(k, _amplified(self.eps, self.d)).sample(values, rng)
            return np.where(true, reported, rng.integers(0, k, values.size))
        p, q = m._base
        random_fake = isinstance(m, _RsfdUnaryRandom)

        def draw(chunk_values: np.ndarray, chunk_true: np.ndarray) -> np.ndarray:
            if random_fake:  # a uniform random value's unary encoding at eps'
                fakes = rng.integers(0, k, chunk_values.size)
                return unary_packed(np.where(chunk_true, chunk_values, fakes), k, q, p, rng)
            bits = bernoulli_bytes(q, chunk_values.size, k, rng)  # the zero vector through the step: every bit q
            bits[chunk_true] = unary_packed(chunk_values[chunk_true], k, q, p, rng)
            return bits

        index = np.arange(values.size)
        return sample_by_chunks(index, k, lambda rows: draw(values[rows], true[rows]), packed) \
            if values.size else m.sample(values, rng, packed)

    def _columns(self, reports: MultiReports) -> tuple:
        if not isinstance(reports, MultiReports) or len(reports.columns) != self.d:
            raise TypeError(f"reports must be MultiReports of {self.d} columns (from sample)")
        return reports.columns

    def estimate(self, reports: MultiReports, post: AnyPost = None) -> list[np.ndarray]:
        """Each attribute's unbiased estimate (``Protocol.estimate`` of its marginal on its column), post-processed;
        NaN for an SMP attribute no user drew."""
        return [m.estimate(column, post) if m.count(column) else np.full(m.k, np.nan)
                for m, column in zip(self._marginals, self._columns(reports), strict=True)]

    def estimate_variance(self, reports: MultiReports) -> list[np.ndarray]:
        """Each attribute's ``estimate_variance`` (NaN for an SMP attribute no user drew)."""
        return [m.estimate_variance(column) if m.count(column) else np.full(m.k, np.nan)
                for m, column in zip(self._marginals, self._columns(reports), strict=True)]

    def interval(self, reports: MultiReports, level: float = 0.95) -> list[Interval]:
        """Each attribute's normal-approximation intervals (``Protocol.interval``); for an SMP attribute no user drew,
        the estimate NaN and every interval [0, 1], not informative."""
        level = check_between(level, "level", 1e-12, 1 - 1e-12, "(a confidence level)")
        return [m.interval(column, level) if m.count(column) else
                Interval(np.full(m.k, np.nan), np.zeros(m.k), np.ones(m.k), level, "normal", informative=False)
                for m, column in zip(self._marginals, self._columns(reports), strict=True)]

    def groups(self, reports: MultiReports) -> list[SetGroup | BitGroup]:
        """Each attribute's reports as ``privest.gibu`` takes them: ``privest.gibu([groups[j]])`` is the MLE of
        theta_j from column j (module docstring)."""
        return [m.group(column) for m, column in zip(self._marginals, self._columns(reports), strict=True)]


def spl(ks: Any, eps: float, protocol: str, **options: Any) -> Multidimensional:
    """SPL: every attribute reported through ``protocol`` (a ``by_name`` name, with its ``options``) at eps / d (a
    longitudinal protocol's eps1 at eps1 / d)."""
    return Multidimensional("spl", ks, eps, protocol, tuple(options.items()))


def smp(ks: Any, eps: float, protocol: str, **options: Any) -> Multidimensional:
    """SMP: one attribute a user, drawn uniformly, reported with its index through ``protocol`` (a ``by_name`` name,
    with its ``options``) at eps."""
    return Multidimensional("smp", ks, eps, protocol, tuple(options.items()))


def rsfd(ks: Any, eps: float, protocol: str) -> Multidimensional:
    """RS+FD: one attribute a user at ln(d (e^eps - 1) + 1), fake data for the others (``protocol`` one of
    ``RSFD_PROTOCOLS``; module docstring for the level it gives)."""
    return Multidimensional("rsfd", ks, eps, protocol)
