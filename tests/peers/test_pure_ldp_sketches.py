"""privest's sketch oracles against pure-LDP's: CMS and HCMS (CMSClient/CMSServer), FLH (FastLHClient/FastLHServer,
use_olh), HM (HadamardMechClient/Server), PCS (PCSClient/PCSServer, its mean over hashes: ``use_median=False``) and
RAPPOR with Bloom filters (RAPPORClient/RAPPORServer: its regression's X and y equal ours on its reports, and our
LASSO equals scikit-learn's, which its server calls).

(a) The hashes: privest's vectorised xxh64 and xxh32 of decimal strings up to 2^64 - 1 and ``item_ids`` equal the
xxhash package's, which pure-LDP calls (its ``generate_hash`` for CMS and HCMS, FastLH's xxh32 with seed j).
(b) The same reports give the same estimates: pure-LDP's clients' reports, aggregated by its server (which returns
counts) and converted to privest's report types; privest's estimate times n equals the server's, item by item (PCS:
times n / c, c = (e^eps + 1)/(e^eps - 1), which pure-LDP's server never divides by).
(c) The client distributions: N = 10^5 reports of one item from each side, two-sample chi-square tests (p > 1e-4)
on the report's kept-or-not statistic, with their power against a 3% error in the keep probability asserted
(``homogeneity_power``), and on the full report cells (hash, row or cell, sign).

pure-LDP's servers built without a domain size (CMS) call ``numpy.zeros(None)``, which numpy 2 refuses; the fixture
``numpy_zeros_of_none`` gives them an empty array there (their sketches never read it).

pure-LDP's FLH and HM map item x to x - 1 (its default index_mapper): pure-LDP's item x + 1 is privest's x there;
its CMS and HCMS hash str(x) as given.
"""

import math
import warnings

import numpy as np
import pure_ldp.core._freq_oracle_server as peer_server_base
import pytest
import xxhash
from conformance import ALPHA, MIN_POWER, SEED, N, homogeneity, homogeneity_power, peer_seed
from pure_ldp.core import generate_hash
from pure_ldp.frequency_oracles.apple_cms import CMSClient, CMSServer
from pure_ldp.frequency_oracles.hadamard_mechanism import HadamardMechClient, HadamardMechServer
from pure_ldp.frequency_oracles.local_hashing import FastLHClient, FastLHServer
from pure_ldp.frequency_oracles.priv_count_sketch import PCSClient, PCSServer
from pure_ldp.frequency_oracles.rappor import RAPPORClient, RAPPORServer
from sklearn.linear_model import Lasso

from privest import protocols, rng_for
from privest.protocols.sketches import _hadamard_sign

EPS = 1.5
HASHES, WIDTH = 8, 64  # CMS, HCMS
FLH_HASHES, DOMAIN = 16, 64  # FLH (pure-LDP's FastLH enumerates its domain d on the server)
HM_DOMAIN, HM_T = 16, 2
ITEM = 37  # every user of a distribution test holds this item (pure-LDP's FLH and HM: ITEM + 1)
ESTIMATE_USERS = 3000


def test_hashes_equal_xxhash():
    rng = rng_for(SEED, "peers", "sketch hashes")
    values = np.concatenate([rng.integers(0, 2**64, 3000, dtype=np.uint64), np.arange(200, dtype=np.uint64),
                             np.array([2**64 - 1, 10**19, 10**19 - 1, 2**63], dtype=np.uint64)])
    seeds = rng.integers(0, 2**64, values.size, dtype=np.uint64)
    assert protocols.xxh64_decimal(values, seeds).tolist() == [
        xxhash.xxh64(str(int(v)), seed=int(s)).intdigest() for v, s in zip(values, seeds, strict=True)]
    assert protocols.xxh32_decimal_wide(values, seeds).tolist() == [
        xxhash.xxh32(str(int(v)), seed=int(s) % 2**32).intdigest() for v, s in zip(values, seeds, strict=True)]
    strings = ["", "a", "héllo wörld", "x" * 31, "y" * 32, "z" * 33, "w" * 100, "日本語のテキスト" * 5]
    assert protocols.item_ids(strings, 7).tolist() == [xxhash.xxh64(s.encode(), seed=7).intdigest() for s in strings]


class _Numpy:
    """numpy, but ``zeros(None)`` is an empty array (pure-LDP's ``FreqOracleServer`` with d = None)."""

    def __getattr__(self, name):
        return getattr(np, name)

    @staticmethod
    def zeros(shape, *args, **kwargs):
        return np.zeros(0 if shape is None else shape, *args, **kwargs)


@pytest.fixture
def numpy_zeros_of_none(monkeypatch):
    monkeypatch.setattr(peer_server_base, "np", _Numpy())


def cms_pair(hadamard: bool):
    server = CMSServer(EPS, HASHES, WIDTH, is_hadamard=hadamard)
    return CMSClient(EPS, server.get_hash_funcs(), WIDTH, is_hadamard=hadamard), server


def cms_reports(raw, hadamard: bool):
    """pure-LDP's (v, j) or (b w_l, j, l) reports as privest's."""
    if hadamard:
        signs, hashes, rows = (np.asarray(column) for column in zip(*raw, strict=True))
        return protocols.HcmsReports(hashes.astype(np.int64), rows.astype(np.int64), signs.astype(np.int8))
    vectors, hashes = zip(*raw, strict=True)
    bits = np.packbits(np.asarray(vectors) == 1, axis=1)
    return protocols.CmsReports(np.asarray(hashes, dtype=np.int64), protocols.PackedBits(bits, WIDTH))


def peer_estimates(server, raw, items) -> np.ndarray:
    for report in raw:
        server.aggregate(report)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # pure-LDP warns below n = 10^4
        return np.array([server.estimate(int(x), suppress_warnings=True) for x in items])


@pytest.mark.parametrize("hadamard", [False, True])
def test_cms_estimates_equal_pure_ldps_on_its_reports(hadamard, numpy_zeros_of_none):
    client, server = cms_pair(hadamard)
    items = rng_for(SEED, "peers", "cms items").integers(0, 40, ESTIMATE_USERS)
    with peer_seed(SEED):
        raw = [client.privatise(int(x)) for x in items]
    sketch = (protocols.hcms if hadamard else protocols.cms)(2**64, EPS, HASHES, WIDTH)
    queried = np.arange(45)
    ours = sketch.estimate(cms_reports(raw, hadamard), queried) * ESTIMATE_USERS
    assert np.allclose(ours, peer_estimates(server, raw, queried), rtol=1e-9, atol=1e-7)


def test_flh_estimates_equal_pure_ldps_on_its_reports():
    client = FastLHClient(EPS, DOMAIN, FLH_HASHES, use_olh=True)
    server = FastLHServer(EPS, DOMAIN, FLH_HASHES, use_olh=True)
    items = rng_for(SEED, "peers", "flh items").integers(0, DOMAIN, ESTIMATE_USERS)
    with peer_seed(SEED):
        raw = [client.privatise(int(x) + 1) for x in items]
    values, seeds = (np.asarray(column) for column in zip(*raw, strict=True))
    reports = protocols.HashReports(seeds.astype(np.uint32), values.astype(np.int64))
    sketch = protocols.flh(DOMAIN, EPS, FLH_HASHES)
    assert sketch.g == server.g
    queried = np.arange(DOMAIN)
    ours = sketch.estimate(reports, queried) * ESTIMATE_USERS
    assert np.allclose(ours, peer_estimates(server, raw, queried + 1), rtol=1e-9, atol=1e-7)


def hm_reports(raw) -> "protocols.HmReports":
    pairs = np.asarray([list(report) for report in raw])  # (n, t, 2): (row, coefficient)
    return protocols.HmReports(pairs[:, :, 0].astype(np.uint64), pairs[:, :, 1].astype(np.int8))


def test_hm_estimates_equal_pure_ldps_on_its_reports():
    client = HadamardMechClient(EPS, HM_DOMAIN, HM_T)
    server = HadamardMechServer(EPS, HM_DOMAIN, HM_T)
    items = rng_for(SEED, "peers", "hm items").integers(0, HM_DOMAIN, ESTIMATE_USERS)
    with peer_seed(SEED):
        raw = [list(client.privatise(int(x) + 1)) for x in items]
    queried = np.arange(HM_DOMAIN)
    ours = protocols.hm(HM_DOMAIN, EPS, HM_T).estimate(hm_reports(raw), queried) * ESTIMATE_USERS
    assert np.allclose(ours, peer_estimates(server, raw, queried + 1), rtol=1e-9, atol=1e-7)


def kept_power(keep: float, cells: int) -> float:
    """The power of the kept-or-not test over ``cells`` equally likely report groups against keep 3% off."""
    p = np.concatenate([np.full(cells, keep / cells), np.full(cells, (1 - keep) / cells)])
    alt = np.concatenate([np.full(cells, keep * 1.03 / cells), np.full(cells, (1 - keep * 1.03) / cells)])
    return homogeneity_power(p, alt)


def test_cms_client_distribution_equals_pure_ldps(numpy_zeros_of_none):
    client, _ = cms_pair(False)
    with peer_seed(SEED):
        theirs = cms_reports([client.privatise(ITEM) for _ in range(N)], False)
    sketch = protocols.cms(2**64, EPS, HASHES, WIDTH)
    ours = sketch.sample(np.full(N, ITEM), rng_for(SEED, "peers", "cms client"))
    own = sketch.cells(np.array([ITEM]))[:, 0]

    def kept(reports):  # bit h_j(ITEM) set or not
        return np.bincount(reports.bits.unpack()[np.arange(N), own[reports.hashes]], minlength=2)

    def set_bits(reports):
        return np.bincount(reports.bits.set_counts(), minlength=WIDTH + 1)

    assert kept_power(sketch.keep, 1) >= MIN_POWER
    assert homogeneity(kept(ours), kept(theirs)) > ALPHA
    assert homogeneity(set_bits(ours), set_bits(theirs)) > ALPHA


def test_hcms_client_distribution_equals_pure_ldps(numpy_zeros_of_none):
    client, _ = cms_pair(True)
    with peer_seed(SEED):
        theirs = cms_reports([client.privatise(ITEM) for _ in range(N)], True)
    sketch = protocols.hcms(2**64, EPS, HASHES, WIDTH)
    ours = sketch.sample(np.full(N, ITEM), rng_for(SEED, "peers", "hcms client"))
    own = sketch.cells(np.array([ITEM]))[:, 0]

    def agrees(reports):
        return (reports.signs * _hadamard_sign(reports.rows, own[reports.hashes]) == 1).astype(np.int64)

    def cells(reports):
        keys = (reports.hashes * WIDTH + reports.rows) * 2 + (reports.signs > 0)
        return np.bincount(keys, minlength=HASHES * WIDTH * 2)

    assert kept_power(1 / (1 + math.exp(-EPS)), 1) >= MIN_POWER
    assert homogeneity(np.bincount(agrees(ours), minlength=2), np.bincount(agrees(theirs), minlength=2)) > ALPHA
    assert homogeneity(cells(ours), cells(theirs)) > ALPHA


def test_flh_client_distribution_equals_pure_ldps():
    client = FastLHClient(EPS, DOMAIN, FLH_HASHES, use_olh=True)
    with peer_seed(SEED):
        values, seeds = (np.asarray(c) for c in zip(*[client.privatise(ITEM + 1) for _ in range(N)], strict=True))
    sketch = protocols.flh(DOMAIN, EPS, FLH_HASHES)
    ours = sketch.sample(np.full(N, ITEM), rng_for(SEED, "peers", "flh client"))
    own = sketch.cells(np.array([ITEM]))[:, 0]

    def cells(seed, value):  # kept or not
        return np.bincount((value == own[seed]).astype(np.int64), minlength=2)

    def full(seed, value):
        return np.bincount(seed.astype(np.int64) * sketch.g + value, minlength=FLH_HASHES * sketch.g)

    assert kept_power(sketch.keep, 1) >= MIN_POWER
    assert homogeneity(cells(ours.seeds, ours.values), cells(seeds, values)) > ALPHA
    assert homogeneity(full(ours.seeds, ours.values), full(seeds, values)) > ALPHA


def test_hm_client_distribution_equals_pure_ldps():
    client = HadamardMechClient(EPS, HM_DOMAIN, HM_T)
    with peer_seed(SEED):
        theirs = hm_reports([list(client.privatise(ITEM % HM_DOMAIN + 1)) for _ in range(N)])
    sketch = protocols.hm(HM_DOMAIN, EPS, HM_T)
    ours = sketch.sample(np.full(N, ITEM % HM_DOMAIN), rng_for(SEED, "peers", "hm client"))

    def kept(reports):
        true = _hadamard_sign(reports.rows, np.uint64(ITEM % HM_DOMAIN))
        return np.bincount(np.all(reports.signs == true, axis=1).astype(np.int64), minlength=2)

    def cells(reports):
        rows = reports.rows.astype(np.int64) @ (HM_DOMAIN ** np.arange(HM_T))
        return np.bincount(rows * 2**HM_T + (reports.signs > 0).astype(np.int64) @ (1 << np.arange(HM_T)),
                           minlength=HM_DOMAIN**HM_T * 2**HM_T)

    assert kept_power(math.exp(EPS) / (math.exp(EPS) + 2**HM_T - 1), 1) >= MIN_POWER
    assert homogeneity(kept(ours), kept(theirs)) > ALPHA
    assert homogeneity(cells(ours), cells(theirs)) > ALPHA


def pcs_reports(raw) -> "protocols.PcsReports":
    """pure-LDP's (v, j) PCS reports as privest's."""
    vectors, hashes = zip(*raw, strict=True)
    bits = np.packbits(np.asarray(vectors) == 1, axis=1)
    return protocols.PcsReports(np.asarray(hashes, dtype=np.int64), protocols.PackedBits(bits, WIDTH))


def pcs_pair():
    server = PCSServer(EPS, HASHES, WIDTH, use_median=False)
    return PCSClient(EPS, HASHES, WIDTH, server.get_hash_funcs()), server


def test_pcs_estimates_equal_pure_ldps_on_its_reports(numpy_zeros_of_none):
    client, server = pcs_pair()
    items = rng_for(SEED, "peers", "pcs items").integers(0, 40, ESTIMATE_USERS)
    with peer_seed(SEED):
        raw = [client.privatise(int(x)) for x in items]
    queried = np.arange(45)
    ours = protocols.pcs(2**64, EPS, HASHES, WIDTH).estimate(pcs_reports(raw), queried)
    scale = ESTIMATE_USERS * math.tanh(EPS / 2)  # n / c
    assert np.allclose(ours * scale, peer_estimates(server, raw, queried), rtol=1e-9, atol=1e-7)


def test_pcs_client_distribution_equals_pure_ldps(numpy_zeros_of_none):
    client, _ = pcs_pair()
    with peer_seed(SEED):
        theirs = pcs_reports([client.privatise(ITEM) for _ in range(N)])
    sketch = protocols.pcs(2**64, EPS, HASHES, WIDTH)
    ours = sketch.sample(np.full(N, ITEM), rng_for(SEED, "peers", "pcs client"))
    cells, signs = sketch.cells_and_signs(np.array([ITEM]))

    def kept(reports):  # v[h_j(ITEM)] = g_j(ITEM) or not
        own = reports.bits.unpack()[np.arange(N), cells[reports.hashes, 0]]
        return np.bincount((own == (signs[reports.hashes, 0] > 0)).astype(np.int64), minlength=2)

    def set_bits(reports):
        return np.bincount(reports.bits.set_counts(), minlength=WIDTH + 1)

    assert kept_power(sketch.keep, 1) >= MIN_POWER
    assert homogeneity(kept(ours), kept(theirs)) > ALPHA
    assert homogeneity(set_bits(ours), set_bits(theirs)) > ALPHA
    assert homogeneity(np.bincount(ours.hashes, minlength=HASHES), np.bincount(theirs.hashes, minlength=HASHES)) > ALPHA


BLOOM_BITS, BLOOM_HASHES, BLOOM_COHORTS, BLOOM_DOMAIN = 32, 2, 4, 40


def rappor_pair(sketch):
    """pure-LDP's RAPPOR client and server at our f, their hash functions replaced by ours (its server draws random
    seeds; ``generate_hash(m, seed)`` is xxh64(str(x), seed) mod m, ours with seed c h + s)."""
    server = RAPPORServer(sketch.f, BLOOM_BITS, BLOOM_HASHES, BLOOM_DOMAIN, BLOOM_COHORTS)
    server.hash_family = [[generate_hash(BLOOM_BITS, int(seed)) for seed in row] for row in sketch.seeds]
    return RAPPORClient(sketch.f, BLOOM_BITS, server.hash_family, BLOOM_COHORTS), server


def bloom_reports(raw) -> "protocols.BloomReports":
    filters, cohorts = zip(*raw, strict=True)
    bits = np.packbits(np.asarray(filters) == 1, axis=1)
    return protocols.BloomReports(np.asarray(cohorts, dtype=np.int64), protocols.PackedBits(bits, BLOOM_BITS))


def test_rappor_regression_equals_pure_ldps_and_the_lasso_scikit_learns():
    sketch = protocols.rappor_bloom(2**64, 2.0, BLOOM_HASHES, BLOOM_BITS, BLOOM_COHORTS)
    client, server = rappor_pair(sketch)
    assert server.epsilon == pytest.approx(2.0)
    items = rng_for(SEED, "peers", "rappor items").integers(0, 10, ESTIMATE_USERS)
    with peer_seed(SEED):
        raw = [client.privatise(int(x) + 1) for x in items]
    for report in raw:
        server.aggregate(report)
    reports = bloom_reports(raw)
    X, y = sketch.regression(reports, np.arange(BLOOM_DOMAIN))
    users = np.bincount(reports.cohorts, minlength=BLOOM_COHORTS)
    assert np.array_equal(X, server._create_X())
    assert np.allclose(y * np.repeat(users, BLOOM_BITS), server._create_y(), rtol=1e-12, atol=1e-9)
    peer = Lasso(alpha=0.002, positive=True, fit_intercept=False, tol=1e-12, max_iter=100_000).fit(X, y).coef_
    assert np.allclose(protocols.nonnegative_lasso(X, y, 0.002), peer, atol=1e-6)


def test_rappor_client_equals_pure_ldps_off_the_filter_and_pure_ldps_never_clears_a_filter_bit():
    """pure-LDP's ``_perturb`` sets bit i to 1 with probability 1 - f/2 if it is a filter bit, f/2 if not, and
    otherwise leaves it as it was: a filter bit is never reported 0 (P(1 | true 1) = 1, not 1 - f/2), so its client is
    not eps-LDP (a 0 rules out every item with that bit). Off the filter both draw f/2."""
    sketch = protocols.rappor_bloom(2**64, 2.0, BLOOM_HASHES, BLOOM_BITS, BLOOM_COHORTS)
    client, _ = rappor_pair(sketch)
    with peer_seed(SEED):
        theirs = bloom_reports([client.privatise(ITEM + 1) for _ in range(N)])
    ours = sketch.sample(np.full(N, ITEM), rng_for(SEED, "peers", "rappor client"))
    filters = sketch.filters(np.array([ITEM]))[:, :, 0]  # (cohorts, hashes)

    def on_filter(reports):  # (N, bits) bool: the user's filter bits
        out = np.zeros((N, BLOOM_BITS), dtype=bool)
        out[np.arange(N)[:, None], filters[reports.cohorts]] = True
        return out

    def off_cells(reports):  # set bits off the filter, by cohort and bit, and the cohorts' sizes
        bits = reports.bits.unpack() & ~on_filter(reports)
        keys = reports.cohorts[:, None] * BLOOM_BITS + np.arange(BLOOM_BITS)[None, :]
        return np.concatenate([np.bincount(reports.cohorts, minlength=BLOOM_COHORTS),
                               np.bincount(keys[bits], minlength=BLOOM_COHORTS * BLOOM_BITS)])

    assert np.all(theirs.bits.unpack()[on_filter(theirs)])  # pure-LDP: every filter bit reported 1
    on_ours = ours.bits.unpack()[on_filter(ours)]
    assert abs(on_ours.mean() - (1 - sketch.f / 2)) < 4.5 * math.sqrt(sketch.f / 2 * (1 - sketch.f / 2) / on_ours.size)
    assert homogeneity(off_cells(ours), off_cells(theirs)) > ALPHA
