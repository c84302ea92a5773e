"""privest.protocols against multi-freq-ldpy's pure frequency oracles (GRR, UE as SUE/OUE, LH as BLH/OLH, SS).

For each protocol: (a) 10^5 reports of one secret from privest and from multi-freq-ldpy's client have the same
distribution (two-sample tests, conformance.py); (b) on the peer's own reports, privest's estimate equals the peer's
MI aggregator, and the p, q and per-value counts the aggregator computes equal privest's p*, q* and ``support``;
(c) IBU: on GRR the peer's IBU is privest's GIBU after the same iterations; on the set-valued protocols the peer's
IBU is IBU on its support frequencies through a k x k matrix (not the likelihood of the reports), which privest's
IBU on the same input reproduces, and privest's GIBU (the MLE of the reports) has at least the peer's likelihood.

multi-freq-ldpy's aggregators call ``MI(count_report, n, p, q)`` and ``IBU(k, A, obs_freq, ...)`` by the names they
import; ``recorded`` wraps those names to see the arguments (the real functions still compute the result). Its ADP
(GRR or OUE, whichever has the smaller variance) is privest's ``adp``; its HE client (histogram encoding with
Laplace noise) is compared with privest's SHE coordinate by coordinate.
"""

from functools import cache

import numpy as np
import pytest
from conformance import (
    EPS,
    MIN_POWER,
    NO_STOP,
    OTHER,
    SECRET,
    SEED,
    K,
    N,
    check_direct_encoding_histogram,
    check_local_hashing_set_membership,
    check_unary_encoding_bit_frequencies,
    coordinate_power,
    coordinates,
    hash_reports,
    homogeneity,
    homogeneity_power,
    local_hashing_likelihood,
    peer_seed,
    privest_reports,
    protocol,
    xxh,
)
from multi_freq_ldpy.pure_frequency_oracles import GRR, LH, SS, UE
from multi_freq_ldpy.pure_frequency_oracles.HE import HE_Client
from multi_freq_ldpy.pure_frequency_oracles.Variance_PURE import VAR_Pure
from scipy.stats import laplace

import privest
from privest import estimators

NAMES = ("grr", "sue", "oue", "blh", "olh", "ss")
MODULES = {"grr": GRR, "sue": UE, "oue": UE, "blh": LH, "olh": LH, "ss": SS}
IBU_ITERATIONS = (1, 10, 100)


@cache
def peer_sample(name: str):
    """N reports of SECRET from multi-freq-ldpy's client of ``name``: as the peer returns them, and as privest's
    report type."""
    with peer_seed(SEED + NAMES.index(name)):
        if name == "grr":
            raw = [GRR.GRR_Client(SECRET, K, EPS) for _ in range(N)]
            return raw, np.asarray(raw, dtype=np.int64)
        if name in ("sue", "oue"):
            raw = np.array([UE.UE_Client(SECRET, K, EPS, name == "oue") for _ in range(N)])
            return raw, raw.astype(bool)
        if name in ("blh", "olh"):
            raw = [LH.LH_Client(SECRET, K, EPS, name == "olh") for _ in range(N)]
            return raw, hash_reports([seed for _, seed in raw], [value for value, _ in raw])
        raw = np.array([SS.SS_Client(SECRET, K, EPS) for _ in range(N)])
        bits = np.zeros((N, K), dtype=bool)
        bits[np.arange(N)[:, None], raw] = True
        return raw, bits


def aggregate(name: str, raw, estimator: str, **options):
    """The peer's aggregator of ``name`` ("MI" or "IBU") on its raw reports."""
    optimal = {"sue": False, "oue": True, "blh": False, "olh": True}
    if name == "grr":
        return getattr(GRR, f"GRR_Aggregator_{estimator}")(raw, K, EPS, **options)
    if name in ("sue", "oue"):
        if estimator == "MI":
            return UE.UE_Aggregator_MI(raw, EPS, optimal[name])
        return UE.UE_Aggregator_IBU(raw, K, EPS, optimal[name], **options)
    if name in ("blh", "olh"):
        return getattr(LH, f"LH_Aggregator_{estimator}")(raw, K, EPS, optimal[name], **options)
    return getattr(SS, f"SS_Aggregator_{estimator}")(raw, K, EPS, **options)


def recorded(monkeypatch, name: str, function: str) -> list[tuple]:
    """Wrap the function the aggregators of ``name`` call by ``function`` ("MI" or "IBU"); returns the list that
    each call's arguments are appended to."""
    module = MODULES[name]
    real = getattr(module, function)
    calls: list[tuple] = []

    def wrapper(*args):
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(module, function, wrapper)
    return calls


# --- (a) the report distributions --------------------------------------------------------------------------------


def test_grr_report_histogram_matches_peer():
    check_direct_encoding_histogram(peer_sample)


@pytest.mark.parametrize("name", ["sue", "oue"])
def test_unary_encoding_bit_frequencies_match_peer(name):
    check_unary_encoding_bit_frequencies(name, peer_sample)


@pytest.mark.parametrize("name", ["blh", "olh"])
def test_local_hashing_set_membership_matches_peer(name):
    check_local_hashing_set_membership(name, peer_sample)


def test_subset_selection_size_and_inclusion_match_peer():
    m = protocol("ss")
    raw, theirs = peer_sample("ss")
    ours = privest_reports("ss")
    assert raw.shape[1] == m.omega  # the peer's sub_k = max(1, rint(k / (e^eps + 1)))
    assert np.all(ours.sum(axis=1) == m.omega) and np.all(theirs.sum(axis=1) == m.omega)  # no repeated element
    expected = np.full(K, m.q_star)
    expected[SECRET] = m.p_star
    # power 1.000 against P(secret in S) 5% off
    assert coordinate_power(expected, expected * np.where(np.arange(K) == SECRET, 1.05, 1.0)) >= MIN_POWER
    assert coordinates(ours.sum(axis=0), theirs.sum(axis=0)) > 1e-4


# --- (b) the unbiased estimates on the peer's reports ------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_estimate_equals_peer_mi(monkeypatch, name):
    """The peer's MI gets (count_report, n, p, q) and returns max((count - n q)/(p - q), 0) normalised: its counts
    are privest's support, its p and q privest's p* and q*, and its result privest's INV-N; the raw estimate
    (count/n - q)/(p - q) is privest's raw estimate, and the peer's variance formula at (p, q) privest's variance."""
    m = protocol(name)
    raw, reports = peer_sample(name)
    calls = recorded(monkeypatch, name, "MI")
    normalised = aggregate(name, raw, "MI")
    [(count, n, p, q)] = calls
    assert n == N
    assert (p, q) == pytest.approx((m.p_star, m.q_star), rel=1e-14, abs=0)
    assert np.array_equal(np.asarray(count), m.support(reports))
    assert np.abs(m.estimate(reports, post="normalization") - normalised).max() < 1e-12
    assert np.abs(m.estimate(reports) - (np.asarray(count) / n - q) / (p - q)).max() < 1e-12
    theta = np.linspace(1, 2, K) / np.linspace(1, 2, K).sum()
    assert np.allclose(m.variance(theta, N), VAR_Pure(p, q, N, theta), rtol=1e-12, atol=0)


@pytest.mark.parametrize("name", ["blh", "olh"])
def test_local_hashing_likelihood_of_peer_seeds(name):
    """The peer's seeds go up to 2^63; privest's likelihood of its reports, with the seeds taken modulo 2^32, equals
    2^-32 (p if xxh32(str(x), seed) mod g = y else q), hashed here by xxhash with the peer's own seeds."""
    m = protocol(name)
    raw = peer_sample(name)[0][:2000]
    reports = hash_reports([s for _, s in raw], [y for y, _ in raw])
    assert max(int(s) for _, s in raw) > 2**40  # the peer's seeds do exceed 2^32
    np.testing.assert_allclose(m.likelihood(reports), local_hashing_likelihood(name, raw), rtol=1e-12, atol=0)


def test_xxhash_takes_seeds_modulo_2_32():
    """What ``hash_reports`` relies on: xxhash's xxh32 hashes with seed mod 2^32 (seeds up to the peers' 2^63)."""
    rng = np.random.default_rng(SEED)
    for seed in rng.integers(2**32, 2**63 - 1, size=200, dtype=np.int64):
        for v in (0, 7, 11, 1023):
            assert xxh(v, int(seed), 2**32) == xxh(v, int(seed) % 2**32, 2**32)


# --- (c) IBU ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("iterations", IBU_ITERATIONS)
def test_grr_ibu_equals_gibu_after_same_iterations(iterations):
    m = protocol("grr")
    raw, reports = peer_sample("grr")
    theirs = aggregate("grr", raw, "IBU", nb_iter=iterations, tol=NO_STOP)
    ours = privest.gibu([(m, reports)], delta=NO_STOP, max_iter=iterations, **estimators.PLAIN_IBU)
    assert ours.iterations == iterations
    assert np.abs(ours.theta - theirs).max() < 1e-12


@pytest.mark.parametrize("name", ["sue", "oue", "blh", "olh", "ss"])
@pytest.mark.parametrize("iterations", IBU_ITERATIONS)
def test_set_protocol_peer_ibu_is_ibu_on_support(monkeypatch, name, iterations):
    """The peer's IBU runs on obs_freq = support / sum(support) through A = p* on the diagonal, q* off it (rows
    summing to p* + (k-1) q*, not 1; scaling rows by one constant leaves the update unchanged): privest's IBU on
    A / rowsum with privest's support gives the same iterates."""
    m = protocol(name)
    raw, reports = peer_sample(name)
    calls = recorded(monkeypatch, name, "IBU")
    theirs = aggregate(name, raw, "IBU", nb_iter=iterations, tol=NO_STOP)
    [(k, A, obs_freq, *_)] = calls
    support = m.support(reports)
    assert k == K
    assert np.allclose(A, np.where(np.eye(K, dtype=bool), m.p_star, m.q_star), rtol=1e-14, atol=0)
    assert np.abs(obs_freq - support / support.sum()).max() < 1e-15
    ours = privest.ibu(A / A.sum(axis=1, keepdims=True), support, delta=NO_STOP, max_iter=iterations,
                       **estimators.PLAIN_IBU)
    assert np.abs(ours.theta - theirs).max() < 1e-12


@pytest.mark.parametrize("name", ["sue", "oue", "blh", "olh", "ss"])
def test_gibu_likelihood_at_least_peer_ibu(name):
    """Both to convergence (privest: GIBU with SQUAREM to delta 1e-12; the peer: its defaults, max |change| < 1e-12 or
    10^4 iterations): privest's GIBU, the MLE, has at least the exact log-likelihood of the peer's support-based
    estimate. (Here the two differ by 0.002 to 0.005 in max |theta| and 2e-6 to 1.4e-5 in the normalised
    log-likelihood.)"""
    m = protocol(name)
    raw, reports = peer_sample(name)
    theirs = aggregate(name, raw, "IBU")
    ours = privest.gibu([(m, reports)], delta=1e-12, max_iter=100_000, accelerate="squarem", stop="change")
    assert not ours.capped
    group = m.group(reports)
    assert ours.log_likelihood == pytest.approx(estimators.log_likelihood(ours.theta, [group]), abs=1e-12)
    assert ours.log_likelihood >= estimators.log_likelihood(theirs, [group]) - 1e-12


def test_she_report_coordinates_match_peer_histogram_encoding():
    """SHE against the peer's HE client: N noisy one-hot vectors of SECRET each side; the secret's coordinate and
    another's, each binned at the 20 quantiles of its Laplace(2/eps) law (loc 1 and 0), by Pearson homogeneity, with
    power against a scale 5% off (the noise's law, here drawn by privest's own ziggurat, privest.protocols._laplace)."""
    with peer_seed(SEED + len(NAMES)):
        theirs = np.array([HE_Client(SECRET, K, EPS) for _ in range(N)])
    ours = privest.protocols.she(K, EPS).sample(np.full(N, SECRET), privest.rng_for(SEED, "peers", "she"))
    scale = 2 / EPS
    edges = laplace.ppf(np.linspace(0, 1, 21), scale=scale)  # -inf .. inf, 20 cells of 1/20 each
    expected, off = np.full(20, 1 / 20), np.diff(laplace.cdf(edges, scale=1.05 * scale))
    assert homogeneity_power(expected, off) >= MIN_POWER
    for column, loc in ((SECRET, 1.0), (OTHER, 0.0)):
        a = np.histogram(ours[:, column] - loc, edges)[0]
        b = np.histogram(theirs[:, column] - loc, edges)[0]
        assert homogeneity(a, b) > 1e-4, f"coordinate {column}"
