"""The estimator families: what each computes from the reports of one point in one pass, and why it cannot run where it
cannot (the papers' "NA").

Every family is one row of ``FAMILIES``: its methods (INV-N and INV-P from one factorisation, [INV]_M raw, normalised
and projected, ...), the name its NA notes give it, whether a point has one mechanism, which mechanisms it needs, and
how it runs: on a point of matrix mechanisms every run at once (``matrices``), on a point with RAPPOR or protocol
members run by run (``each_run``), on a point of a numeric mechanism run by run on its numbers (``numeric``), or on
an experiment of rounds every round of one run at once (``rounds``: round t from rounds 1..t). Each gives each run's
estimates in the order of the methods. A family that cannot
run on a point (INV on a singular matrix, RAP on matrix reports, ...) gives NaN estimates and the reason.
"""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from privest import consistency, estimators
from privest.estimators import gibu_matrix_runs
from privest.mechanisms import average
from privest.protocols import Protocol, joint_group
from privest.protocols.longitudinal import _Memoised
from privest.rappor import RapporReports
from privest.sampling import Mechanism, Rappor, Reports
from privest_studies.experiment.mechanisms import (
    LONGITUDINAL_KINDS,
    NUMERIC_KINDS,
    PROTOCOL_KINDS,
    NumericOnBins,
    is_numeric,
    is_protocol,
    mechanism_k,
)

__all__ = ["FAMILIES", "ITERATIVE", "RAW_SUFFIX", "RUN_BY_RUN_KINDS", "Estimate", "Family", "FamilyResult",
           "estimate_family", "refused"]

RAW_SUFFIX = "-raw"
POSTS = ("normalization", "projection")
"""The post-processings of the methods -N and -P, as ``privest.estimators`` names them (``post=``)."""


@dataclass(frozen=True)
class Estimate:
    """One method's estimate from one run, with how IBU stopped (iterations 0 and capped False for closed forms); for
    a numeric mechanism, ``mean``: its unbiased estimate of the users' mean value and its 95% interval (estimate,
    lower, upper; ``privest.numeric.NumericMechanism.mean_interval``)."""

    theta: np.ndarray
    iterations: int = 0
    capped: bool = False
    mean: tuple[float, float, float] | None = None


# --- pieces the families share ----------------------------------------------------------------------------------------


def _counts(reports: Sequence[Sequence[Reports]]) -> np.ndarray:
    """(runs, M, m) report counts of matrix mechanisms."""
    return np.array([[np.asarray(r) for r in by_mechanism] for by_mechanism in reports], dtype=np.float64)


def _users(mechanism: Any, reports: Any) -> float:
    """n^A, the users of one mechanism in one run: a protocol's reports, a RAPPOR group, or a matrix's counts."""
    if is_protocol(mechanism):
        return float(mechanism.count(reports))
    return float(reports.n) if isinstance(reports, RapporReports) else float(np.sum(reports))


def _group(mechanism: Any, reports: Any) -> Any:
    """One mechanism's reports as a GIBU group: a protocol's distinct sets, a RAPPOR group's distinct bit vectors, or
    a matrix's report counts."""
    if is_protocol(mechanism):
        return mechanism.group(reports)
    if isinstance(reports, RapporReports):
        return estimators.rappor_group(reports)
    return estimators.matrix_group(mechanism, reports)


def _own_estimates(mechanism: Any, reports: Any) -> list[np.ndarray]:
    """A mechanism's own unbiased estimate, normalised and projected (``POSTS``): a protocol's (Wang et al. 2017,
    ``Protocol.estimate``; its support counted once for both, the same values as one call per post-processing) or
    INV on a matrix."""
    if is_protocol(mechanism):
        raw, n = mechanism.estimate(reports), mechanism.count(reports)
        return [consistency.apply(raw, post, n=n) for post in POSTS]
    return [estimators.inv(np.asarray(mechanism), np.asarray(reports, dtype=np.float64), post=post) for post in POSTS]


def _post_processed(raw: np.ndarray, keep_raw: bool = False) -> tuple[Estimate, ...]:
    """-N and -P of a raw estimate (normalised, projected onto the simplex), then -raw itself if kept."""
    post = (Estimate(estimators.normalise(raw)), Estimate(estimators.project_simplex(raw)))
    return (*post, Estimate(raw)) if keep_raw else post


def _from_ibu(result: estimators.IbuResult) -> Estimate:
    return Estimate(result.theta, result.iterations, result.capped)


def _combined(results: Sequence[estimators.IbuResult], n: Sequence[float]) -> Estimate:
    """[IBU]_R: the mechanisms' own estimates weighted by n^A/n, with the most iterations any used and whether any
    hit the cap."""
    return Estimate(estimators.combine_results([r.theta for r in results], n),
                    max(r.iterations for r in results), any(r.capped for r in results))


# --- on a point of matrix mechanisms, every run at once: (matrices, counts (runs, M, m), stopping) --------------------


def _inv_matrices(matrices, counts, _stopping):
    """INV (IBU paper section 3) on the point's one matrix: one factorisation for every run, normalised or
    projected."""
    return [_post_processed(v) for v in estimators.inv_runs(matrices[0], counts[:, 0])]


def _ibu_matrices(matrices, counts, stopping):
    """IBU (free-will eq. 10) on the point's one matrix, batched over runs."""
    return [(_from_ibu(r),) for r in estimators.ibu_runs(matrices[0], counts[:, 0], **stopping)]


def _inv_r_matrices(matrices, counts, _stopping):
    """[INV]_R (eqs. 4-5 with e = INV): INV on each mechanism's own reports, post-processed, weighted by n^A/n."""
    out = []
    for run_counts in counts:
        raw = [estimators.inv(A, c) for A, c in zip(matrices, run_counts, strict=True)]
        n = run_counts.sum(axis=1)
        out.append((Estimate(estimators.combine_results([estimators.normalise(v) for v in raw], n)),
                    Estimate(estimators.combine_results([estimators.project_simplex(v) for v in raw], n))))
    return out


def _ibu_r_matrices(matrices, counts, stopping):
    """[IBU]_R (eqs. 4-5 with e = IBU): IBU on each mechanism's own reports (batched over runs), weighted by
    n^A/n."""
    per_mechanism = [estimators.ibu_runs(A, counts[:, j], **stopping) for j, A in enumerate(matrices)]
    return [(_combined([by_run[run] for by_run in per_mechanism], run_counts.sum(axis=1)),)
            for run, run_counts in enumerate(counts)]


def _inv_m_matrices(matrices, counts, _stopping):
    """[INV]_M (eq. 7): INV on the average mechanism A[n] and the pooled reports; normalised, projected and raw."""
    return [_post_processed(estimators.inv_m(matrices, list(c)), keep_raw=True) for c in counts]


def _ibu_m_matrices(matrices, counts, stopping):
    """[IBU]_M (section 5.3): IBU on the average mechanism A[n] and the pooled reports (batched over runs when every
    run has the same n^A, as with the equal split)."""
    users = counts.sum(axis=2)
    if np.all(users == users[0]):
        results = estimators.ibu_runs(average(matrices, users[0]), counts.sum(axis=1), **stopping)
    else:
        results = [estimators.ibu_m(matrices, list(c), **{**estimators.PLAIN_IBU, **stopping}) for c in counts]
    return [(_from_ibu(r),) for r in results]


def _gibu_matrices(matrices, counts, stopping):
    """GIBU (Algorithm 1) on all reports, each mechanism with its own marginal, batched over runs."""
    return [(_from_ibu(r),) for r in gibu_matrix_runs(matrices, counts, **stopping)]


# --- on a point with RAPPOR or protocol members, one run: (mechanisms, reports [mechanism], stopping) -----------------


def _inv_each_run(mechanisms, reports, _stopping):
    """INV on a protocol: its unbiased estimator (which is INV for GRR), normalised or projected."""
    return tuple(Estimate(v) for v in _own_estimates(mechanisms[0], reports[0]))


def _rap_each_run(_mechanisms, reports, _stopping):
    """RAPPOR's own estimator RAP (free-will eqs. 13-14, one eps) from the bit sums, normalised or projected: the
    names INV-N and INV-P the IBU paper's Figure 12 gives them."""
    return tuple(Estimate(estimators.rap_grouped(list(reports), post)) for post in POSTS)


def _gibu_each_run(mechanisms, reports, stopping):
    """GIBU (Algorithm 1) on every group of the run: RAPPOR's distinct bit vectors, protocols' distinct sets, matrices'
    counts (one call over the whole mixture); IBU when the point has one mechanism."""
    groups = [_group(m, r) for m, r in zip(mechanisms, reports, strict=True)]
    return (_from_ibu(estimators.gibu(groups, **{**estimators.PLAIN_IBU, **stopping})),)


def _inv_r_each_run(mechanisms, reports, _stopping):
    """[INV]_R with protocols: each protocol's own unbiased estimator (``Protocol.estimate``) in place of INV."""
    n = [_users(m, r) for m, r in zip(mechanisms, reports, strict=True)]
    own = [_own_estimates(m, r) for m, r in zip(mechanisms, reports, strict=True)]
    return tuple(Estimate(estimators.combine_results([by_post[i] for by_post in own], n)) for i in range(len(POSTS)))


def _ibu_r_each_run(mechanisms, reports, stopping):
    """[IBU]_R with protocols: GIBU on each mechanism's own group (the stopping rule's accelerate applies)."""
    rule = {**estimators.PLAIN_IBU, **stopping}
    results = [estimators.gibu([_group(m, r)], **rule) for m, r in zip(mechanisms, reports, strict=True)]
    return (_combined(results, [_users(m, r) for m, r in zip(mechanisms, reports, strict=True)]),)


def _rap_r_each_run(mechanisms, reports, _stopping):
    """[RAP]_R (eqs. 4-5 with e = RAP): RAPPOR's estimator on each mechanism's own reports, weighted by n^A/n."""
    n = [_users(m, r) for m, r in zip(mechanisms, reports, strict=True)]
    return tuple(Estimate(estimators.combine_results([estimators.rap_grouped([g], post=post) for g in reports], n))
                 for post in POSTS)


def _rap_m_each_run(_mechanisms, reports, _stopping):
    """[RAP]_M (eqs. 13-14): one estimate from the pooled bit sums with eps[n] of eq. (13); normalised, projected
    and raw."""
    return _post_processed(estimators.rap_grouped(list(reports)), keep_raw=True)


# --- on an experiment of rounds, one run's rounds: (mechanisms, reports [round][mechanism], stopping) ---------------


def _gibu_joint_rounds(mechanisms, rounds, stopping):
    """For each round t of one run, GIBU (Algorithm 1) on the reports of rounds 1..t together: each mechanism's users
    as one ``privest.protocols.joint_group`` (the exact likelihood of a user's t reports, summed over the memo they
    share: users whose value did not change), every mechanism's group in one call. Round 1 is the per-round GIBU's
    estimate; a later round's adds what the later reports reveal of each memo (at most the memo: eps)."""
    rule = {**estimators.PLAIN_IBU, **stopping}
    return [(_from_ibu(estimators.gibu([joint_group(m, [by_mechanism[j] for by_mechanism in rounds[:t]])
                                        for j, m in enumerate(mechanisms) if _users(m, rounds[0][j])], **rule)),)
            for t in range(1, len(rounds) + 1)]


# --- on a point of one numeric mechanism, one run: (NumericOnBins, its reports (n,), stopping) ------------------------

MEAN_LEVEL = 0.95
"""The level of a numeric mechanism's interval for the mean in the scores."""


def _with_mean(numeric: NumericOnBins, reports: np.ndarray, histogram) -> tuple[Estimate]:
    interval = numeric.mechanism.mean_interval(reports, MEAN_LEVEL)
    return (Estimate(histogram.theta, histogram.iterations, histogram.capped,
                     (interval.estimate, interval.lower, interval.upper)),)


def _ibu_numeric(numeric: NumericOnBins, reports: np.ndarray, stopping):
    """IBU on a numeric mechanism: EM on its discretised channel over the alphabet's k bins and k report bins, to the
    MLE (``privest.ibu``'s rule at the study's delta and max_iter; Li et al. 2020's EM without smoothing)."""
    rule = {"delta": stopping["delta"], "max_iter": int(stopping["max_iter"])}
    return _with_mean(numeric, reports, numeric.mechanism.distribution(reports, numeric.k, smoothing=None,
                                                                       stop="converged", **rule))


def _ems_numeric(numeric: NumericOnBins, reports: np.ndarray, stopping):
    """EMS (Li et al., SIGMOD 2020, section 5): EM with the binomial smoothing step on the discretised channel, under
    the paper's stopping rule (at most the study's max_iter iterations)."""
    return _with_mean(numeric, reports, numeric.mechanism.distribution(reports, numeric.k, smoothing="ems",
                                                                       stop="paper",
                                                                       max_iter=int(stopping["max_iter"])))


# --- the families -----------------------------------------------------------------------------------------------------

NEEDS = ("any", "matrices", "matrices or protocols", "RAPPOR", "numeric", "longitudinal")
"""What a family needs of a point's mechanisms: anything; matrices with one common set of observables; matrices or
protocols, not RAPPOR (2^k observables); RAPPOR only (its estimator works on bit sums); a numeric mechanism (EMS);
longitudinal protocols, each user's memo kept over the rounds (``privest.protocols.joint_group``).
A family without a ``numeric`` way to run cannot run on a numeric mechanism's numbers."""


@dataclass(frozen=True)
class Family:
    """An estimator family: the methods it computes in one pass, the name its NA notes give it, what it needs of the
    point's mechanisms (``NEEDS``), whether a point has one mechanism, and how it runs: ``matrices`` on matrix
    mechanisms, all runs at once (matrices, counts (runs, M, m), stopping) -> per run a tuple of estimates, one per
    method; ``each_run`` on any other point, one run at a time (mechanisms, reports [mechanism], stopping) -> a tuple
    of estimates; ``rounds`` on an experiment of rounds, one run at a time (mechanisms, reports [round][mechanism],
    stopping) -> a tuple of estimates per round. The stopping rule is {'delta', 'max_iter'} (and 'accelerate' for
    GIBU on protocols)."""

    methods: tuple[str, ...]
    name: str
    needs: str
    one: bool = False
    matrices: Callable[[list[np.ndarray], np.ndarray, dict], list[tuple[Estimate, ...]]] | None = None
    each_run: Callable[[Sequence[Mechanism], Sequence[Reports], dict], tuple[Estimate, ...]] | None = None
    numeric: Callable[[NumericOnBins, np.ndarray, dict], tuple[Estimate, ...]] | None = None
    rounds: Callable[[Sequence[Mechanism], Sequence[Sequence[Reports]], dict], list[tuple[Estimate, ...]]] | None = None


FAMILIES: dict[str, Family] = {
    "inv": Family(("INV-N", "INV-P"), "INV", "matrices or protocols", one=True,
                  matrices=_inv_matrices, each_run=_inv_each_run),
    "rap": Family(("INV-N", "INV-P"), "RAP", "RAPPOR", one=True, each_run=_rap_each_run),
    "ibu": Family(("IBU",), "IBU", "any", one=True, matrices=_ibu_matrices, each_run=_gibu_each_run,
                  numeric=_ibu_numeric),
    "ems": Family(("EMS",), "EMS", "numeric", one=True, numeric=_ems_numeric),
    "inv_r": Family(("[INV]_R-N", "[INV]_R-P"), "[INV]_R", "matrices or protocols",
                    matrices=_inv_r_matrices, each_run=_inv_r_each_run),
    "ibu_r": Family(("[IBU]_R",), "[IBU]_R", "matrices or protocols",
                    matrices=_ibu_r_matrices, each_run=_ibu_r_each_run),
    "rap_r": Family(("[RAP]_R-N", "[RAP]_R-P"), "[RAP]_R", "RAPPOR", each_run=_rap_r_each_run),
    "inv_m": Family(("[INV]_M-N", "[INV]_M-P", "[INV]_M-raw"), "[INV]_M", "matrices", matrices=_inv_m_matrices),
    "ibu_m": Family(("[IBU]_M",), "[IBU]_M", "matrices", matrices=_ibu_m_matrices),
    "rap_m": Family(("[RAP]_M-N", "[RAP]_M-P", "[RAP]_M-raw"), "[RAP]_M", "RAPPOR", each_run=_rap_m_each_run),
    "gibu": Family(("GIBU",), "GIBU", "any", matrices=_gibu_matrices, each_run=_gibu_each_run),
    "gibu_joint": Family(("GIBU (rounds 1..t)",), "GIBU (rounds 1..t)", "longitudinal", rounds=_gibu_joint_rounds),
}
"""Every estimator family. inv, rap, ibu: one mechanism per point (the IBU paper's INV-N, INV-P and IBU; rap is
RAPPOR's estimator, which the IBU paper names INV-N and INV-P); [e]_R (inv_r, ibu_r, rap_r) and [e]_M (inv_m, ibu_m,
rap_m) and GIBU: any mixture (free-will sections 4-6). -N: normalisation, -P: projection, -raw: before
post-processing (not a distribution: scored by l2^2 only, for Propositions 2 and 3). On the standard protocols
(``privest.protocols``) inv and inv_r take each protocol's unbiased estimator, ibu and ibu_r GIBU on one protocol's
reports, gibu the whole mixture; the [e]_M families need a common matrix and say NA. On a numeric mechanism
(``NumericOnBins``, alone at its points) ibu is EM on its discretised channel and ems is EMS (Li et al. 2020), each
with the mechanism's unbiased mean and its interval; the others say NA (its reports are numbers). On an experiment
of rounds whose users keep their values (redraw 0), gibu_joint estimates round t of a run from its rounds 1..t
together (``privest.protocols.joint_group``); every other family estimates each round alone."""


ITERATIVE = ("ibu", "ibu_r", "ibu_m", "gibu", "gibu_joint")
"""The families that iterate (IBU, GIBU); the others are closed forms (one pass over the reports)."""
RUN_BY_RUN_KINDS = ("rappor", *PROTOCOL_KINDS)
"""The member kinds whose points every family estimates run by run (``Family.each_run``)."""


def refused(family: str, kinds: Sequence[str]) -> bool:
    """Whether ``family`` is NA on a point whose members have these kinds, by what it needs (``_refuse``'s rule, on
    the kinds of the config before any mechanism is built; a singular matrix still makes INV NA when it runs)."""
    row = FAMILIES[family]
    rappor, protocols = "rappor" in kinds, any(kind in PROTOCOL_KINDS for kind in kinds)
    numbers = any(kind in NUMERIC_KINDS for kind in kinds)
    return ((row.one and len(kinds) != 1)
            or (numbers and row.numeric is None)
            or (row.needs == "numeric" and not numbers)
            or (row.needs == "RAPPOR" and not all(kind == "rappor" for kind in kinds))
            or (row.needs in ("matrices", "matrices or protocols") and rappor)
            or (row.needs == "matrices" and protocols)
            or (row.needs == "longitudinal" and not all(kind in LONGITUDINAL_KINDS for kind in kinds)))


def rounds_refusal(families: Sequence[str], rounds: int, redraw: float) -> str | None:
    """Why a family of rounds (``Family.rounds``: gibu_joint) among ``families`` cannot run on an experiment of
    ``rounds`` rounds whose values are redrawn with probability ``redraw`` (None where it can): it needs rounds 2 or
    more of users whose value did not change. The config check and ``Experiment`` both say it."""
    if (joint := [f for f in families if FAMILIES[f].rounds]) and (rounds < 2 or redraw):
        return (f"{joint[0]} estimates round t from rounds 1..t of users whose value did not change (a changed value "
                f"draws a new memo): it needs rounds 2 or more and redraw 0, got rounds {rounds}, redraw {redraw:g}")
    return None


def _refuse(family: Family, mechanisms: Sequence[Mechanism]) -> None:
    """A ValueError (the NA note) when the family needs other mechanisms than the point's."""
    if family.needs == "numeric" and not all(is_numeric(m) for m in mechanisms):
        raise ValueError(f"{family.name} (Li et al. 2020) estimates a numeric mechanism's histogram from its numbers; "
                         "use it with square_wave, piecewise, hybrid or duchi")
    if family.numeric is None and (numbers := [m for m in mechanisms if is_numeric(m)]):
        raise ValueError(f"{family.name} needs reports of the bins; {numbers[0].name}'s are numbers (use ibu, EM on "
                         "its discretised channel, or ems)")
    if family.needs == "longitudinal" and (one := [m for m in mechanisms if not isinstance(m, _Memoised)]):
        name = "RAPPOR" if isinstance(one[0], Rappor) else getattr(one[0], "name", "a matrix")
        raise ValueError(f"{family.name} needs longitudinal protocols, each user's memo kept over the rounds "
                         f"({', '.join(LONGITUDINAL_KINDS)}); {name} keeps none")
    rappor = any(isinstance(m, Rappor) for m in mechanisms)
    protocols = any(is_protocol(m) for m in mechanisms)
    if family.needs == "RAPPOR" and not all(isinstance(m, Rappor) for m in mechanisms):
        raise ValueError(f"{family.name} needs RAPPOR mechanisms (its estimator works on bit sums)")
    if family.needs in ("matrices", "matrices or protocols") and rappor:
        wanted = "matrix mechanisms or protocols" if family.needs != "matrices" and protocols else "matrix mechanisms"
        raise ValueError(f"{family.name} needs {wanted}; RAPPOR has 2^k observables")
    if family.needs == "matrices" and protocols:
        names = ", ".join(dict.fromkeys(m.name for m in mechanisms if is_protocol(m)))
        raise ValueError(f"{family.name} needs matrix mechanisms with one common set of observables; {names} report "
                         "sets")


def _compute(family: str, mechanisms: Sequence[Mechanism], reports: Sequence[Sequence[Reports]], stopping: dict,
             rounds: int | None = None) -> dict[str, list[Estimate]]:
    """Method -> one estimate per run, by the family's row of ``FAMILIES``."""
    row = FAMILIES[family]
    if row.one and len(mechanisms) != 1:
        raise ValueError(f"family {family} needs one mechanism per point, got {len(mechanisms)}")
    _refuse(row, mechanisms)
    if row.rounds is not None:
        if (rounds or 1) < 2 or len(reports) % rounds:
            raise ValueError(f"{row.name} estimates round t of a run from its rounds 1..t: it needs every round of "
                             f"each run (rounds 2 or more), got {len(reports)} runs of rounds {rounds}")
        by_run = [e for start in range(0, len(reports), rounds)
                  for e in row.rounds(mechanisms, reports[start:start + rounds], stopping)]
    elif is_numeric(mechanisms[0]):
        by_run = [row.numeric(mechanisms[0], np.asarray(by_mechanism[0], dtype=np.float64), stopping)
                  for by_mechanism in reports]
    elif not any(isinstance(m, Rappor | Protocol) for m in mechanisms):
        by_run = row.matrices([np.asarray(m) for m in mechanisms], _counts(reports), stopping)
    else:
        by_run = [row.each_run(mechanisms, by_mechanism, stopping) for by_mechanism in reports]
    return {method: [estimates[i] for estimates in by_run] for i, method in enumerate(row.methods)}


@dataclass(frozen=True)
class FamilyResult:
    """One family's estimates of one point for every run: method -> estimates (one per run), and the reason the
    family cannot run on this point ('' when it ran; the estimates are then NaN, the paper's "NA")."""

    estimates: dict[str, list[Estimate]]
    note: str = ""


def estimate_family(family: str, point_mechanisms: Sequence[Mechanism], reports: Sequence[Sequence[Reports]],
                    stopping: Mapping, rounds: int | None = None) -> FamilyResult:
    """Every method of an estimator family on the reports [run][mechanism] of one point (with ``rounds``, the
    experiment's rounds: runs as stored, every round of a run, run after run). A method that cannot run (INV on a
    singular matrix, RAP on matrix reports, ...) gives NaN estimates and the error as the note."""
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {', '.join(FAMILIES)}, got {family!r}")
    try:
        estimates = _compute(family, point_mechanisms, reports, dict(stopping), rounds)
    except ValueError as error:
        nan = Estimate(np.full(mechanism_k(point_mechanisms[0]), np.nan))
        return FamilyResult({m: [nan] * len(reports) for m in FAMILIES[family].methods}, " ".join(str(error).split()))
    for method, by_run in estimates.items():
        if not all(np.all(np.isfinite(e.theta)) for e in by_run):
            raise RuntimeError(f"{method}: a run gave a non-finite estimate (a numerical failure, not an NA)")
    return FamilyResult(estimates)
