"""privest's multidimensional solutions against multi-freq-ldpy's (mdim_freq_est: SPL, SMP, RS+FD).

(a) The peer's clients' reports, per attribute, have privest's marginal channel: each column's report histogram (GRR)
or bit frequencies (unary) against ``marginal(j)``'s p* and q* (chi-square, with its power against a 20% error in
p* asserted: SPL's eps / d leaves little signal at k = 12), and SMP's attribute index uniform. (b) On the peer's own
reports, privest's ``estimate`` with ``post="normalization"`` equals the peer's aggregator to 1e-12, attribute by
attribute (RS+FD's formulas are Wang et al.'s estimator on the mixture channel). (c) RS+FD's ADP picks the peer's
protocol for every attribute.
"""

from functools import cache

import numpy as np
import pytest
from conformance import SEED, coordinate_power, coordinates, homogeneity_power, peer_seed
from multi_freq_ldpy.mdim_freq_est import RSpFD_solution, SMP_solution, SPL_solution
from scipy.stats import chisquare

from privest.protocols import multidim

KS = (3, 8, 12)
D = len(KS)
EPS = 2.0
N = 60_000  # users a side (the peers' clients are per-user Python)
TUPLE = (1, 5, 7)  # every user's tuple in the distribution tests
VALUE_REPORTS = ("GRR", "L-GRR")
CASES = [("spl", "grr"), ("spl", "oue"), ("smp", "grr"), ("smp", "oue"), ("rsfd", "grr"), ("rsfd", "oue_zero"),
         ("rsfd", "sue_zero"), ("rsfd", "oue_rnd"), ("rsfd", "sue_rnd"), ("rsfd", "adp")]


def peer_functions(solution: str, protocol: str):
    """The peer's client and MI aggregator of (solution, protocol), as functions of a tuple and of the reports."""
    if solution == "rsfd":
        name = {"grr": "GRR", "oue_zero": "UE_zero", "sue_zero": "UE_zero", "oue_rnd": "UE_rnd", "sue_rnd": "UE_rnd",
                "adp": "ADP"}[protocol]
        extra = () if protocol == "grr" else (not protocol.startswith("sue"),)
        return (lambda x: getattr(RSpFD_solution, f"RSpFD_{name}_Client")(x, list(KS), D, EPS, *extra),
                lambda reports: getattr(RSpFD_solution, f"RSpFD_{name}_Aggregator_MI")(reports, list(KS), D, EPS,
                                                                                       *extra))
    module = SPL_solution if solution == "spl" else SMP_solution
    prefix = solution.upper()
    if protocol == "grr":
        return (lambda x: getattr(module, f"{prefix}_GRR_Client")(x, list(KS), D, EPS),
                lambda reports: getattr(module, f"{prefix}_GRR_Aggregator_MI")(reports, list(KS), D, EPS))
    return (lambda x: getattr(module, f"{prefix}_UE_Client")(x, list(KS), D, EPS, True),
            lambda reports: getattr(module, f"{prefix}_UE_Aggregator_MI")(reports, D, EPS, True))


@cache
def peer_reports(solution: str, protocol: str, secrets_key: str):
    """N reports from the peer's client: every user holding TUPLE ("one"), or random tuples ("mixed")."""
    client = peer_functions(solution, protocol)[0]
    rng = np.random.default_rng(SEED)
    tuples = np.tile(TUPLE, (N, 1)) if secrets_key == "one" else np.stack([rng.integers(0, k, N) for k in KS], 1)
    with peer_seed(SEED + CASES.index((solution, protocol))):
        return [client(list(x)) for x in tuples.tolist()]


def as_privest(m: multidim.Multidimensional, raw) -> multidim.MultiReports:
    """The peer's reports as privest's MultiReports (a value a report for GRR and L-GRR, else bits)."""
    if m.solution == "smp":
        attribute = np.array([a for a, _ in raw], dtype=np.int64)
        columns = []
        for j, marginal in enumerate(m._marginals):
            values = [report for a, report in raw if a == j]
            columns.append(np.array(values, dtype=np.int64) if marginal.name in VALUE_REPORTS
                           else np.array(values, dtype=float).astype(bool).reshape(-1, KS[j]))
        return multidim.MultiReports(tuple(columns), attribute)
    columns = []
    for j, marginal in enumerate(m._marginals):
        column = [r[j] for r in raw]
        columns.append(np.array(column, dtype=np.int64) if marginal.name in VALUE_REPORTS
                       else np.array(column, dtype=float).astype(bool))
    return multidim.MultiReports(tuple(columns))


@pytest.mark.parametrize(("solution", "protocol"), CASES)
def test_each_attribute_of_the_peers_reports_has_privests_marginal_channel(solution, protocol):
    m = multidim.Multidimensional(solution, KS, EPS, protocol)
    reports = as_privest(m, peer_reports(solution, protocol, "one"))
    if solution == "smp":  # the attribute index, uniform
        assert chisquare(np.bincount(reports.attribute, minlength=D)).pvalue > 1e-4
    for j, (marginal, column) in enumerate(zip(m._marginals, reports.columns, strict=True)):
        n = marginal.count(column)
        if marginal.name == "GRR":
            expected = np.full(KS[j], marginal.q_star)
            expected[TUPLE[j]] = marginal.p_star
            alternative = expected.copy()
            alternative[TUPLE[j]] *= 1.2
            alternative /= alternative.sum()
            assert homogeneity_power(expected, alternative, n) >= 0.97
            assert chisquare(np.bincount(column, minlength=KS[j]), expected * n).pvalue > 1e-4
        else:
            expected = np.full(KS[j], marginal.q_star)
            expected[TUPLE[j]] = marginal.p_star
            assert coordinate_power(expected, expected * np.where(np.arange(KS[j]) == TUPLE[j], 1.2, 1.0), n) >= 0.97
            ours = marginal.sample(np.full(n, TUPLE[j]), np.random.default_rng(SEED + j))
            assert coordinates(ours.sum(axis=0), column.sum(axis=0), n) > 1e-4


@pytest.mark.parametrize(("solution", "protocol"), CASES)
def test_estimate_equals_the_peers_aggregator_on_its_reports(solution, protocol):
    m = multidim.Multidimensional(solution, KS, EPS, protocol)
    raw = peer_reports(solution, protocol, "mixed")
    theirs = peer_functions(solution, protocol)[1](raw)
    ours = m.estimate(as_privest(m, raw), post="normalization")
    for j in range(D):
        assert np.abs(ours[j] - np.asarray(theirs[j], dtype=float)).max() < 1e-12, j


@pytest.mark.parametrize("ks", [(2, 3, 30), (5, 5), (2, 100, 7, 3)])
@pytest.mark.parametrize("eps", [0.5, 1.0, 3.0])
def test_rsfd_adp_picks_the_peers_protocol_for_every_attribute(ks, eps):
    m = multidim.rsfd(ks, eps, "adp")
    with peer_seed(SEED):
        report = RSpFD_solution.RSpFD_ADP_Client([0] * len(ks), list(ks), len(ks), eps, True)
    for j, marginal in enumerate(m._marginals):  # a GRR report is one value, a UE report a bit vector
        assert (marginal.name == "GRR") == (np.ndim(report[j]) == 0), (ks, eps, j)



LONGITUDINAL = [("spl", "l_grr"), ("spl", "l_oue"), ("spl", "l_osue"), ("smp", "l_sue"), ("smp", "l_soue"),
                ("smp", "l_grr")]


@pytest.mark.parametrize(("solution", "protocol"), LONGITUDINAL)
def test_longitudinal_spl_and_smp_estimates_equal_the_peers(solution, protocol):
    """multi-freq-ldpy's L-SPL (eps and eps1 split by d) and L-SMP (one attribute at eps and eps1), its L-GRR at its
    own calibration: on its reports, privest's ``spl``/``smp`` of the longitudinal protocol give its estimates."""
    from multi_freq_ldpy.long_mdim_freq_est import L_SMP_Solution, L_SPL_Solution

    module, prefix = (L_SPL_Solution, "SPL") if solution == "spl" else (L_SMP_Solution, "SMP")
    name = protocol[2:].upper()
    eps1 = EPS / 2
    options = {"calibration": "peer"} if protocol == "l_grr" else {}
    m = multidim.Multidimensional(solution, KS, EPS, protocol, tuple({"eps1": eps1, **options}.items()))
    rng = np.random.default_rng(SEED)
    tuples = np.stack([rng.integers(0, k, 20_000) for k in KS], 1)
    client = getattr(module, f"{prefix}_L_{name}_Client")
    with peer_seed(SEED + LONGITUDINAL.index((solution, protocol))):
        raw = [client(list(x), list(KS), D, EPS, eps1) for x in tuples.tolist()]
    aggregate = getattr(module, f"{prefix}_L_{name}_Aggregator_MI")
    theirs = aggregate(raw, list(KS), D, EPS, eps1) if name == "GRR" else aggregate(raw, D, EPS, eps1)
    ours = m.estimate(as_privest(m, raw), post="normalization")
    for j in range(D):
        assert np.abs(ours[j] - np.asarray(theirs[j], dtype=float)).max() < 1e-12, j
