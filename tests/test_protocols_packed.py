"""Bit-packed reports (privest.protocols.PackedBits) and the samplers that draw them (privest.protocols.packed):
every protocol method gives the same on packed and bool reports, the storage layout is unchanged, and the samplers'
distributions at k = 1024 (set sizes, each position's frequency) and of the Bernoulli words (rate, independence of
neighbouring bits) are the definitions'. The joint distribution of whole reports at small k is tested against the
likelihood in tests/test_protocols.py."""

import dataclasses
import math

import numpy as np
import pytest
from scipy import stats

import privest
from privest import protocols
from privest.protocols import packed


def bit_protocols(k, eps):
    return [protocols.sue(k, eps), protocols.oue(k, eps), protocols.ss(k, eps)]


@pytest.mark.parametrize("m", bit_protocols(13, 1.0), ids=["sue", "oue", "ss"])
def test_every_method_gives_the_same_on_packed_and_bool_reports(m):
    secrets = privest.rng_for(2026, "packed secrets").integers(0, 13, 700)
    bits = m.sample(secrets, privest.rng_for(2026, "packed", m.name))
    reports = m.sample(secrets, privest.rng_for(2026, "packed", m.name), packed=True)
    assert isinstance(reports, protocols.PackedBits) and isinstance(bits, np.ndarray) and bits.dtype == bool
    np.testing.assert_array_equal(reports.unpack(), bits)  # the same draws
    np.testing.assert_array_equal(np.asarray(reports), bits)
    assert len(reports) == m.count(reports) == 700 and reports.shape == (700, 13)
    for method in ("membership", "support", "likelihood", "log_scale", "estimate", "estimate_variance", "_packed"):
        np.testing.assert_array_equal(getattr(m, method)(reports), getattr(m, method)(bits), err_msg=method)
    np.testing.assert_array_equal(m.interval(reports).upper, m.interval(bits).upper)
    np.testing.assert_array_equal(m.estimate(reports, "projection"), m.estimate(bits, "projection"))
    group, from_bits = m.group(reports), m.group(bits)
    assert type(group) is type(from_bits)
    for field in dataclasses.fields(group):  # a SetGroup's sets or a BitGroup's bytes: every field equal
        np.testing.assert_array_equal(getattr(group, field.name), getattr(from_bits, field.name), err_msg=field.name)
    stored = m.to_arrays(reports, "p0_")
    assert list(stored) == ["p0_bits"]
    np.testing.assert_array_equal(stored["p0_bits"], m.to_arrays(bits, "p0_")["p0_bits"])  # the same file layout
    np.testing.assert_array_equal(stored["p0_bits"], np.packbits(bits, axis=1))
    back = m.from_arrays(stored, "p0_")
    assert isinstance(back, protocols.PackedBits)
    np.testing.assert_array_equal(back.bits, reports.bits)
    np.testing.assert_array_equal(reports[10:20].unpack(), bits[10:20])
    np.testing.assert_array_equal(reports[np.array([5, 1])].unpack(), bits[[5, 1]])
    np.testing.assert_array_equal(reports[3].unpack(), bits[3:4])


def test_packed_bits_counts_on_bytes_equal_the_bool_sums():
    rng = privest.rng_for(2026, "packed counts")
    for k in (1, 7, 8, 9, 300):
        bits = rng.random((5000, k)) < 0.3
        reports = protocols.PackedBits(np.packbits(bits, axis=1), k)
        np.testing.assert_array_equal(reports.column_counts(), bits.sum(axis=0))
        np.testing.assert_array_equal(reports.set_counts(), bits.sum(axis=1))


def test_packed_bits_refuses_bad_input_naming_it():
    with pytest.raises(TypeError, match=r"^bits must be a uint8 array"):
        protocols.PackedBits(np.zeros((2, 2), dtype=bool), 10)
    with pytest.raises(ValueError, match=r"^bits must have shape \(n, 2\)"):
        protocols.PackedBits(np.zeros((2, 3), dtype=np.uint8), 10)
    with pytest.raises(ValueError, match="padding bits after bit 9"):
        protocols.PackedBits(np.full((2, 2), 255, dtype=np.uint8), 10)
    with pytest.raises(ValueError, match="k = 16 bits"):
        protocols.sue(16, 1.0).estimate(protocols.PackedBits(np.zeros((2, 2), dtype=np.uint8), 10))
    with pytest.raises(ValueError, match="omega"):
        protocols.ss(8, 1.0).likelihood(protocols.PackedBits(np.zeros((2, 1), dtype=np.uint8), 8))
    with pytest.raises(TypeError, match=r"^packed must be True or False, got 'yes'"):
        protocols.oue(16, 1.0).sample(np.zeros(3, dtype=int), privest.rng_for(2026, "flag"), packed="yes")
    with pytest.raises(ValueError, match=r"^arrays\['p0_bits'\] must have shape \(n, 2\)"):
        protocols.oue(16, 1.0).from_arrays({"p0_bits": np.zeros((3, 1), dtype=np.uint8)}, "p0_")


@pytest.mark.parametrize("q", [0.3, 0.375, 1 / (math.e + 1), 0.0, 1.0])
def test_bernoulli_words_bits_have_rate_q_and_neighbours_are_independent(q):
    """10^5 words (6.4 * 10^6 bits): the rate within 5 standard errors of ceil(q 2^53) / 2^53, and the four joint
    values of each bit and the next (lanes 0..62 of a word) uniform-independent by a chi-square test."""
    words = packed.bernoulli_words(q, 100_000, privest.rng_for(2026, "bernoulli words", q))
    bits = np.unpackbits(words.view(np.uint8)).reshape(-1, 64)
    rate = math.ceil(q * 2**53) / 2**53
    assert abs(bits.mean() - rate) <= 5 * math.sqrt(rate * (1 - rate) / bits.size)
    if 0 < q < 1:
        pairs = np.bincount((2 * bits[:, :-1] + bits[:, 1:]).ravel(), minlength=4)
        expected = pairs.sum() * np.array([(1 - q) ** 2, (1 - q) * q, q * (1 - q), q**2])
        assert stats.chisquare(pairs, expected).pvalue > 1e-4


def test_bernoulli_words_of_a_tiny_q_are_the_uniforms_grid():
    """q below 2^-53: rng.random() < q holds only for 0.0, with probability 2^-53; the words' bits as well (none set
    in 6.4 * 10^5), and a q of exactly 2^-k in {1/2, 1/4, 1/8} stops after k words."""
    assert not packed.bernoulli_words(1e-300, 10_000, privest.rng_for(2026, "tiny")).any()
    for j in (1, 2, 3):
        rng = privest.rng_for(2026, "dyadic", j)
        words = packed.bernoulli_words(2.0**-j, 1000, rng)
        state = rng.bit_generator.state
        fresh = privest.rng_for(2026, "dyadic", j)
        for _ in range(j):
            fresh.integers(0, 2**64, size=1000, dtype=np.uint64)
        assert fresh.bit_generator.state == state  # j words drawn a word, no more
        assert abs(np.unpackbits(words.view(np.uint8)).mean() - 2.0**-j) < 0.01


@pytest.mark.parametrize("name,eps", [("sue", 1.0), ("oue", 1.0), ("oue", 4.0)])
def test_unary_sampler_at_k_1024_sets_binomial_bits_uniformly(name, eps):
    """k = 1024 (OUE at eps 4 draws its few bits at uniform positions, the others by Bernoulli words), 4000 users of
    secret 5: the secret's bit set with probability p*, the number of other bits set Binomial(1023, q*) (chi-square
    on its histogram), and each other position's count Binomial(4000, q*) (chi-square over the 1023 positions)."""
    m, n = protocols.by_name(name, 1024, eps), 4000
    reports = m.sample(np.full(n, 5), privest.rng_for(2026, "unary 1024", name, eps), packed=True)
    bits = reports.unpack()
    assert abs(bits[:, 5].mean() - m.p_star) < 5 * math.sqrt(m.p_star * (1 - m.p_star) / n)
    others = np.delete(bits, 5, axis=1)
    sizes = np.bincount(others.sum(axis=1), minlength=1024)
    expected = n * stats.binom.pmf(np.arange(1024), 1023, m.q_star)
    cells = np.flatnonzero(expected > 5)  # the tails pooled into one cell
    observed = np.append(sizes[cells], n - sizes[cells].sum())
    assert stats.chisquare(observed, np.append(expected[cells], n - expected[cells].sum())).pvalue > 1e-4
    counts = others.sum(axis=0)
    statistic = ((counts - n * m.q_star) ** 2 / (n * m.q_star * (1 - m.q_star))).sum()
    assert stats.chi2.sf(statistic, 1023) > 1e-4


@pytest.mark.parametrize("eps", [0.5, 1.0, 4.0])
def test_ss_sampler_at_k_1024_gives_omega_values_the_secret_at_p_in_the_others_uniform(eps):
    """k = 1024 (omega 387, 275 and 18: i.i.d. bits completed, and Floyd), 4000 users of secret 700: every report
    holds omega values, the secret with probability p_in, and each other value's count across reports is uniform
    over the 1023 others (chi-square of the counts, each with mean n (omega - p_in) / 1023)."""
    m, n = protocols.ss(1024, eps), 4000
    reports = m.sample(np.full(n, 700), privest.rng_for(2026, "ss 1024", eps), packed=True)
    assert np.all(reports.set_counts() == m.omega)
    bits = reports.unpack()
    assert abs(bits[:, 700].mean() - m.p_in) < 5 * math.sqrt(m.p_in * (1 - m.p_in) / n)
    counts = np.delete(bits, 700, axis=1).sum(axis=0)
    assert stats.chisquare(counts, np.full(1023, counts.sum() / 1023)).pvalue > 1e-4


def test_samplers_are_reproducible_and_chunked_alike(monkeypatch):
    """The same generator state gives the same reports; drawing in chunks of 3 users gives reports of the same law
    (not the same draws) and never a chunk boundary artefact: every SS report still holds omega values."""
    m = protocols.ss(40, 0.5)
    secrets = np.arange(40).repeat(5)
    first = m.sample(secrets, privest.rng_for(2026, "again"), packed=True)
    np.testing.assert_array_equal(first.bits, m.sample(secrets, privest.rng_for(2026, "again"), packed=True).bits)
    monkeypatch.setattr(packed, "_CHUNK_BYTES", 15)
    chunked = m.sample(secrets, privest.rng_for(2026, "again"), packed=True)
    assert np.all(chunked.set_counts() == m.omega)


@pytest.mark.parametrize("name", ["sue", "oue", "ss"])
def test_unpacked_samples_are_the_packed_ones_when_the_unpacking_step_does_not_divide_a_chunk(name, monkeypatch):
    # chunks of 10 users (30 bytes at k = 24), unpacked 4 users at a time: each chunk's last part holds 2 users
    m = protocols.by_name(name, 24, 1.0)
    secrets = np.arange(24).repeat(2)
    monkeypatch.setattr(packed, "_CHUNK_BYTES", 30)
    monkeypatch.setattr(packed, "_UNPACK_ENTRIES", 96)
    reports = m.sample(secrets, privest.rng_for(2026, "unpack step", name))
    expected = m.sample(secrets, privest.rng_for(2026, "unpack step", name), packed=True).unpack()
    np.testing.assert_array_equal(reports, expected)
