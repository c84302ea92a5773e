"""privest's longitudinal protocols against multi-freq-ldpy's (long_freq_est: L-GRR, L-SUE, L-OUE, L-OSUE, L-SOUE,
L-BLH, L-OLH, L-ADP), at the peer's calibration (``calibration="peer"``; the unary protocols have one).

(a) 10^5 reports of one secret from each side's client have the same distribution (conformance.py's tests and
power); (b) on the peer's own reports, the peer's MI aggregator gets privest's support and privest's two steps
(p1, q1, p2, q2; for local hashing q1 = 1/g, as the peer sets it on the server), and returns privest's INV-N; L-ADP
picks the same protocol; (c) the peer's variance formula ``VAR_Long_Pure`` equals privest's Var* at f = 0, the only
f its L-ADP uses; at f > 0 it is right only for L-SUE (its term f (2 p1 p2 - 2 p1 q2 + 2 q2 - 1) is f (p* - q*) only
when p* + q* = 1), where it equals the variance of users drawn i.i.d. (``estimate_variance``'s form).
"""

from functools import cache

import numpy as np
import pytest
from conformance import (
    EPS,
    MIN_POWER,
    SECRET,
    SEED,
    K,
    N,
    check_hashed_set_membership,
    coordinate_power,
    coordinates,
    hash_reports,
    homogeneity,
    homogeneity_power,
    peer_seed,
    scaled,
)
from multi_freq_ldpy.long_freq_est import L_ADP, L_GRR, L_LH, L_OSUE, L_OUE, L_SOUE, L_SUE
from multi_freq_ldpy.long_freq_est import dBitFlipPM as bitflip  # noqa: N813 (the peer's module name)
from multi_freq_ldpy.long_freq_est.Variance_LONG_PURE import VAR_Long_Pure

from privest import protocols, rng_for

EPS1 = EPS / 2  # the peer's tutorials: eps_1 = eps_perm / 2
NAMES = ("l_grr", "l_sue", "l_oue", "l_osue", "l_soue", "l_blh", "l_olh")
MODULES = {"l_grr": L_GRR, "l_sue": L_SUE, "l_oue": L_OUE, "l_osue": L_OSUE, "l_soue": L_SOUE, "l_blh": L_LH,
           "l_olh": L_LH}
UNARY = ("l_sue", "l_oue", "l_osue", "l_soue")


def protocol(name: str):
    """privest's protocol ``name`` at (K, EPS, EPS1), the peer's calibration where there is a choice."""
    options = {"calibration": "peer"} if name in ("l_grr", "l_blh", "l_olh", "l_adp") else {}
    return protocols.by_name(name, K, EPS, eps1=EPS1, **options)


@cache
def peer_sample(name: str):
    """N reports of SECRET from the peer's client: as it returns them, and as privest's report type."""
    with peer_seed(SEED + NAMES.index(name) + 100):
        if name == "l_grr":
            raw = [L_GRR.L_GRR_Client(SECRET, K, EPS, EPS1) for _ in range(N)]
            return raw, np.asarray(raw, dtype=np.int64)
        if name in UNARY:
            draw = getattr(MODULES[name], f"L_{name[2:].upper()}_Client")
            raw = np.array([draw(SECRET, K, EPS, EPS1) for _ in range(N)])
            return raw, raw.astype(bool)
        raw = [L_LH.L_LH_Client(SECRET, K, EPS, EPS1, name == "l_olh") for _ in range(N)]
        return raw, hash_reports([seed for _, seed in raw], [value for value, _ in raw])


@cache
def privest_sample(name: str):
    return protocol(name).sample(np.full(N, SECRET, dtype=np.int64), rng_for(SEED, "peers", "longitudinal", name))


def peer_mi(name: str, raw):
    """The peer's MI aggregator of ``name`` on its raw reports."""
    if name in UNARY:
        return getattr(MODULES[name], f"L_{name[2:].upper()}_Aggregator_MI")(raw, EPS, EPS1)
    if name == "l_grr":
        return L_GRR.L_GRR_Aggregator_MI(raw, K, EPS, EPS1)
    return L_LH.L_LH_Aggregator_MI(raw, K, EPS, EPS1, name == "l_olh")


def recorded(monkeypatch, module) -> list[tuple]:
    """Wrap ``MI_long`` as ``module`` calls it; returns the list each call's arguments are appended to."""
    real, calls = module.MI_long, []

    def wrapper(*args):
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(module, "MI_long", wrapper)
    return calls


# --- (a) the report distributions --------------------------------------------------------------------------------


def test_l_grr_report_histogram_matches_peer():
    m = protocol("l_grr")
    expected = np.full(K, m.q_star)
    expected[SECRET] = m.p_star
    # power 0.977 against P(report = secret) 10% off (at eps = 1, eps1 = 0.5, p* = 0.153), 1.000 against the exact
    # calibration's p* (0.229) in place of the peer's
    exact = protocols.l_grr(K, EPS, EPS1)
    other = np.full(K, exact.q_star)
    other[SECRET] = exact.p_star
    assert min(homogeneity_power(expected, scaled(expected, SECRET, 1.1)), homogeneity_power(expected, other)) \
        >= MIN_POWER
    ours = np.bincount(privest_sample("l_grr"), minlength=K)
    assert homogeneity(ours, np.bincount(peer_sample("l_grr")[1], minlength=K)) > 1e-4


@pytest.mark.parametrize("name", UNARY)
def test_longitudinal_unary_bit_frequencies_match_peer(name):
    m = protocol(name)
    expected = np.full(K, m.q_star)
    expected[SECRET] = m.p_star
    # power at least 0.9999 against p* or q* 10% off (at 5% off, 0.88 for L-OUE's q*)
    alternatives = [expected * np.where(np.arange(K) == SECRET, 1.1, 1.0),
                    expected * np.where(np.arange(K) == SECRET, 1.0, 1.1)]
    assert min(coordinate_power(expected, alt) for alt in alternatives) >= MIN_POWER
    assert coordinates(privest_sample(name).sum(axis=0), peer_sample(name)[1].sum(axis=0)) > 1e-4


@pytest.mark.parametrize("name", ["l_blh", "l_olh"])
def test_longitudinal_local_hashing_set_membership_matches_peer(name):
    check_hashed_set_membership(protocol(name), privest_sample(name), peer_sample(name)[1])


# --- (b) the unbiased estimates on the peer's reports ------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_estimate_equals_peer_mi_long(monkeypatch, name):
    """MI_long(count, n, p1, q1, p2, q2) is Wang et al.'s estimator with p* = p1 p2 + (1 - p1) q2 and q* = q1 p2 +
    (1 - q1) q2, clipped and normalised: its counts are privest's support, its steps privest's (local hashing's q1 =
    1/g, set by the peer's server), its result privest's INV-N."""
    m = protocol(name)
    raw, reports = peer_sample(name)
    calls = recorded(monkeypatch, MODULES[name])
    normalised = peer_mi(name, raw)
    [(count, n, p1, q1, p2, q2)] = calls
    assert n == N
    ours = (m.p1, 1 / m.g if name in ("l_blh", "l_olh") else m.q1, m.p2, m.q2)
    assert (p1, q1, p2, q2) == pytest.approx(ours, rel=1e-12, abs=0)
    assert np.array_equal(np.asarray(count), m.support(reports))
    assert np.abs(m.estimate(reports, post="normalization") - normalised).max() < 1e-12


@pytest.mark.parametrize("k, eps", [(2, 1.0), (5, 0.5), (12, 1.0), (12, 4.0), (40, 2.0), (100, 5.0)])
def test_l_adp_picks_the_peers_protocol(monkeypatch, k, eps):
    with peer_seed(SEED):
        raw = [L_ADP.L_ADP_Client(0, k, eps, eps / 2) for _ in range(20)]
    grr_calls, osue_calls = recorded(monkeypatch, L_GRR), recorded(monkeypatch, L_OSUE)
    L_ADP.L_ADP_Aggregator_MI(raw, k, eps, eps / 2)
    chosen = protocols.l_adp(k, eps, calibration="peer")
    assert (chosen.name, len(grr_calls) + len(osue_calls)) == ("L-GRR" if grr_calls else "L-OSUE", 1)


# --- (c) the variance formula --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_peer_variance_is_var_star_at_f_0(name):
    m = protocol(name)
    q_star = 1 / m.g if name in ("l_blh", "l_olh") else m.q_star
    p1, q1 = m.p1, (1 / m.g if name in ("l_blh", "l_olh") else m.q1)
    theirs = VAR_Long_Pure(p1, q1, m.p2, m.q2, N, 0)
    assert theirs == pytest.approx(q_star * (1 - q_star) / (N * m._gap**2), rel=1e-12)
    theta = np.zeros(K)
    theta[SECRET] = 1.0
    assert m.variance(theta, N)[0] == pytest.approx(theirs, rel=1e-12)  # a value no user holds


def test_peer_variance_at_f_above_0_is_the_iid_variance_for_l_sue_only():
    f = 0.3
    for name in UNARY:
        m = protocol(name)
        theirs = VAR_Long_Pure(m.p1, m.q1, m.p2, m.q2, N, f)
        q_f = m.q_star + f * m._gap  # P(v in the report's set) for users drawn i.i.d. with theta_v = f
        iid = q_f * (1 - q_f) / (N * m._gap**2)
        if name == "l_sue":
            assert theirs == pytest.approx(iid, rel=1e-12)
        else:
            assert theirs != pytest.approx(iid, rel=1e-3)


# --- dBitFlipPM -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("b, d", [(K, K), (8, 3), (5, 1)])
def test_dbitflip_reports_and_estimate_equal_the_peers(b, d):
    """The peer's reports (-1 where a bucket was not drawn, else the bit): each bucket drawn d / b of the time and its
    bit 1 with p for the user's bucket, 1 - p for another, as privest's (per-bucket exact tests, power asserted);
    on mixed users' reports its MI equals privest's INV-N to 1e-12."""
    m = protocols.dbitflip(K, EPS, b, d)
    with peer_seed(SEED + b + d):
        theirs = np.array([bitflip.dBitFlipPM_Client(SECRET, K, b, d, EPS) for _ in range(N)]).astype(np.int8)
    ours = m.sample(np.full(N, SECRET), rng_for(SEED, "peers", "dbitflip", b, d))
    held = m.bucket_of(np.array([SECRET]))[0]
    expected_ones = np.where(np.arange(b) == held, m.p, 1 - m.p) * d / b  # drawn and 1
    assert coordinate_power(expected_ones, expected_ones * np.where(np.arange(b) == held, 1.1, 1.0)) >= MIN_POWER
    assert coordinates((ours == 1).sum(axis=0), (theirs == 1).sum(axis=0)) > 1e-4
    assert coordinates((ours >= 0).sum(axis=0), (theirs >= 0).sum(axis=0)) > 1e-4
    rng = np.random.default_rng(SEED)
    with peer_seed(SEED + 7):
        mixed = [bitflip.dBitFlipPM_Client(int(x), K, b, d, EPS) for x in rng.integers(0, K, 20_000)]
    normalised = bitflip.dBitFlipPM_Aggregator_MI(mixed, b, d, EPS)
    assert np.abs(m.estimate(np.array(mixed).astype(np.int8), post="normalization") - normalised).max() < 1e-12
