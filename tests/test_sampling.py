"""Sampling: seeds derived from keys, and the samplers' distributions (issue 2)."""

import numpy as np
import pytest

from privest import sampling
from privest.rappor import RapporReports, flip_probability


def test_rng_for_depends_only_on_seed_and_keys():
    a = sampling.rng_for(7, "study", "exp", 1000, 3).random(5)
    b = sampling.rng_for(7, "study", "exp", 1000, 3).random(5)
    c = sampling.rng_for(7, "study", "exp", 1000, 4).random(5)
    d = sampling.rng_for(8, "study", "exp", 1000, 3).random(5)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c) and not np.array_equal(a, d)


def test_rng_for_is_pinned_across_machines():
    # SHA-256 of the keys, not Python's salted hash: these values must never change, or every result changes.
    assert sampling.rng_for(0, "pinned").integers(0, 2**31) == 1732401196
    assert sampling.rng_for(2026, "ibu_consistency", "fig01", 48842, 0).integers(0, 2**31) == 1623349266


def test_sample_counts_has_the_mean_of_the_mechanism():
    rng = sampling.rng_for(0, "counts")
    A = rng.dirichlet(np.ones(5), size=4)
    secret_counts = np.array([1000, 0, 3000, 500])
    draws = np.array([sampling.sample_counts(A, secret_counts, rng) for _ in range(2000)])
    mean = secret_counts @ A
    se = np.sqrt((secret_counts[:, None] * A * (1 - A)).sum(axis=0) / 2000)
    assert np.all(np.abs(draws.mean(axis=0) - mean) < 4 * se)
    assert np.all(draws.sum(axis=1) == secret_counts.sum())


def test_sample_never_reports_an_impossible_column():
    A = np.array([[0.0, 1.0, 0.0], [0.5, 0.0, 0.5]])
    z = sampling.sample(A, np.array([0] * 1000 + [1] * 1000), sampling.rng_for(0, "zeros"))
    assert np.all(z[:1000] == 1) and set(z[1000:]) <= {0, 2}


def test_rappor_flips_each_bit_with_the_right_probability():
    rng = sampling.rng_for(0, "rappor")
    n, k, eps = 200_000, 5, 1.2
    secrets = rng.integers(0, k, size=n)
    bits = sampling.rappor(secrets, k, eps, rng)
    one_hot = np.eye(k, dtype=np.uint8)[secrets]
    flipped = (bits != one_hot).mean()
    f = flip_probability(eps)
    assert abs(flipped - f) < 4 * np.sqrt(f * (1 - f) / (n * k))


def test_population_mixes_matrix_and_rappor_mechanisms():
    rng = sampling.rng_for(0, "population")
    k = 4
    mechanisms = [np.full((k, k), 1 / k), sampling.Rappor(k, 1.0)]
    counts = sampling.split_users(1001, 2, np.ones(k) / k, rng)
    assert counts.sum() == 1001 and counts.sum(axis=1).tolist() == [501, 500]
    reports = sampling.population(mechanisms, counts, rng)
    assert reports[0].sum() == 501
    assert isinstance(reports[1], RapporReports) and reports[1].n == 500


def test_split_secrets_keeps_every_user():
    rng = sampling.rng_for(0, "split")
    secrets = rng.integers(0, 10, size=1003)
    counts = sampling.split_secrets(secrets, 10, 3, rng)
    np.testing.assert_array_equal(counts.sum(axis=0), np.bincount(secrets, minlength=10))
    assert sorted(counts.sum(axis=1).tolist()) == [334, 334, 335]


def test_bad_inputs_name_the_argument():
    rng = sampling.rng_for(0, "bad")
    with pytest.raises(ValueError, match="secrets"):
        sampling.sample(np.eye(2), np.array([0, 2]), rng)
    with pytest.raises(ValueError, match="row-stochastic"):
        sampling.sample(np.ones((2, 2)), np.array([0, 1]), rng)
    with pytest.raises(ValueError, match="eps"):
        sampling.rappor(np.array([0]), 2, -1.0, rng)
