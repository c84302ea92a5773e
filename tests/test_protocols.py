"""The standard LDP frequency oracles (privest.protocols) against their definitions: every report enumerated on a
small alphabet (the likelihood sums to 1, the LDP ratio bound, p* and q*), 10^6-draw frequencies against the
likelihood, the unbiased estimator's variance against Wang et al.'s formula, GIBU over a mix against the per-user EM
update, the k-RR MLE against IBU run to convergence, and the hash against the xxhash package."""

import itertools
import math

import numpy as np
import pytest
from papers_ibu import plain_gibu  # the papers' IBU: the engine pinned down here
from scipy import stats
from scipy.linalg import hadamard

import privest
from privest import protocols
from privest.rappor import log_probability

K, EPS, FAMILY = 5, 1.2, 7  # small enough to enumerate every report; FAMILY: the hash family of BLH/OLH here

PROTOCOLS = {
    "grr": protocols.grr(K, EPS),
    "sue": protocols.sue(K, EPS),
    "oue": protocols.oue(K, EPS),
    "blh": protocols.blh(K, EPS, hashes=FAMILY),
    "olh": protocols.olh(K, EPS, hashes=FAMILY),
    "ss": protocols.ss(K, EPS),
    "hr": protocols.hr(K, EPS),
    "the": protocols.the(K, EPS),
}


def every_report(m: protocols.Protocol):
    """All the reports the protocol can send, and a function giving each sampled report's index among them."""
    if m.name in ("GRR", "HR"):
        size = m.K if m.name == "HR" else m.k
        return np.arange(size), lambda r: np.asarray(r)
    if m.name in ("SUE", "OUE", "SS", "THE"):
        bits = np.array(list(itertools.product([False, True], repeat=m.k)))
        if m.name == "SS":
            bits = bits[bits.sum(axis=1) == m.omega]
        codes = bits.astype(np.int64) @ (1 << np.arange(m.k))
        lookup = {code: i for i, code in enumerate(codes)}
        return bits, lambda r: np.array([lookup[c] for c in np.asarray(r).astype(np.int64) @ (1 << np.arange(m.k))])
    seeds, values = np.divmod(np.arange(m.hashes * m.g), m.g)
    return protocols.HashReports(seeds.astype(np.uint32), values), lambda r: r.seeds.astype(np.int64) * m.g + r.values


@pytest.mark.parametrize("name", PROTOCOLS)
def test_likelihood_is_a_distribution_over_reports_within_the_ldp_bound(name):
    m = PROTOCOLS[name]
    L = m.likelihood(every_report(m)[0])
    np.testing.assert_allclose(L.sum(axis=0), 1.0, rtol=0, atol=1e-12)
    assert (L.max(axis=1) / L.min(axis=1)).max() <= math.exp(EPS) * (1 + 1e-12)
    assert privest.is_ldp(L.T, EPS)


@pytest.mark.parametrize("name", PROTOCOLS)
def test_p_star_and_q_star_are_the_membership_probabilities(name):
    m = PROTOCOLS[name]
    reports = every_report(m)[0]
    L, member = m.likelihood(reports), m.membership(reports)
    inside = np.einsum("zx,zv->xv", L, member)  # P(v in S | x)
    np.testing.assert_allclose(np.diag(inside), m.p_star, atol=1e-12)
    if name in ("blh", "olh"):  # q* = 1/g holds for an ideal hash; a family of 7 functions only approaches it
        np.testing.assert_allclose(inside[~np.eye(K, dtype=bool)], m.q_star, atol=0.3)
    else:
        np.testing.assert_allclose(inside[~np.eye(K, dtype=bool)], m.q_star, atol=1e-12)


@pytest.mark.parametrize("name", PROTOCOLS)
def test_sampler_frequencies_match_the_likelihood(name):
    """10^6 reports of secret 3 (and 2 * 10^5 of secret 0): a chi-square test of the report histogram against the
    likelihood column. At 10^6 draws a probability off by 1% of a typical cell (about 1/32) moves the statistic by
    about 30 standard deviations, so p > 1e-4 tells a right sampler from a wrong one."""
    m = PROTOCOLS[name]
    reports, index = every_report(m)
    L = m.likelihood(reports)
    rng = privest.rng_for(2026, "test_protocols", name)
    for secret, n in ((3, 1_000_000), (0, 200_000)):
        observed = np.bincount(index(m.sample(np.full(n, secret), rng)), minlength=L.shape[0])
        expected = n * L[:, secret]
        assert observed[expected == 0].sum() == 0
        assert stats.chisquare(observed[expected > 0], expected[expected > 0]).pvalue > 1e-4


@pytest.mark.parametrize("sampler", ["floyd", "bits"])
def test_ss_samplers_frequencies_match_the_likelihood_with_several_values_a_subset(sampler, monkeypatch):
    """SS at k = 8, eps = 0.3 (omega = 3, 56 subsets), by Floyd's algorithm and by i.i.d. bits completed by uniform
    proposals (its rate raised to 73/256, so that rows with too many bits, redrawn, are frequent): 3 * 10^5 reports of
    secret 3 and 10^5 of secret 0, a chi-square test of the subset histogram against the likelihood."""
    from privest.protocols import packed

    if sampler == "bits":
        monkeypatch.setattr(packed, "_FLOYD_UP_TO", 0)
        monkeypatch.setattr(packed, "_MARGIN", 0.0)
    m = protocols.ss(8, 0.3)
    assert m.omega == 3
    reports, _ = every_report(m)
    codes = reports.astype(np.int64) @ (1 << np.arange(8))
    order = np.argsort(codes)
    L = m.likelihood(reports)
    rng = privest.rng_for(2026, "test_protocols ss samplers", sampler)
    for secret, n in ((3, 300_000), (0, 100_000)):
        sampled = m.sample(np.full(n, secret), rng).astype(np.int64) @ (1 << np.arange(8))
        position = np.searchsorted(codes[order], sampled)
        assert np.array_equal(codes[order][position], sampled)  # every report holds omega values
        observed = np.bincount(order[position], minlength=len(codes))
        assert stats.chisquare(observed, n * L[:, secret]).pvalue > 1e-4


@pytest.mark.parametrize("name", ["sue", "oue"])
def test_unary_sampler_by_positions_matches_the_likelihood(name, monkeypatch):
    """The unary encodings' other sampler (a Binomial number of set bits at uniform positions, chosen when flip is
    small), forced on at K = 5: the report histogram of 10^6 reports of secret 3 against the likelihood."""
    from privest.protocols import packed

    monkeypatch.setattr(packed, "_POSITIONS_BELOW", 1.0)
    monkeypatch.setattr(packed, "_POSITIONS_FROM_K", 0)
    m = PROTOCOLS[name]
    reports, index = every_report(m)
    L = m.likelihood(reports)
    observed = np.bincount(index(m.sample(np.full(1_000_000, 3), privest.rng_for(2026, "positions", name))),
                           minlength=L.shape[0])
    assert stats.chisquare(observed, 1_000_000 * L[:, 3]).pvalue > 1e-4


@pytest.mark.parametrize("name", ["grr", "sue", "oue", "blh", "olh", "ss", "hr", "the", "she"])
def test_unbiased_estimator_mean_and_variance_match_wang_et_al(name):
    """600 runs of 3000 users with fixed secrets: the mean estimate is theta and the per-value variance is Wang et
    al.'s formula (exact here, with an ideal hash for BLH and OLH: seeds from 2^32). Each empirical variance has a
    relative standard error of sqrt(2/600) = 6%; the total over the values is held to 15%, each value to 30%."""
    m = protocols.by_name(name, 6, 1.0)
    theta = np.array([0.3, 0.25, 0.2, 0.15, 0.1, 0.0])
    n, runs = 3000, 600
    secrets = np.repeat(np.arange(6), np.rint(theta * n).astype(int))
    rng = privest.rng_for(2026, "test_protocols variance", name)
    estimates = np.array([m.estimate(m.sample(secrets, rng)) for _ in range(runs)])
    expected = m.variance(theta, n)
    np.testing.assert_allclose(estimates.mean(axis=0), theta, atol=5 * np.sqrt(expected.max() / runs))
    variance = estimates.var(axis=0, ddof=1)
    assert variance.sum() == pytest.approx(expected.sum(), rel=0.15)
    np.testing.assert_allclose(variance, expected, rtol=0.3)


def per_user_em(likelihoods: np.ndarray, theta: np.ndarray, steps: int) -> np.ndarray:
    """Free-will eq. 15, user by user: theta_x <- (1/n) sum_i theta_x P(z_i | x) / sum_u theta_u P(z_i | u)."""
    for _ in range(steps):
        posterior = likelihoods * theta
        theta = (posterior / posterior.sum(axis=1, keepdims=True)).mean(axis=0)
    return theta


def test_gibu_over_a_mix_of_protocols_and_a_matrix_is_the_per_user_em_update():
    k = 12
    rng = privest.rng_for(2026, "test_protocols gibu mix")
    theta = rng.dirichlet(np.ones(k))
    mix = [protocols.oue(k, 1.0), protocols.olh(k, 2.0), protocols.grr(k, 3.0), protocols.hr(k, 0.5),
           protocols.ss(k, 1.5), protocols.blh(k, 4.0, hashes=50), protocols.sue(k, 0.7)]
    pairs, rows = [], []
    for m in mix:
        reports = m.sample(rng.choice(k, 300, p=theta), rng)
        pairs.append((m, reports))
        rows.append(m.likelihood(reports))
    A = privest.geometric(k, 0.8)
    z = privest.sample(A, rng.choice(k, 200, p=theta), rng)
    pairs.append((A, np.bincount(z, minlength=k)))
    rows.append(A[:, z].T)
    likelihoods = np.concatenate(rows)
    for steps in (1, 7, 40):
        result = plain_gibu(pairs, max_iter=steps, delta=1e-300)
        assert result.iterations == steps and result.capped
        np.testing.assert_allclose(result.theta, per_user_em(likelihoods, np.full(k, 1 / k), steps), rtol=1e-10)
    result = plain_gibu(pairs, delta=1e-300, max_iter=3)
    assert result.log_likelihood == pytest.approx(np.log(likelihoods @ result.theta).mean(), abs=1e-10)


def test_gibu_on_small_set_groups_as_matrices_equals_the_sparse_iteration(monkeypatch):
    # a set-valued group with a small dense matrix iterates as a matrix group (the compiled loop where built): the same
    # likelihood, so the same iterates as the sparse products to rounding, and the same L; L summed in other orders
    # may stop the two one iteration apart, so the estimates are compared after the same number of iterations
    from privest.estimators import _iteration

    k = 16
    rng = privest.rng_for(2026, "test_protocols dense sets")
    theta = rng.dirichlet(np.ones(k))
    pairs = [(m, m.sample(rng.choice(k, 2000, p=theta), rng)) for m in (protocols.grr(k, 1.0), protocols.ss(k, 2.0))]
    likelihood = _iteration._Likelihood.of([m.group(r) for m, r in pairs], dense_sets=True)
    assert likelihood.sets is None and likelihood.G.shape[0] == k  # both groups became matrix columns
    dense = plain_gibu(pairs, delta=1e-12)
    monkeypatch.setattr(_iteration, "_DENSE_SETS", 0)
    sparse = plain_gibu(pairs, delta=1e-12)
    assert abs(dense.iterations - sparse.iterations) <= 1
    same_count = plain_gibu(pairs, delta=1e-300, max_iter=dense.iterations)
    np.testing.assert_allclose(dense.theta, same_count.theta, atol=1e-9)
    assert dense.log_likelihood == pytest.approx(sparse.log_likelihood, abs=1e-12)


def test_squarem_reaches_the_same_estimate_in_fewer_updates():
    k = 30
    rng = privest.rng_for(2026, "test_protocols squarem")
    theta = rng.dirichlet(np.ones(k) * 0.5)
    pairs = [(m, m.sample(rng.choice(k, 4000, p=theta), rng)) for m in (protocols.oue(k, 0.5), protocols.olh(k, 1.0))]
    plain = plain_gibu(pairs, delta=1e-13, max_iter=100_000)
    fast = plain_gibu(pairs, delta=1e-13, max_iter=100_000, accelerate="squarem")
    assert not plain.capped and not fast.capped
    assert fast.iterations < plain.iterations / 3
    assert fast.log_likelihood >= plain.log_likelihood - 1e-9
    np.testing.assert_allclose(fast.theta, plain.theta, atol=2e-3)


@pytest.mark.parametrize("counts, eps", [
    ([50, 30, 15, 5], 1.0),                 # two zeros in the MLE
    ([10, 0, 3, 200, 7], 0.5),              # a zero count, a point mass
    ([400, 300, 200, 100], 2.0),            # no negative unbiased entry: the MLE is the unbiased estimate
    ([120, 80, 80, 0, 3, 61, 9, 1], 0.8),
])
def test_krr_mle_is_ibu_run_to_convergence(counts, eps):
    counts = np.asarray(counts, dtype=float)
    k = counts.size
    mle = privest.krr_mle(counts, eps)
    assert mle.sum() == pytest.approx(1.0, abs=1e-14) and mle.min() >= 0
    converged = plain_gibu([(protocols.grr(k, eps), np.repeat(np.arange(k), counts.astype(int)))], delta=1e-15,
                             max_iter=200_000, accelerate="squarem")
    np.testing.assert_allclose(mle, converged.theta, atol=1e-6)
    A = privest.krr(k, eps)
    likelihood = counts @ np.log(mle @ A)
    for _ in range(200):  # no distribution nearby does better
        other = privest.project_simplex(mle + privest.rng_for(2026, "krr_mle", _).normal(0, 1e-3, k))
        assert counts @ np.log(other @ A) <= likelihood + 1e-9
    unbiased = protocols.grr(k, eps).estimate(np.repeat(np.arange(k), counts.astype(int)))
    if unbiased.min() >= 0:
        np.testing.assert_allclose(mle, unbiased, atol=1e-12)


def test_sue_likelihood_is_rappor_and_hr_sets_are_hadamard_rows():
    m = protocols.sue(7, 1.3)
    bits = m.sample(np.arange(7).repeat(3), privest.rng_for(2026, "sue"))
    np.testing.assert_allclose(np.log(m.likelihood(bits)), log_probability(bits.astype(np.uint8), 1.3).T, atol=1e-12)
    m = protocols.hr(11, 1.0)
    assert m.K == 16
    H = hadamard(16)
    np.testing.assert_array_equal(m.membership(np.arange(16)), (H[1:12] == 1).T)


def test_hash_is_xxh32_of_the_decimal_string():
    xxhash = pytest.importorskip("xxhash")
    rng = privest.rng_for(2026, "xxh32")
    values = np.concatenate([np.arange(1200), rng.integers(0, 10**15, 300)])
    seeds = rng.integers(0, 2**40, values.size)  # above 2^32: xxhash keeps the low 32 bits
    expected = [xxhash.xxh32(str(v).encode(), seed=int(s) % 2**32).intdigest() for v, s in zip(values, seeds,
                                                                                                  strict=True)]
    np.testing.assert_array_equal(protocols.xxh32_decimal(values, seeds), expected)
    table = protocols.xxh32._hash_table(np.array([0, 7, 2**32 - 1], dtype=np.uint32), 1200)
    np.testing.assert_array_equal(table[1], [xxhash.xxh32(str(v).encode(), seed=7).intdigest() for v in range(1200)])


# xxhash.xxh32(str(v).encode(), seed=s).intdigest() of the xxhash package (3.8.2), {(v, s): hash}: one value of each
# length 1, 2, 4, 5 digits (1 byte; 2 bytes; 1 word; 1 word and 1 byte), seeds 0 and 2^32 - 1 among them
_XXH32_KNOWN = {(0, 0): 0x48454CB2, (9, 7): 0x9225E5E2, (10, 2**32 - 1): 0x70E9CAC9, (1023, 123456789): 0x7678B3EC,
                (12344, 1): 0x709E40D8}


def _check_known_hashes(hash_table):
    """hash_table(seeds, k) against the xxhash package's values in _XXH32_KNOWN."""
    (values, seeds), expected = zip(*_XXH32_KNOWN, strict=True), list(_XXH32_KNOWN.values())
    table = hash_table(np.array(seeds, dtype=np.uint32), max(values) + 1)
    np.testing.assert_array_equal(table[np.arange(len(values)), values], expected)


def _numpy_hash_table(seeds, k, monkeypatch):
    """_hash_table with the compiled kernel hidden: numpy's broadcasting path."""
    with monkeypatch.context() as patch:
        patch.setattr(protocols.xxh32, "_kernel", None)
        return protocols.xxh32._hash_table(seeds, k)


@pytest.fixture(params=[True, False], ids=["vectors", "portable"])
def kernel_path(request):
    """The compiled kernel on its AVX2 path, then on its portable one (restored to AVX2 after the test)."""
    kernel = protocols.xxh32._kernel
    if kernel is None:
        pytest.skip("privest._kernel is not built")
    kernel.use_vectors(request.param)
    yield kernel
    kernel.use_vectors(True)


def test_compiled_hash_table_is_numpy_s_bit_for_bit(kernel_path, monkeypatch):
    rng = privest.rng_for(2026, "hash-table")
    seeds = np.concatenate([[0, 7, 2**32 - 1], rng.integers(0, 2**32, 13)]).astype(np.uint32)
    for k in (1, 9, 10, 11, 99, 100, 1001, 4096, 4097, 12345):  # every length to 5 digits, tiles of 4096
        np.testing.assert_array_equal(protocols.xxh32._hash_table(seeds, k),
                                      _numpy_hash_table(seeds, k, monkeypatch), err_msg=f"k = {k}")
    # 6 to 8 digits: a row of 10^7 + 1 values against xxh32_decimal at values across every boundary
    row = protocols.xxh32._hash_table(seeds[2:3], 10**7 + 1)[0]
    values = np.concatenate([10 ** np.arange(8)[:, None] + np.arange(-1, 2), rng.integers(0, 10**7, (1, 50))],
                            axis=None)
    values = values[(values >= 0) & (values <= 10**7)]
    np.testing.assert_array_equal(row[values], protocols.xxh32_decimal(values, 2**32 - 1))
    _check_known_hashes(protocols.xxh32._hash_table)


def test_hash_table_numpy_path_is_xxh32(monkeypatch):
    table = _numpy_hash_table(np.array([0, 7, 2**32 - 1], dtype=np.uint32), 1001, monkeypatch)
    np.testing.assert_array_equal(table, protocols.xxh32_decimal(np.arange(1001)[None, :],
                                                                  np.array([0, 7, 2**32 - 1])[:, None]))
    _check_known_hashes(lambda seeds, k: _numpy_hash_table(seeds, k, monkeypatch))


@pytest.mark.skipif(protocols.xxh32._kernel is None, reason="privest._kernel is not built")
def test_compiled_hash_table_refuses_bad_buffers():
    kernel = protocols.xxh32._kernel
    seeds = np.arange(3, dtype=np.uint32)
    with pytest.raises(ValueError, match=r"hash_table: out must be a C-contiguous uint32 array of at least 30 values"):
        kernel.hash_table(seeds, np.empty((3, 10), dtype=np.int64), 3, 10)
    with pytest.raises(ValueError, match=r"hash_table: seeds must be a C-contiguous uint32 array of at least 4"):
        kernel.hash_table(seeds, np.empty((4, 10), dtype=np.uint32), 4, 10)
    with pytest.raises(ValueError, match=r"hash_table: n must be >= 0 and k in \[1, 10\^15\].*got 3, 0"):
        kernel.hash_table(seeds, np.empty((3, 10), dtype=np.uint32), 3, 0)
    with pytest.raises(ValueError, match="read-only"):  # out must be writable
        kernel.hash_table(seeds, np.frombuffer(bytes(120), dtype=np.uint32), 3, 10)


def test_compiled_hash_members_are_numpy_s(kernel_path, monkeypatch):
    rng = privest.rng_for(2026, "hash-members")
    seeds = np.concatenate([[0, 7, 2**32 - 1], rng.integers(0, 2**32, 197)]).astype(np.uint32)
    for g in (1, 2, 3, 4, 7, 1000, 2**31 + 11, 2**32 - 1, 2**32):
        for k in (11, 4097):  # a tile of 4096 and one more value
            table = _numpy_hash_table(seeds, k, monkeypatch)
            # values: every row's hash of value 3 mod g (so that rows hold members), else uniform in [0, g)
            values = np.where(rng.random(seeds.size) < 0.5, table[:, 3].astype(np.int64) % g,
                              rng.integers(0, g, seeds.size))
            expected = (table.astype(np.int64) % g) == values[:, None]
            np.testing.assert_array_equal(protocols.xxh32._members(seeds, values, k, g), expected,
                                          err_msg=f"g = {g}, k = {k}")
            with monkeypatch.context() as patch:
                patch.setattr(protocols.xxh32, "_kernel", None)
                np.testing.assert_array_equal(protocols.xxh32._members(seeds, values, k, g), expected)


@pytest.mark.skipif(protocols.xxh32._kernel is None, reason="privest._kernel is not built")
def test_compiled_hash_members_refuse_bad_buffers():
    kernel = protocols.xxh32._kernel
    seeds, values, out = np.arange(3, dtype=np.uint32), np.zeros(3, dtype=np.int64), np.empty((3, 10), dtype=bool)
    with pytest.raises(ValueError, match=r"hash_members: values must be a C-contiguous int64 array of at least 3"):
        kernel.hash_members(seeds, values.astype(np.int32), out, 3, 10, 4)
    with pytest.raises(ValueError, match=r"hash_members: out must be a C-contiguous bool array of at least 30"):
        kernel.hash_members(seeds, values, out.view(np.uint8), 3, 10, 4)
    with pytest.raises(ValueError, match=r"hash_members: .*g in \[1, 2\^32\], got 3, 10, 0"):
        kernel.hash_members(seeds, values, out, 3, 10, 0)


def _group_members(group):
    """The membership rows (distinct reports x k) of a SetGroup (CSR) or a BitGroup (packed)."""
    if isinstance(group, privest.BitGroup):
        return np.unpackbits(group.bits, axis=1, count=group.k).astype(bool)
    members = np.zeros((group.counts.size, group.k), dtype=bool)
    members[np.repeat(np.arange(group.counts.size), np.diff(group.indptr)), group.indices] = True
    return members


@pytest.mark.parametrize("name", PROTOCOLS)
def test_group_support_and_storage_agree_with_the_reports(name):
    m = PROTOCOLS[name]
    rng = privest.rng_for(2026, "storage", name)
    reports = m.sample(rng.integers(0, K, 500), rng)
    member = m.membership(reports)
    np.testing.assert_array_equal(m.support(reports), member.sum(axis=0))
    group = m.group(reports)
    packed = name in ("sue", "oue", "ss") or m.packs_sets
    assert group.n == 500 and isinstance(group, privest.BitGroup if packed else privest.SetGroup)
    np.testing.assert_array_equal(group.counts @ _group_members(group), member.sum(axis=0))  # its sets, counted
    stored = m.from_arrays({key: np.asarray(v) for key, v in m.to_arrays(reports, "p0_").items()}, "p0_")
    np.testing.assert_array_equal(m.membership(stored), member)


def test_a_numpy_integer_k_is_taken_as_an_int():
    for name in protocols.NAMES:
        m = protocols.by_name(name, np.int64(11), 1.0)
        assert type(m.k) is int and m == protocols.by_name(name, 11, 1.0)
    assert protocols.hr(np.int64(11), 1.0).K == 16


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="eps"):
        protocols.oue(8, -1.0)
    with pytest.raises(ValueError, match="k must"):
        protocols.grr(1, 1.0)
    with pytest.raises(ValueError, match="secrets"):
        protocols.ss(8, 1.0).sample(np.array([8]), np.random.default_rng(0))
    with pytest.raises(ValueError, match="unknown protocol"):
        protocols.by_name("rappor2", 8, 1.0)
    with pytest.raises(ValueError, match="hashes"):
        protocols.olh(8, 1.0, hashes=0)
    with pytest.raises(ValueError, match="omega"):
        protocols.ss(8, 1.0).likelihood(np.ones((1, 8), dtype=bool))
    with pytest.raises(TypeError, match="groups"):
        plain_gibu([("not a protocol", np.ones(3))])
    with pytest.raises(ValueError, match="accelerate"):
        plain_gibu([(protocols.grr(3, 1.0), np.array([0, 1]))], accelerate="aitken")


@pytest.mark.parametrize("name", protocols.NAMES)
def test_eps_outside_the_stated_range_is_refused_naming_eps(name):
    top = protocols.OLH_EPS_MAX if name == "olh" else protocols.EPS_MAX
    for eps in (protocols.EPS_MIN * 0.999, top * (1 + 1e-9), 1e300):
        with pytest.raises(ValueError, match=r"^eps must be a number in \[1e-12, "):
            protocols.by_name(name, 8, eps)
    for eps in (protocols.EPS_MIN, top):
        assert protocols.by_name(name, 8, eps).eps == eps


def test_olh_refuses_a_g_beyond_the_32_bit_hash_and_works_at_its_largest_eps():
    """Issue 30: olh(k, 23) was accepted, and sample() raised OverflowError (g = 9744803448 > 2^32)."""
    with pytest.raises(ValueError, match=r"eps must .*2\^32.*xxh32.*got 23\.0"):
        protocols.olh(8, 23.0)
    m = protocols.olh(8, protocols.OLH_EPS_MAX)
    assert m.g == 2**32 and protocols.OLH_EPS_MAX == pytest.approx(22.1807, abs=1e-4)
    rng = privest.rng_for(2026, "olh top")
    reports = m.sample(np.repeat(np.arange(8), 200), rng)
    assert reports.values.max() < 2**32
    np.testing.assert_array_equal(m.membership(reports)[np.arange(1600), np.repeat(np.arange(8), 200)],
                                  m._hashed(protocols.xxh32_decimal(np.repeat(np.arange(8), 200), reports.seeds))
                                  == reports.values)
    assert np.all(np.isfinite(m.likelihood(reports))) and np.all(np.isfinite(m.estimate(reports)))


@pytest.mark.parametrize("name", protocols.NAMES)
def test_the_ends_of_the_eps_range_give_finite_likelihoods_and_estimates(name):
    """At eps = 1e-12 the gap p* - q* is ~1e-12/k (computed in closed form, not as a vanishing difference); at the
    top, the likelihood's low value stays positive (SUE's and SS's 1 - p once rounded to 0 above eps = 37)."""
    top = protocols.OLH_EPS_MAX if name == "olh" else protocols.EPS_MAX
    rng = privest.rng_for(2026, "eps ends", name)
    for k in (2, 9):
        for eps in (protocols.EPS_MIN, top):
            m = protocols.by_name(name, k, eps)
            assert 0 < m.low <= m.high and m.high / m.low == pytest.approx(math.exp(eps), rel=1e-9)
            gap = m.p_star - m.q_star if eps > 1 else m._gap
            assert m._gap == pytest.approx(gap, rel=1e-9) and m._gap > 0
            reports = m.sample(rng.integers(0, k, 300), rng)
            for value in (m.likelihood(reports), m.estimate(reports), m.variance(np.full(k, 1 / k), 300)):
                assert np.all(np.isfinite(value))
            for post in ("projection", "normalization"):
                try:
                    theta = m.estimate(reports, post)
                except ValueError as error:  # at eps = 1e-12 the raw estimate (noise ~1e12) may have no positive entry
                    assert post == "normalization" and "no positive entry" in str(error) and eps < 1
                    continue
                assert theta.min() >= 0 and theta.sum() == pytest.approx(1.0, abs=1e-12)
            theta = plain_gibu([(m, reports)], max_iter=50).theta
            assert theta.min() >= 0 and theta.sum() == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("name", ["grr", "blh", "olh", "hr"])
def test_a_protocol_packs_the_sets_that_hold_more_than_an_eighth_of_the_secrets_with_the_same_gibu(name, monkeypatch):
    from privest.protocols import base

    protocol = protocols.by_name(name, k=200, eps=1.0)
    secrets = np.random.default_rng(9).binomial(199, 0.3, size=3000)
    reports = protocol.sample(secrets, np.random.default_rng(10))
    group = protocol.group(reports)
    assert isinstance(group, privest.BitGroup) == protocol.packs_sets == (name != "grr")
    monkeypatch.setattr(base, "PACKED_SETS", 2.0)  # every protocol's sets as CSR
    sets = protocol.group(reports)
    assert isinstance(sets, privest.SetGroup) and not protocol.packs_sets
    packed, sparse = plain_gibu([group], delta=1e-12), plain_gibu([sets], delta=1e-12)
    np.testing.assert_allclose(packed.theta, sparse.theta, atol=1e-12)
    assert packed.iterations == sparse.iterations
    np.testing.assert_allclose(packed.interval().upper, sparse.interval().upper, atol=1e-9)
