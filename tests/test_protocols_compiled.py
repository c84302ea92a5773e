"""The compiled paths of the protocols' samplers and counts (privest/_kernel.c) against numpy's: local hashing's
support and pair hashes, Floyd's subsets, PCG64's words (and the Bernoulli words drawn from them a block at a
time) and SHE's Laplace ziggurat. Deterministic paths bit for bit; the ziggurat's noise also against the Laplace
distribution (Kolmogorov-Smirnov, its tail, its sign)."""

import numpy as np
import pytest
from scipy import stats

import privest
from privest import protocols
from privest.protocols import _laplace, packed, xxh32

KERNEL = xxh32._kernel
needs_kernel = pytest.mark.skipif(KERNEL is None, reason="privest._kernel is not built")


@pytest.fixture(params=["avx512", "avx2", "portable"])
def kernel_path(request):
    """The compiled kernel on its widest vector path, on AVX2, then portable (restored to the widest after)."""
    if KERNEL is None:
        pytest.skip("privest._kernel is not built")
    KERNEL.use_vectors(request.param != "portable")
    KERNEL.use_avx512_support(request.param == "avx512")
    yield KERNEL
    KERNEL.use_vectors(True)


def test_compiled_local_hashing_support_is_the_membership_column_sums(kernel_path, monkeypatch):
    rng = privest.rng_for(2026, "hash-support")
    for g in (1, 2, 3, 7, 149, 1000, 2**31 + 11, 2**32 - 1, 2**32):
        for n, k in ((1, 11), (13, 74), (2051, 101), (40, 4097)):  # a block of 2048 and 3 more; a tile and 1 more
            seeds = rng.integers(0, 2**32, n).astype(np.uint32)
            table = xxh32._hash_table(seeds, k).astype(np.int64) % g
            # half the users report the hash of value 3 (so that the counts are not all 0), half a uniform value
            values = np.where(rng.random(n) < 0.5, table[:, 3], rng.integers(0, g, n))
            expected = (table == values[:, None]).sum(axis=0)
            np.testing.assert_array_equal(xxh32._support(seeds, values, k, g), expected, err_msg=f"g {g}, n {n}")


@pytest.mark.parametrize("name", ["blh", "olh"])
def test_local_hashing_support_is_the_same_compiled_or_not(name, monkeypatch):
    m = protocols.by_name(name, 74, 2.5)
    reports = m.sample(np.arange(3001) % 74, privest.rng_for(2026, "lh support", name))
    compiled = m.support(reports)
    monkeypatch.setattr(xxh32, "_kernel", None)
    np.testing.assert_array_equal(compiled, m.support(reports))
    np.testing.assert_array_equal(compiled, m.membership(reports).sum(axis=0))


@needs_kernel
def test_compiled_hash_support_refuses_values_outside_g():
    seeds, counts = np.arange(3, dtype=np.uint32), np.zeros(10, dtype=np.int64)
    with pytest.raises(ValueError, match=r"hash_support: values must lie in \[0, g\), got 4"):
        KERNEL.hash_support(seeds, np.array([0, 1, 4]), counts, 3, 10, 4)
    with pytest.raises(ValueError, match=r"hash_support: counts must be a C-contiguous int64 array of at least 10"):
        KERNEL.hash_support(seeds, np.zeros(3, dtype=np.int64), counts[:5], 3, 10, 4)


def test_pair_hashes_are_the_same_compiled_or_not(monkeypatch):
    rng = privest.rng_for(2026, "hash-values")
    values = np.concatenate([np.arange(1200), 10 ** np.arange(16)[:-1] - 1, rng.integers(0, 10**15, 500)])
    seeds = rng.integers(0, 2**40, values.size)
    compiled = protocols.xxh32_decimal(values, seeds)
    broadcast = protocols.xxh32_decimal(values[:, None], seeds[None, :7])
    monkeypatch.setattr(xxh32, "_kernel", None)
    np.testing.assert_array_equal(compiled, protocols.xxh32_decimal(values, seeds))
    np.testing.assert_array_equal(broadcast, protocols.xxh32_decimal(values[:, None], seeds[None, :7]))


@pytest.mark.parametrize(("k", "eps"), [(2, 0.5), (9, 1.0), (74, 0.5), (74, 1.0), (74, 2.0), (300, 6.0)])
def test_floyd_subsets_are_the_same_compiled_or_not(k, eps, monkeypatch):
    m = protocols.ss(k, eps)
    assert m.omega <= packed._FLOYD_UP_TO
    secrets = privest.rng_for(2026, "floyd secrets", k).integers(0, k, 5003)
    compiled = m.sample(secrets, privest.rng_for(2026, "floyd", k, eps), packed=True)
    monkeypatch.setattr(packed, "_kernel", None)
    np.testing.assert_array_equal(compiled.bits, m.sample(secrets, privest.rng_for(2026, "floyd", k, eps),
                                                          packed=True).bits)
    assert np.all(compiled.set_counts() == m.omega)


@needs_kernel
def test_compiled_floyd_refuses_draws_beyond_their_step():
    draws, size, secrets = np.zeros((2, 3), dtype=np.uint32), np.full(3, 2), np.zeros(3, dtype=np.int64)
    draws[1, 2] = 9  # step j = 8 of k = 10: draws in [0, 8]
    with pytest.raises(ValueError, match=r"floyd_subsets: draws of step j must lie in \[0, j\]"):
        KERNEL.floyd_subsets(draws, size, secrets, np.zeros((3, 2), dtype=np.uint8), 3, 2, 2, 10)


@pytest.mark.parametrize("size", [0, 1, 3, 4, 5, 8, 1001])
def test_compiled_pcg64_words_are_random_raw_s_and_leave_the_same_state(size):
    ours, theirs = np.random.default_rng(size), np.random.default_rng(size)
    ours.random(3), theirs.random(3)
    np.testing.assert_array_equal(_laplace._words(ours, size), theirs.bit_generator.random_raw(size))
    assert ours.bit_generator.state == theirs.bit_generator.state
    np.testing.assert_array_equal(ours.random(5), theirs.random(5))


def test_laplace_noise_is_the_same_compiled_or_not_and_other_bit_generators_work(monkeypatch):
    compiled = _laplace.laplace(np.random.default_rng(7), (3001, 74), 0.8)
    philox = _laplace.laplace(np.random.Generator(np.random.Philox(7)), (1000,), 0.8)
    monkeypatch.setattr(_laplace, "_kernel", None)
    monkeypatch.setattr(packed, "_kernel", None)
    np.testing.assert_array_equal(compiled.view(np.uint64),
                                  _laplace.laplace(np.random.default_rng(7), (3001, 74), 0.8).view(np.uint64))
    np.testing.assert_array_equal(philox, _laplace.laplace(np.random.Generator(np.random.Philox(7)), (1000,), 0.8))


def test_laplace_ziggurat_layers_have_equal_areas_and_close_at_height_one():
    width, accept, heights, r = _laplace._tables()
    edges = np.concatenate([[r], width[2:] * 2.0**53, [0.0]])  # x_0 = r, x_1 .. x_254, x_255 = 0
    v = (r + 1) * np.exp(-r)
    np.testing.assert_allclose(width[0] * 2.0**53 * heights[0], v, rtol=1e-15)  # the base strip's virtual width
    np.testing.assert_allclose(edges[:-1] * np.diff(heights), v, rtol=1e-13)  # layers 1..255
    np.testing.assert_allclose(np.exp(-edges), heights, rtol=1e-14, atol=0)
    assert heights[-1] == 1.0 and accept[-1] == 0 and np.all(np.diff(edges) < 0)


def test_laplace_noise_is_laplace_with_a_fair_sign_and_an_exponential_tail():
    noise = _laplace.laplace(privest.rng_for(2026, "laplace"), (2_000_000,), 1.0)
    assert stats.kstest(noise, "laplace").pvalue > 1e-4
    assert abs((noise > 0).mean() - 0.5) < 5 * 0.5 / np.sqrt(noise.size)
    beyond = np.abs(noise[np.abs(noise) > 6.0]) - 6.0  # the tail past r = 7.7 and the top layers' wedges
    assert stats.kstest(beyond, "expon").pvalue > 1e-4
    assert abs(beyond.size / noise.size - np.exp(-6.0)) < 5 * np.sqrt(np.exp(-6.0) / noise.size)


def test_she_reports_are_reproducible():
    m = protocols.she(20, 1.0)
    secrets = np.arange(500) % 20
    first = m.sample(secrets, privest.rng_for(2026, "she twice"))
    np.testing.assert_array_equal(first, m.sample(secrets, privest.rng_for(2026, "she twice")))


@pytest.mark.parametrize("k", [1, 7, 74, 1025])
def test_column_counts_are_the_same_compiled_or_not(k, monkeypatch):
    bits = privest.rng_for(2026, "column counts", k).random((3001, k)) < 0.3
    reports = packed.PackedBits(np.packbits(bits, axis=1), k)
    np.testing.assert_array_equal(reports.column_counts(), bits.sum(axis=0))
    monkeypatch.setattr(packed, "_kernel", None)
    np.testing.assert_array_equal(reports.column_counts(), bits.sum(axis=0))


@pytest.mark.parametrize("q", [2.0**-40, 0.007, 0.123456789, 1 / 3, 0.5, 0.99])
@pytest.mark.parametrize("size", [0, 1, 5, 1000, 56_528])
def test_bernoulli_words_are_the_same_compiled_or_not(q, size, monkeypatch):
    ours, theirs = np.random.default_rng(3), np.random.default_rng(3)
    compiled = packed.bernoulli_words(q, size, ours)
    monkeypatch.setattr(packed, "_kernel", None)
    np.testing.assert_array_equal(compiled, packed.bernoulli_words(q, size, theirs))
    assert ours.bit_generator.state == theirs.bit_generator.state


@needs_kernel
@pytest.mark.parametrize("q", [0.3, 0.5, 0.75, 0.999])
def test_compiled_bernoulli_words_drawn_in_blocks_are_numpy_s_across_every_block_boundary(q, monkeypatch):
    # the kernel draws a step's random words BERNOULLI_DRAWS at a time into one reused buffer: a word dropped or drawn
    # twice at a block's edge shifts every later word (and the generator's state) against numpy's one draw a step.
    # Sizes on each side of one, two and three blocks: the first steps draw one word a word, so their counts sit on
    # the edges; from step _FIRST_CHECK on the words left (about 87% of them, then fewer) cross edges at any place.
    block = KERNEL.BERNOULLI_DRAWS
    sizes = [0, 1, block - 1, block, block + 1, 2 * block, 3 * block + 17]
    compiled = [packed.bernoulli_words(q, size, np.random.default_rng([size, 1])) for size in sizes]
    states = []
    for size in sizes:
        rng = np.random.default_rng([size, 1])
        packed.bernoulli_words(q, size, rng)
        states.append(rng.bit_generator.state)
    monkeypatch.setattr(packed, "_kernel", None)
    for size, words, state in zip(sizes, compiled, states, strict=True):
        rng = np.random.default_rng([size, 1])
        np.testing.assert_array_equal(words, packed.bernoulli_words(q, size, rng), err_msg=f"size {size}")
        assert rng.bit_generator.state == state, f"size {size}"
    with pytest.raises(ValueError, match=r"bernoulli_pcg64: scratch must be a C-contiguous uint64 array of at least 9"):
        KERNEL.bernoulli_pcg64(np.empty(9, dtype=np.uint64), np.empty(8, dtype=np.uint64), 9, 2**52, 4, 0, 0, 0, 1)


@pytest.mark.skipif(privest.protocols.packed._kernel is None, reason="privest._kernel is not built")
def test_compiled_pcg64_draws_hold_the_bit_generator_s_lock():
    # numpy's draws hold the bit generator's lock, so threads sharing a generator each see the state advance once; the
    # compiled words (read the state, advance it in C, write it back) must hold it too: a draw waits while it is held.
    import threading

    rng = np.random.default_rng(3)
    done = threading.Event()
    with rng.bit_generator.lock:
        worker = threading.Thread(target=lambda: (_laplace._words(rng, 16), packed.bernoulli_words(0.3, 16, rng),
                                                  done.set()))
        worker.start()
        assert not done.wait(0.3)  # blocked on the lock
    worker.join(10)
    assert done.is_set()
    expected = np.random.default_rng(3)
    expected.bit_generator.random_raw(16)
    packed.bernoulli_words(0.3, 16, expected)
    assert rng.bit_generator.state == expected.bit_generator.state
