"""GIBU on bit-packed set reports (``privest.BitGroup``, ``privest.estimators._bits``): the byte-sliced pass against
the sparse path of ``SetGroup`` and the dense RAPPOR matrix, with and without the compiled kernel; the grouping of
packed rows; the kernel's log."""

import os

import numpy as np
import pytest
from papers_ibu import plain_gibu  # the papers' IBU: the engine pinned down here

import privest
from privest import protocols
from privest.estimators import _bits, _iteration
from privest.groups import Group
from privest.protocols.base import Protocol
from privest.rappor import RapporReports, _distinct_packed, _packed_sizes, log_probability

_COMPILED = pytest.mark.skipif(_bits._kernel is None, reason="privest._kernel is not built")
KERNELS = ["numpy", pytest.param("compiled", marks=_COMPILED), pytest.param("compiled sums", marks=_COMPILED)]


@pytest.fixture
def kernel(request, monkeypatch):
    """Every set-valued group on its sparse or bit path (no dense matrix), the bit pass in numpy, compiled with
    histograms (bits_pass) or compiled with direct sums (bits_sums), whatever the number of bytes a row."""
    monkeypatch.setattr(_iteration, "_DENSE_SETS", 0)
    if request.param == "numpy":
        monkeypatch.setattr(_bits, "_kernel", None)
    monkeypatch.setattr(_bits, "_SUMS_BYTES", 1 if request.param == "compiled sums" else 10**9)
    return request.param


def _reports(name: str, k: int, n: int, seed: str, concentration: float = 1.0):
    protocol = protocols.by_name(name, k, 1.0)
    rng = privest.rng_for(2026, "test_bits", seed, name, k)
    return protocol, protocol.sample(rng.choice(k, n, p=rng.dirichlet(np.full(k, concentration))), rng)


def _dense_rappor(reports: RapporReports) -> Group:
    """RAPPOR's group as it was before BitGroup: G = exp(log P - its column maximum), the column scales."""
    log_p = log_probability(reports.bits, reports.eps)
    return Group(np.exp(log_p - log_p.max(axis=0)), reports.counts.astype(np.float64), log_p.max(axis=0))


def _assert_same_fit(bits: privest.IbuResult, reference: privest.IbuResult) -> None:
    np.testing.assert_allclose(bits.theta, reference.theta, rtol=0, atol=1e-12)
    assert bits.iterations == reference.iterations and bits.capped == reference.capped
    assert bits.log_likelihood == pytest.approx(reference.log_likelihood, abs=1e-12)


@pytest.mark.parametrize("kernel", KERNELS, indirect=True)
@pytest.mark.parametrize("name", ["grr", "oue", "ss"])  # GRR: a sparse SetGroup; OUE, SS: BitGroups
def test_gibu_with_set_reports_floors_theta_and_nothing_else_changes(name, kernel, monkeypatch):
    # A geometric matrix group drives theta's tails below THETA_FLOOR beside a few hundred set reports: the floored
    # entries become 0, the others, L and the iteration count keep the bits of the iteration without the floor.
    k = 100
    rng = privest.rng_for(2026, "test_bits", "floor", name)
    A = privest.geometric(k, 0.236)
    theta = np.bincount(rng.binomial(k - 1, 0.5, 10**6), minlength=k) / 10**6
    protocol = protocols.by_name(name, k, 1.0)
    groups = [privest.matrix_group(A, rng.multinomial(10**5, theta @ A).astype(float)),
              protocol.group(protocol.sample(rng.choice(k, 300, p=theta), rng))]
    floored = plain_gibu(groups, delta=1e-12, max_iter=2500)
    monkeypatch.setattr(_iteration, "THETA_FLOOR", 0.0)
    unfloored = plain_gibu(groups, delta=1e-12, max_iter=2500)
    below = unfloored.theta < 2.0**-511
    assert below.sum() >= 5 and (unfloored.theta[below] > 0).any()  # the case: entries that went below the floor
    assert (floored.theta[below] == 0).all() and np.array_equal(floored.theta[~below], unfloored.theta[~below])
    assert (floored.iterations, floored.log_likelihood) == (unfloored.iterations, unfloored.log_likelihood)


@pytest.mark.parametrize("kernel", KERNELS, indirect=True)
@pytest.mark.parametrize("name", ["sue", "oue", "ss"])
@pytest.mark.parametrize("k", [11, 37])  # 11: 2^11 reports for 3000 users (counts > 1); neither a multiple of 8
def test_gibu_on_a_bit_group_equals_the_sparse_set_group(name, k, kernel):
    protocol, reports = _reports(name, k, 3000, "sparse")
    group, sparse = protocol.group(reports), Protocol.group(protocol, reports)
    assert isinstance(group, privest.BitGroup) and group.n == sparse.n == 3000
    assert k > 11 or group.counts.max() > 1
    for delta, max_iter in ((1e-7, 10_000), (1e-300, 40)):
        _assert_same_fit(plain_gibu([group], delta=delta, max_iter=max_iter),
                         plain_gibu([sparse], delta=delta, max_iter=max_iter))


@pytest.mark.parametrize("kernel", KERNELS, indirect=True)
def test_gibu_on_rappor_bit_groups_mixed_with_a_matrix_and_olh_equals_the_dense_groups(kernel):
    k = 13
    rng = privest.rng_for(2026, "test_bits", "rappor mix")
    theta = rng.dirichlet(np.ones(k))
    rappor = [RapporReports.from_bits(privest.sampling.rappor(rng.choice(k, 2000, p=theta), k, eps, rng), eps)
              for eps in (0.3, 1.0, 2.5)]
    krr = privest.krr(k, 1.5)
    krr_group = privest.matrix_group(krr, privest.sample_counts(krr, rng.multinomial(1500, theta), rng))
    olh = protocols.olh(k, 1.0)
    olh_group = olh.group(olh.sample(rng.choice(k, 1000, p=theta), rng))
    sue, sue_reports = _reports("sue", k, 1000, "mix")
    bits = [privest.rappor_group(r) for r in rappor] + [sue.group(sue_reports)]
    dense = [_dense_rappor(r) for r in rappor] + [Protocol.group(sue, sue_reports)]
    assert all(isinstance(g, privest.BitGroup) for g in bits)
    for delta in (1e-9, 1e-300):
        _assert_same_fit(plain_gibu([krr_group, *bits, olh_group], delta=delta, max_iter=300),
                         plain_gibu([krr_group, *dense, olh_group], delta=delta, max_iter=300))


def test_rappor_bit_group_holds_the_lemmas_likelihood():
    k, eps = 10, 1.3
    rng = privest.rng_for(2026, "test_bits", "rappor lemma")
    reports = RapporReports.from_bits(privest.sampling.rappor(rng.integers(0, k, 400), k, eps, rng), eps)
    group = privest.rappor_group(reports)
    member = np.unpackbits(group.bits, axis=1, count=k).T
    likelihood = np.exp(group.log_scale) * np.where(member, group.high, group.low)
    np.testing.assert_allclose(likelihood, np.exp(log_probability(reports.bits, eps)), rtol=1e-12)
    np.testing.assert_array_equal(group.counts, reports.counts)


@pytest.mark.parametrize("kernel", KERNELS, indirect=True)
def test_intervals_and_squarem_on_a_bit_group_equal_the_set_groups(kernel):
    # an MLE inside the simplex (theta near uniform, 20,000 users): SQUAREM's extrapolations amplify the two paths'
    # rounding along the flat directions of an MLE on the boundary
    protocol, reports = _reports("oue", 21, 20_000, "interval", concentration=20.0)
    group, sparse = protocol.group(reports), Protocol.group(protocol, reports)
    fast, reference = (plain_gibu([g], delta=1e-10, accelerate="squarem") for g in (group, sparse))
    _assert_same_fit(fast, reference)
    theta = np.full(21, 1 / 21)
    np.testing.assert_allclose(fast.likelihood.information(theta), reference.likelihood.information(theta),
                               rtol=1e-11)
    interval, expected = fast.interval(), reference.interval()
    np.testing.assert_allclose(interval.lower, expected.lower, atol=1e-10)
    np.testing.assert_allclose(interval.upper, expected.upper, atol=1e-10)


@pytest.mark.parametrize("k", [3, 20, 64, 1030])
def test_distinct_packed_rows_and_their_sizes_are_numpys(k, monkeypatch):
    rng = privest.rng_for(2026, "test_bits", "distinct", k)
    rows = rng.random((3000, k)) < 0.3
    rows[1000:2000] = rows[:1000]  # every row of the first thousand twice
    packed = np.packbits(rows, axis=1)
    expected, expected_counts = np.unique(packed, axis=0, return_counts=True)
    unique, counts = _distinct_packed(packed)
    order = np.lexsort(unique.T[::-1])
    np.testing.assert_array_equal(unique[order], expected)
    np.testing.assert_array_equal(counts[order], expected_counts)
    np.testing.assert_array_equal(_packed_sizes(packed), rows.sum(axis=1))
    from privest import rappor  # every key equal: the collision check falls back to comparing whole rows
    monkeypatch.setattr(rappor, "_row_keys", lambda p: (None, np.zeros(p.shape[0], dtype=np.uint64)))
    unique, counts = _distinct_packed(packed)
    np.testing.assert_array_equal(unique, expected)
    np.testing.assert_array_equal(counts, expected_counts)


def test_a_bit_group_of_other_k_and_an_ss_report_of_other_size_are_refused():
    protocol, reports = _reports("ss", 12, 50, "refused")
    other, other_reports = _reports("ss", 13, 50, "refused")
    with pytest.raises(ValueError, match="k = 12"):
        plain_gibu([protocol.group(reports), other.group(other_reports)])
    reports = reports.copy()
    reports[0, :] = True
    with pytest.raises(ValueError, match="omega"):
        protocol.group(reports)


@_COMPILED
@pytest.mark.parametrize("k", [1, 7, 8, 63, 64, 65, 200, 512, 520, 1000, 1024])
@pytest.mark.parametrize("m", [1100, 37])
def test_compiled_direct_sums_are_numpys_pass_on_every_path(k, m):
    # 1100 rows: two whole blocks of 512 and a last one of 76 (not a whole group of 8); 37 rows: one vector of 32 and
    # a group of 5; all-zero and all-one rows; weights from counts up to 40; the sums added to what the array holds.
    # Paths: portable C, AVX2 (the AVX-512 copy where the CPU has it), AVX-512 nibble lookups (where B % 8 == 0)
    rng = privest.rng_for(2026, "test_bits", "direct sums", k, m)
    B, low, gap = (k + 7) // 8, 0.2, 1.7
    rows = rng.random((m, k)) < rng.uniform(0.0, 1.0, (m, 1))
    rows[[0, m // 2, m - 1]], rows[[1, m // 2 + 1, m - 2]] = False, True
    bits, counts = np.packbits(rows, axis=1), rng.integers(1, 41, m)
    w, theta = counts / counts.sum(), rng.dirichlet(np.ones(k))
    N = _bits.nibble_tables(theta, B)
    T, H = _bits.byte_tables(N), np.zeros((B, 256))
    np.testing.assert_allclose(T, _bits.bit_tables(theta, B), rtol=0, atol=1e-15)  # the same tables, other rounding
    numpy_L, numpy_R = _bits._numpy_pass(bits, w, T, H, low, gap)
    expected = _bits._fold(H, k)
    np.testing.assert_allclose(expected, (w / (low + gap * (rows @ theta)) * gap) @ rows, rtol=1e-12)
    histograms_L, histograms_R = _bits._kernel.bits_pass(bits, w, T, np.zeros((B, 256)), m, B, low, gap)
    kernel, outputs, paths = _bits._kernel, [], set()
    try:
        for vectors, nibbles in ((False, False), (True, False), (True, True), (True, True)):
            kernel.use_vectors(vectors)
            kernel.use_nibble_lookups(nibbles)
            paths.add(kernel.bits_sums_path())
            sums = np.ones(8 * B)
            L, R = kernel.bits_sums(bits, w, N, sums, m, B, low, gap)
            assert (L, R) == (histograms_L, histograms_R)  # the same forward sums in the same order
            assert L == pytest.approx(numpy_L, rel=1e-12) and R == pytest.approx(numpy_R, rel=1e-12)
            np.testing.assert_allclose(sums[:k] - 1, expected, rtol=1e-12, atol=1e-15)
            np.testing.assert_array_equal(sums[k:], 1.0)  # no bits past k: nothing added
            outputs.append(sums)
    finally:
        kernel.use_vectors(True)
    assert kernel.bits_sums_path() in paths and "portable" in paths
    for output in outputs[1:]:  # every path the same bits, and the same on every run
        np.testing.assert_array_equal(outputs[0], output)


@_COMPILED
@pytest.mark.parametrize("k", [3, 20, 45, 60, 70])  # B = 1, 3, 6, 8 (no short block: carry unused), 9
def test_carried_histograms_give_the_same_bits(k):
    # sorted distinct rows (long runs in the leading bytes) and the same rows shuffled (runs of 1), 700 rows: two
    # blocks of 256 and a short one; every position carried, none, and the mask _Bits finds
    rng = privest.rng_for(2026, "test_bits", "carried", k)
    rows = np.unique(rng.random((700, k)) < 0.5, axis=0)
    for order in (np.arange(rows.shape[0]), rng.permutation(rows.shape[0])):
        bits = np.ascontiguousarray(np.packbits(rows[order], axis=1))
        m, B = bits.shape
        w = rng.integers(1, 9, m) / m
        T = _bits.bit_tables(rng.dirichlet(np.ones(k)), B)
        plain = np.full((B, 256), 0.25)
        expected = _bits._kernel.bits_pass(bits, w, T, plain, m, B, 0.3, 1.1)
        for carry in ((1 << min(B, 64)) - 1, _bits._repeating(bits), 0):
            H = np.full((B, 256), 0.25)
            assert _bits._kernel.bits_pass(bits, w, T, H, m, B, 0.3, 1.1, carry) == expected
            np.testing.assert_array_equal(H, plain)
    if k == 20:  # 4,000 sorted distinct rows: the first byte repeats in 15 rows of 16, the third (4 bits) rarely
        sorted_bits = np.packbits(np.unique(rng.random((4000, k)) < 0.5, axis=0), axis=1)
        assert _bits._repeating(sorted_bits) == 1


@pytest.mark.skipif(_bits._kernel is None, reason="privest._kernel is not built")
def test_the_kernels_log_is_within_one_ulp_and_its_paths_give_the_same_bits():
    rng = privest.rng_for(2026, "test_bits", "log")
    x = np.concatenate([np.exp(rng.uniform(-700, 700, 10**5)), rng.uniform(0.3, 3.0, 10**5),
                        1 + rng.uniform(-1e-6, 1e-6, 10**4), [1.0, 2.0, 0.5, np.sqrt(2), np.sqrt(0.5), 5e-324]])
    kernel, outputs = _bits._kernel, []
    try:
        for vectors in (False, True):
            kernel.use_vectors(vectors)
            out = np.empty_like(x)
            kernel.log_values(x, out, x.size)
            outputs.append(out)
    finally:
        kernel.use_vectors(True)
    expected = np.log(x)
    assert np.max(np.abs(outputs[1] - expected) / np.spacing(np.abs(expected))) <= 1.0
    np.testing.assert_array_equal(outputs[0], outputs[1])
    # a block holding numbers that are not positive normal ones: libm's log for those, wherever they sit in it
    special = np.array([0.0, np.inf, np.nan, 1e-310, 2.2250738585072014e-308, np.finfo(float).max, -1.0])
    with np.errstate(all="ignore"):
        for position in (0, 3, 255, 299):
            x = rng.uniform(0.3, 3.0, 300)
            x[position:position + special.size] = special[: 300 - position]
            out = np.empty_like(x)
            kernel.log_values(x, out, x.size)
            np.testing.assert_array_equal(out[position:position + special.size], np.log(special[: 300 - position]))


@_COMPILED
def test_gibu_on_wide_bit_reports_gives_the_same_bytes_on_every_kernel_path():
    # 400 secrets: 50 bytes a row, where GIBU takes the direct sums on every path (a result must not depend on the
    # CPU it was computed on); 512 secrets: 64 bytes, where the AVX-512 nibble path takes them where the CPU has it
    results, paths = [], set()
    for k in (400, 512):
        protocol, reports = _reports("sue", k, 3000, "either path")
        fits = []
        try:
            for vectors, nibbles in ((False, False), (True, False), (True, True)):
                _bits._kernel.use_vectors(vectors)
                _bits._kernel.use_nibble_lookups(nibbles)
                paths.add(_bits._kernel.bits_sums_path())
                fits.append(plain_gibu([protocol.group(reports)], delta=1e-10, max_iter=300))
        finally:
            _bits._kernel.use_vectors(True)
        results.append(fits)
    assert "portable" in paths
    for fits in results:
        for fit in fits[1:]:
            assert fit.iterations == fits[0].iterations
            np.testing.assert_array_equal(fit.theta, fits[0].theta)
            assert fit.log_likelihood == fits[0].log_likelihood


@_COMPILED
def test_direct_sums_give_the_same_bytes_on_any_number_of_threads(monkeypatch):
    # chunks of 700 rows (3,000 rows: 5 chunks, the last short) over two groups of 512 secrets, on 1, 2 and 3 threads;
    # a bad PRIVEST_THREADS is named
    monkeypatch.setattr(_bits, "CHUNK_ROWS", 700)
    groups = []
    for name in ("oue", "ss"):
        protocol, reports = _reports(name, 512, 3000, "threads")
        groups.append(protocol.group(reports))
    assert sum(g.counts.size for g in groups) > 2 * 700
    fits = []
    for threads in ("1", "2", "3"):
        monkeypatch.setenv("PRIVEST_THREADS", threads)
        fits.append(plain_gibu(groups, delta=1e-10, max_iter=200))
    for fit in fits[1:]:
        assert fit.iterations == fits[0].iterations
        np.testing.assert_array_equal(fit.theta, fits[0].theta)
    monkeypatch.delenv("PRIVEST_THREADS")  # the default: every core this process may use
    assert _bits.threads_from_environment() == len(os.sched_getaffinity(0))
    np.testing.assert_array_equal(plain_gibu(groups, delta=1e-10, max_iter=200).theta, fits[0].theta)
    for bad in ("0", "two", "-1", "\u00b2", "\u0663", "100000"):  # superscript two and Arabic-Indic three are digits
        monkeypatch.setenv("PRIVEST_THREADS", bad)
        with pytest.raises(ValueError, match="PRIVEST_THREADS must be a whole number from 1 to 4096"):
            plain_gibu(groups, delta=1e-10, max_iter=5)
