"""An empirical privacy audit of a client: a lower bound on the eps it gives, from its sampled reports only
(the distinguishing test of LDP-Auditor: Arcolezi and Gambs, "Revealing the True Cost of Locally Differentially
Private Protocols: An Auditing Perspective", PETS 2024).

The client is run ``trials`` times on each of two chosen inputs x1 and x2; an event E of the report is counted
under each. If the client is eps-LDP, P(E | x1) <= e^eps P(E | x2) for every event, so with the Clopper-Pearson
lower bound of P(E | x1) and upper bound of P(E | x2), each one-sided at (1 - confidence) / 2,

    eps_lower = log( CP_lower(P(E | x1)) / CP_upper(P(E | x2)) )

is below the client's true eps with probability at least ``confidence``. A bound above the claimed eps is evidence,
at that confidence, that the client does not give what it claims (a wrong flip probability, a leaking encoding).

The test design is the auditor's and uses the claimed mechanism only to choose (x1, x2, E); the bound uses the
reports alone:

- a matrix mechanism A: among the pairs (x1, x2) that attain A's LDP level in some column, and for each the
  Neyman-Pearson events (the columns of largest A[x1, z] / A[x2, z], more of them while that raises the bound
  expected at this many trials), the design with the largest expected bound;
- a protocol of ``privest.protocols``: x1 = 0, x2 = k - 1 (LDP-Auditor's pair) and the event "x1 is in the report's
  set and x2 is not" (``Protocol.membership``), whose likelihood ratio is high/low = e^eps for every protocol here
  (GRR: the report is x1; SUE, OUE: bit x1 set and bit x2 clear; BLH, OLH: x1 hashes to the report and x2 does not;
  SS: the subset holds x1 and not x2; HR: x1's Hadamard entry is +1 and x2's is -1). This is tighter than
  LDP-Auditor's attacks for the unary encodings (a uniform guess among the set bits), which reach e^eps only in
  the limit. THE is unary encoding (its ratio high/low is below e^eps: thresholding loses some of it); SHE, whose
  report is a real vector, is tested on "y_x1 >= 1 and y_x2 <= 0", where the likelihood ratio is e^eps at every point.
- a multidimensional solution of ``privest.protocols`` (SPL, SMP, RS+FD): two tuples, by default x1 = (0, ..., 0) and
  x2 = (k_1 - 1, ..., k_d - 1), which differ in every attribute, and each attribute's protocol event on its column:
  for SPL and RS+FD, the event of every column where the tuples differ (SPL: ratio e^eps, the composition of d
  reports at eps / d; RS+FD: up to e^eps', the amplified eps of its sampled attribute, since the fake columns have
  the same law under both tuples: RS+FD is eps-LDP between tuples that differ in one attribute, as its module says,
  and the default pair shows the gap); for SMP, the event of the attribute each user drew (ratio e^eps).

- a sketch oracle of ``privest.protocols`` (CMS, HCMS, FLH, HM): items x1 = 0 and x2 = 1 (any two below 2^63 by
  ``inputs``) and an event of likelihood ratio e^eps given the report's hash function (``Sketch._audit_event``: CMS,
  bit h_j(x1) set and bit h_j(x2) clear; HCMS, the sign agrees with x1's Hadamard entry where x2's differs; FLH,
  h_j(x1) reported and h_j(x2) not; HM, the t signs are x1's and not x2's), diluted alike under both inputs by the
  hash functions where x1 and x2 collide.

- a numeric mechanism of ``privest.numeric``: x1 = hi, x2 = lo and the event "the report is at or above a threshold"
  where every part of the density's ratio between hi and lo is e^eps (Square Wave: the part of hi's window outside
  lo's, above max(b, 1 - b) on [0, 1]; Piecewise: hi's window [1, C]; Duchi: the report +D; Hybrid: both).

``client`` replaces the sampler, to audit an implementation against the mechanism it claims to be.
"""

import math
from collections.abc import Callable
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np

from privest._checks import (
    check_between,
    check_int,
    check_non_negative,
    check_rng,
    check_row_stochastic,
)
from privest.numeric import NumericMechanism
from privest.protocols import Protocol
from privest.protocols.multidim import Multidimensional, MultiReports
from privest.protocols.sketches import Sketch
from privest.sampling import sample

__all__ = [
    "AuditResult",
    "audit",
]


@dataclass(frozen=True)
class AuditResult:
    """The outcome of ``audit``.

    Attributes
    ----------
    bound : float
        The lower bound on the client's eps (0 when the test shows nothing): below its true eps with probability at
        least ``confidence``.
    claimed_eps : float
        The eps the client claims.
    confidence : float
        The confidence of the bound.
    trials : int
        Reports drawn for each of the two inputs.
    inputs : tuple
        The two inputs (x1, x2): secrets, tuples of secrets for a multidimensional subject, or a numeric mechanism's
        values.
    hits : tuple of int
        How many of the trials' reports fell in the event, under x1 and under x2.
    event : str
        The event, in words.
    """

    bound: float
    claimed_eps: float
    confidence: float
    trials: int
    inputs: tuple[Any, Any]
    hits: tuple[int, int]
    event: str

    @property
    def exceeds(self) -> bool:
        """Whether the bound is above the claimed eps: the client gives less privacy than it claims (at the
        confidence)."""
        return self.bound > self.claimed_eps


def _clopper_pearson(hits: int, trials: int, tail: float) -> tuple[float, float]:
    """The one-sided Clopper-Pearson bounds (lower, upper) of a binomial proportion, each at error ``tail``."""
    from scipy.special import betaincinv  # here: scipy.special loads with the first audit, not with privest

    lower = 0.0 if hits == 0 else float(betaincinv(hits, trials - hits + 1, tail))
    upper = 1.0 if hits == trials else float(betaincinv(hits + 1, trials - hits, 1 - tail))
    return lower, upper


def _expected_bound(p1: np.ndarray, p2: np.ndarray, trials: int, z: float) -> np.ndarray:
    """The bound a design with event probabilities p1, p2 gives at this many trials, by the normal approximation."""
    p1, p2 = np.clip(p1, 0.0, 1.0), np.clip(p2, 0.0, 1.0)  # cumulative sums may pass 1 by a rounding
    low = p1 - z * np.sqrt(p1 * (1 - p1) / trials)
    high = p2 + z * np.sqrt(p2 * (1 - p2) / trials) + 3.0 / trials
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(low > 0, np.log(np.maximum(low, 1e-300) / high), -np.inf)


def _np_event(A: np.ndarray, x1: int, x2: int, trials: int, z: float) -> tuple[float, np.ndarray]:
    """The Neyman-Pearson event for (x1, x2) of the best expected bound: the columns of largest A[x1, z] / A[x2, z],
    as many as maximise it; with that expected bound."""
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(A[x2] > 0, A[x1] / A[x2], np.where(A[x1] > 0, np.inf, 0.0))
    order = np.argsort(-ratio, kind="stable")
    expected = _expected_bound(np.cumsum(A[x1, order]), np.cumsum(A[x2, order]), trials, z)
    j = int(np.argmax(expected))
    event = np.zeros(A.shape[1], dtype=bool)
    event[order[:j + 1]] = True
    return float(expected[j]), event


def _matrix_design(A: np.ndarray, trials: int, z: float) -> tuple[int, int, np.ndarray]:
    """(x1, x2, event mask over the columns) of the best expected bound among the pairs that attain A's LDP level in
    some column (module docstring)."""
    pairs = sorted({(int(hi), int(lo)) for hi, lo in zip(A.argmax(axis=0), A.argmin(axis=0), strict=True) if hi != lo})
    if not pairs:
        return 0, A.shape[0] - 1, np.ones(A.shape[1], dtype=bool)  # every row the same: nothing to distinguish
    designs = [(*_np_event(A, x1, x2, trials, z), x1, x2) for x1, x2 in pairs]
    _, event, x1, x2 = max(designs, key=lambda design: design[0])
    return x1, x2, event


def audit(subject: Any, eps: float, rng: np.random.Generator, trials: int = 100_000, confidence: float = 0.99,
          inputs: tuple[Any, Any] | None = None,
          event: np.ndarray | Callable[[Any], np.ndarray] | None = None,
          client: Callable[[np.ndarray, np.random.Generator], Any] | None = None) -> AuditResult:
    """A lower bound on the eps a client gives, from its reports alone (module docstring).

    Parameters
    ----------
    subject : array_like of shape (k, m), Protocol, Sketch, Multidimensional or NumericMechanism
        A matrix mechanism (rows secrets, columns reports), a protocol or sketch of ``privest.protocols``, a
        multidimensional solution (``privest.protocols.spl``, ``smp``, ``rsfd``) or a numeric mechanism of
        ``privest.numeric``.
    eps : float
        The eps the client claims.
    rng : numpy.random.Generator
        The source of the trials' draws.
    trials : int
        Reports drawn for each of the two inputs (at least 100).
    confidence : float
        The confidence of the bound, in (0, 1).
    inputs : (int, int), (tuple, tuple) or (float, float), optional
        The two inputs (default: as the module docstring says): secrets; for a multidimensional subject two tuples of
        d secrets that differ in at least one attribute; a numeric mechanism's values.
    event : optional
        For a matrix, a bool mask over its columns; for a protocol or a multidimensional solution, a function
        reports -> bool array, one entry a user (default: as the module docstring says).
    client : callable (secrets, rng) -> reports, optional
        The sampler audited (default: ``privest.sample`` on the matrix, ``subject.sample`` for a protocol or a numeric
        mechanism); its reports must be of the subject's kind (column indices, the protocol's reports, or numbers in
        the numeric mechanism's output range).

    Returns
    -------
    AuditResult
        The bound, the claimed eps, the confidence and the counts behind them.

    Examples
    --------
    >>> import privest
    >>> result = privest.audit(privest.protocols.grr(4, 1.0), 1.0, privest.rng_for(2026, "audit doctest"))
    >>> 0.8 < result.bound <= 1.0, result.exceeds
    (True, False)
    """
    eps = check_non_negative(eps, "eps")
    rng = check_rng(rng)
    trials = check_int(trials, "trials", minimum=100)
    confidence = check_between(confidence, "confidence", 1e-12, 1 - 1e-12, "(a confidence level)")
    tail = (1 - confidence) / 2
    if isinstance(subject, Multidimensional | NumericMechanism | Protocol | Sketch):
        if isinstance(subject, Multidimensional):
            x1, x2 = _tuple_pair(inputs, subject.ks)
            default, default_description = _tuple_event(subject, x1, x2)
        else:
            if isinstance(subject, NumericMechanism):
                x1, x2 = (subject.hi, subject.lo) if inputs is None else _values(inputs, subject)
            elif isinstance(subject, Sketch):
                x1, x2 = (0, 1) if inputs is None else _pair(inputs, min(subject.k, 2**63))
            else:
                x1, x2 = (0, subject.k - 1) if inputs is None else _pair(inputs, subject.k)

            def default(reports: Any) -> np.ndarray:
                return subject._audit_event(reports, x1, x2)
            default_description = subject._audit_description(x1, x2)
        counted, description = (default, default_description) if event is None else (event, "the caller's event")
        draw = subject.sample if client is None else client
    else:
        A = check_row_stochastic(subject, "subject", atol=1e-9)
        if inputs is None and event is None:
            x1, x2, mask = _matrix_design(A, trials, NormalDist().inv_cdf(1 - tail))
        else:
            x1, x2 = (0, A.shape[0] - 1) if inputs is None else _pair(inputs, A.shape[0])
            mask = _np_event(A, x1, x2, trials, NormalDist().inv_cdf(1 - tail))[1] if event is None else \
                np.asarray(event, dtype=bool)
            if mask.shape != (A.shape[1],):
                raise ValueError(f"event must be a bool mask of shape ({A.shape[1]},), got {mask.shape}")
        description = f"the report is one of the columns {np.flatnonzero(mask).tolist()[:8]}" + (
            " ..." if mask.sum() > 8 else "")

        def draw(secrets: np.ndarray, generator: np.random.Generator) -> np.ndarray:
            return sample(A, secrets, generator) if client is None else client(secrets, generator)

        def counted(reports: np.ndarray) -> np.ndarray:
            return mask[np.asarray(reports, dtype=np.int64)]
    hits = tuple(int(np.count_nonzero(counted(draw(np.full((trials, np.size(x)) if np.ndim(x) else trials, x), rng))))
                 for x in (x1, x2))
    p1_low, _ = _clopper_pearson(hits[0], trials, tail)
    _, p2_high = _clopper_pearson(hits[1], trials, tail)
    bound = max(0.0, math.log(p1_low / p2_high)) if p1_low > 0 else 0.0
    return AuditResult(bound, eps, float(confidence), trials, (x1, x2), (hits[0], hits[1]), description)


def _values(inputs: Any, mechanism: NumericMechanism) -> tuple[float, float]:
    """inputs as two different values in the numeric mechanism's [lo, hi]."""
    if not isinstance(inputs, tuple | list) or len(inputs) != 2:
        raise TypeError(f"inputs must be a pair of values (x1, x2), got {inputs!r}")
    x1, x2 = (check_between(x, "inputs", mechanism.lo, mechanism.hi, "(the mechanism's [lo, hi])") for x in inputs)
    if x1 == x2:
        raise ValueError(f"inputs must be two different values, got ({x1}, {x2})")
    return x1, x2


def _pair(inputs: Any, k: int) -> tuple[int, int]:
    """inputs as two different secrets in 0..k-1."""
    if not isinstance(inputs, tuple | list) or len(inputs) != 2:
        raise TypeError(f"inputs must be a pair of secrets (x1, x2), got {inputs!r}")
    x1, x2 = (check_int(x, "inputs", minimum=0, maximum=k - 1) for x in inputs)
    if x1 == x2:
        raise ValueError(f"inputs must be two different secrets, got ({x1}, {x2})")
    return x1, x2


def _tuple_pair(inputs: Any, ks: tuple) -> tuple[tuple, tuple]:
    """inputs as two tuples of secrets of the attributes of sizes ks that differ in at least one attribute (default:
    all first values against all last ones)."""
    if inputs is None:
        return (0,) * len(ks), tuple(k - 1 for k in ks)
    if not isinstance(inputs, tuple | list) or len(inputs) != 2 or not all(
            isinstance(x, tuple | list) and len(x) == len(ks) for x in inputs):
        raise TypeError(f"inputs must be a pair of tuples of {len(ks)} secrets (one an attribute), got {inputs!r}")
    x1, x2 = (tuple(check_int(v, f"inputs[{i}][{j}]", minimum=0, maximum=k - 1) for j, (v, k) in
                    enumerate(zip(x, ks, strict=True))) for i, x in enumerate(inputs))
    if x1 == x2:
        raise ValueError(f"inputs must be two tuples that differ in at least one attribute, got ({x1}, {x2})")
    return x1, x2


def _tuple_event(subject: Multidimensional, x1: tuple, x2: tuple) -> tuple[Callable[[MultiReports], np.ndarray], str]:
    """The default event of a multidimensional solution's reports for the tuples x1, x2 (module docstring), one
    entry a user, and its description."""
    marginals = [subject.marginal(j) for j in range(subject.d)]
    differ = [j for j in range(subject.d) if x1[j] != x2[j]]

    def event(reports: MultiReports) -> np.ndarray:
        columns = reports.columns
        if subject.solution == "smp":  # the drawn attribute's event; none where the tuples agree on it
            hit = np.zeros(reports.attribute.size, dtype=bool)
            for j in differ:
                hit[reports.attribute == j] = marginals[j]._audit_event(columns[j], x1[j], x2[j])
            return hit
        return np.logical_and.reduce([marginals[j]._audit_event(columns[j], x1[j], x2[j]) for j in differ])

    which = "the drawn attribute j's" if subject.solution == "smp" else "every column j's where they differ:"
    return event, f"{which} report holds x1[j] and not x2[j] (x1 = {x1}, x2 = {x2})"

