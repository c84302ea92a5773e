"""privest.protocols against pure-LDP's frequency oracles: DE (GRR), UE (SUE, OUE), LH (BLH, OLH), FastLH (BLH, OLH
on a finite hash family) and HR (Hadamard response, at eps <= 1).

For each protocol: (a) 10^5 reports of one secret from privest and from pure-LDP's client have the same distribution
(two-sample tests, conformance.py); (b) on the peer's own reports, privest's raw unbiased estimate equals the peer
server's (which returns counts: divided by n here), and for LH and HR privest's exact likelihood of the peer's
reports equals one computed from the peer's own hash and Hadamard parity. pure-LDP has no IBU.

pure-LDP's items are 1..d (its default index_mapper subtracts 1): the secret x goes in as x + 1 and the estimates
come out for items 1..k, which are privest's values 0..k-1. Its HR at eps > 1 is a different, blocked scheme
(Hadamard_Rand_general_original), which privest does not implement; its Hadamard mechanism, histogram encoding,
RAPPOR, Apple CMS and sketches have no privest counterpart.
"""

import warnings
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
    check_direct_encoding_histogram,
    check_local_hashing_set_membership,
    check_unary_encoding_bit_frequencies,
    hash_reports,
    homogeneity,
    homogeneity_power,
    local_hashing_likelihood,
    peer_seed,
    privest_reports,
    protocol,
    scaled,
    xxh,
)
from pure_ldp.frequency_oracles.direct_encoding import DEClient, DEServer
from pure_ldp.frequency_oracles.hadamard_response import HadamardResponseClient, HadamardResponseServer
from pure_ldp.frequency_oracles.local_hashing import FastLHClient, FastLHServer, LHClient, LHServer
from pure_ldp.frequency_oracles.unary_encoding import UEClient, UEServer

HASHES = 32  # the finite hash family of FastLH / privest's hashes=32: seeds in 0..31
CASES = [("grr", None), ("sue", None), ("oue", None), ("blh", None), ("olh", None), ("blh", HASHES),
         ("olh", HASHES), ("hr", None)]


def client_and_server(name: str, hashes: int | None):
    """pure-LDP's client and server of privest's protocol ``name`` (``hashes``: FastLH with that many hashes)."""
    if name == "grr":
        return DEClient(EPS, K), DEServer(EPS, K)
    if name in ("sue", "oue"):
        return UEClient(EPS, K, use_oue=name == "oue"), UEServer(EPS, K, use_oue=name == "oue")
    if name in ("blh", "olh") and hashes is None:
        return LHClient(EPS, K, use_olh=name == "olh"), LHServer(EPS, K, use_olh=name == "olh")
    if name in ("blh", "olh"):
        return (FastLHClient(EPS, K, hashes, use_olh=name == "olh"),
                FastLHServer(EPS, K, hashes, use_olh=name == "olh"))
    server = HadamardResponseServer(EPS, K)
    return HadamardResponseClient(EPS, K, server.get_hash_funcs()), server


@cache
def peer_sample(name: str, hashes: int | None = None):
    """N reports of SECRET from pure-LDP's client: as the peer returns them, and as privest's report type."""
    client, _ = client_and_server(name, hashes)
    with peer_seed(SEED + 100 + CASES.index((name, hashes))), warnings.catch_warnings():
        # HR's client calls random.randint(0, math.pow(2, bits) - 1): deprecated in Python 3.11, an error from 3.12
        warnings.filterwarnings("ignore", "non-integer arguments to randrange", DeprecationWarning)
        raw = [client.privatise(SECRET + 1) for _ in range(N)]
    if name in ("grr", "hr"):
        return raw, np.asarray(raw, dtype=np.int64)
    if name in ("sue", "oue"):
        return raw, np.asarray(raw).astype(bool)
    return raw, hash_reports([seed for _, seed in raw], [value for value, _ in raw])


# --- (a) the report distributions --------------------------------------------------------------------------------


def test_direct_encoding_report_histogram_matches_peer():
    check_direct_encoding_histogram(peer_sample)


@pytest.mark.parametrize("name", ["sue", "oue"])
def test_unary_encoding_bit_frequencies_match_peer(name):
    check_unary_encoding_bit_frequencies(name, peer_sample)


@pytest.mark.parametrize("name", ["blh", "olh"])
def test_local_hashing_set_membership_matches_peer(name):
    check_local_hashing_set_membership(name, peer_sample)


@pytest.mark.parametrize("name", ["blh", "olh"])
def test_finite_hash_family_report_histogram_matches_peer(name):
    """FastLH (seed uniform on 0..HASHES-1) against privest's hashes=HASHES: the whole report distribution, the
    histogram of (seed, value) over HASHES * g cells."""
    m = protocol(name, HASHES)
    expected = np.array([[m.p_star if xxh(SECRET, s, m.g) == y else (1 - m.p_star) / (m.g - 1) for y in range(m.g)]
                         for s in range(HASHES)]).ravel() / HASHES
    kept = np.array([xxh(SECRET, s, m.g) == y for s in range(HASHES) for y in range(m.g)])
    # power 1.000 (BLH) and 0.9998 (OLH) against P(value = h_seed(secret)) 6% off (OLH at 5%: 0.962)
    assert homogeneity_power(expected, scaled(expected, kept, 1.06)) >= MIN_POWER
    ours, theirs = privest_reports(name, HASHES), peer_sample(name, HASHES)[1]
    assert ours.seeds.max() < HASHES and theirs.seeds.max() < HASHES
    cells = [np.bincount(r.seeds.astype(np.int64) * m.g + r.values, minlength=HASHES * m.g) for r in (ours, theirs)]
    assert homogeneity(*cells) > 1e-4


def test_hadamard_response_report_histogram_matches_peer():
    m = protocol("hr")
    size = 16  # the smallest power of 2 above K = 12
    parity = client_and_server("hr", None)[1].hr.parity_check  # 0 where H[i, y] = +1
    plus = np.array([parity(SECRET + 1, y) == 0 for y in range(size)])
    expected = np.where(plus, m.p_star, 1 - m.p_star) / (size / 2)
    # power 1.000 against P(y in C_secret) 5% off
    assert homogeneity_power(expected, scaled(expected, plus, 1.05)) >= MIN_POWER
    ours, theirs = privest_reports("hr"), peer_sample("hr")[1]
    assert ours.max() < size and theirs.max() < size
    assert homogeneity(np.bincount(ours, minlength=size), np.bincount(theirs, minlength=size)) > 1e-4


# --- (b) the unbiased estimates on the peer's reports ------------------------------------------------------------


@pytest.mark.parametrize(("name", "hashes"), CASES)
def test_raw_estimate_equals_peer_server(name, hashes):
    m = protocol(name, hashes)
    raw, reports = peer_sample(name, hashes)
    _, server = client_and_server(name, hashes)
    server.aggregate_all(raw)
    theirs = np.asarray(server.estimate_all(range(1, K + 1), suppress_warnings=True)) / N
    if name in ("blh", "olh"):  # the server's per-item counts of reports whose set holds the item
        assert np.array_equal(server.aggregated_data, m.support(reports))
    assert np.abs(m.estimate(reports) - theirs).max() < 1e-12


@pytest.mark.parametrize(("name", "hashes"), [("blh", None), ("olh", None), ("blh", HASHES), ("olh", HASHES)])
def test_local_hashing_likelihood_of_peer_reports(name, hashes):
    m = protocol(name, hashes)
    raw = peer_sample(name, hashes)[0][:2000]
    reports = hash_reports([s for _, s in raw], [y for y, _ in raw])
    if hashes is None:
        assert max(int(s) for _, s in raw) > 2**40  # pure-LDP's seeds do exceed 2^32
    np.testing.assert_allclose(m.likelihood(reports), local_hashing_likelihood(name, raw, hashes), rtol=1e-12, atol=0)


def test_hadamard_response_likelihood_matches_peer_parity():
    """P(y | x) = (2/K) e^eps/(e^eps + 1) if H[x + 1, y] = +1, else (2/K) / (e^eps + 1), with H[x + 1, y] from the
    peer's own parity check."""
    m = protocol("hr")
    parity = client_and_server("hr", None)[1].hr.parity_check
    reports = peer_sample("hr")[1][:2000]
    e = np.exp(EPS)
    expected = np.array([[e if parity(x + 1, int(y)) == 0 else 1.0 for x in range(K)] for y in reports])
    np.testing.assert_allclose(m.likelihood(reports), expected / (e + 1) * 2 / 16, rtol=1e-12, atol=0)
