"""The NDSS 2020 consistency post-processings (privest.consistency): each against its definition on hand-worked
vectors and an independent computation, the paper's stated properties (non-negativity, summing to 1, which are
unbiased), Norm-Sub equal to privest's projection, and the post= choice of every unbiased estimator."""

from statistics import NormalDist

import numpy as np
import pytest

import privest
from privest import consistency, protocols, simplex

RAW = np.array([0.5, 0.4, 0.2, -0.1])  # a raw estimate: sums to 1, one negative entry


def norm_sub_by_the_papers_loop(v: np.ndarray) -> np.ndarray:
    """Norm-Sub as section IV-B describes it, step by step: negatives to 0, the same delta added to the positive
    estimates so that they sum to 1, repeated until none is negative."""
    v = np.array(v, dtype=float)
    positive = np.ones(v.size, dtype=bool)
    while True:
        v[~positive] = 0.0
        v[positive] += (1.0 - v[positive].sum()) / positive.sum()
        if (v >= 0).all():
            return v
        positive &= v > 0


def test_hand_worked_vectors():
    np.testing.assert_allclose(consistency.base_pos(RAW), [0.5, 0.4, 0.2, 0.0])
    np.testing.assert_allclose(consistency.norm([0.7, -0.2, 0.8]), [0.6, -0.3, 0.7])  # delta = (1 - 1.3) / 3
    np.testing.assert_allclose(consistency.norm_mul(RAW), np.array([0.5, 0.4, 0.2, 0.0]) / 1.1)
    np.testing.assert_allclose(consistency.norm_cut(RAW), [0.5, 0.4, 0.0, 0.0])  # 0.5 + 0.4 <= 1 < 0.5 + 0.4 + 0.2
    np.testing.assert_allclose(consistency.norm_cut([0.3, 0.2, -0.4]), [0.3, 0.2, 0.0])  # sum < 1: negatives only
    # Norm-Sub: delta = (1 - 1.1) / 3 on the three positives -> [0.4667, 0.3667, 0.1667, 0]
    np.testing.assert_allclose(consistency.norm_sub(RAW), [0.5 - 0.1 / 3, 0.4 - 0.1 / 3, 0.2 - 0.1 / 3, 0.0])
    # Base-Cut: k = 4, T = Phi^-1(1 - 0.05/4) * 0.1 = 0.22414
    np.testing.assert_allclose(consistency.base_cut(RAW, 0.01), [0.5, 0.4, 0.0, 0.0])
    np.testing.assert_allclose(NormalDist().inv_cdf(1 - 0.05 / 4) * 0.1, 0.224140, atol=1e-6)
    np.testing.assert_allclose(consistency.base_cut(RAW, 0.01, alpha=0.5), [0.5, 0.4, 0.2, 0.0])  # T = 0.1150
    np.testing.assert_allclose(consistency.post_pos(RAW, np.array([[1, 0, 0, 1], [0, 0, 0, 1], [1, 1, 1, 1]])),
                               [0.4, 0.0, 1.0])


def test_norm_cut_cuts_ties_together():
    np.testing.assert_allclose(consistency.norm_cut([0.6, 0.3, 0.3, 0.1]), [0.6, 0.0, 0.0, 0.0])


def test_norm_sub_is_the_projection_and_the_papers_loop():
    rng = np.random.default_rng(2026)
    for _ in range(200):
        v = rng.normal(1 / 8, 0.2, size=8)
        projected = consistency.apply(v, "norm-sub")
        np.testing.assert_array_equal(projected, consistency.apply(v, "projection"))
        np.testing.assert_array_equal(projected, simplex.post_process(v, "projection"))
        np.testing.assert_allclose(projected, norm_sub_by_the_papers_loop(v), atol=1e-12)
        np.testing.assert_array_equal(consistency.apply(v, "norm-mul"), simplex.post_process(v, "normalization"))


def test_the_papers_properties_non_negative_and_summing_to_one():
    rng = np.random.default_rng(7)
    n, variance = 10_000, 4e-4
    for _ in range(30):
        v = rng.dirichlet(np.ones(16)) + rng.normal(0, 0.02, 16)
        for post in consistency.CONSISTENCY_POSTS:
            out = consistency.apply(v, post, variance=variance, n=n)
            if post not in ("base", "norm"):
                assert (out >= 0).all(), post
            if post in ("norm", "norm-mul", "norm-sub", "power-ns"):
                assert abs(out.sum() - 1) < 1e-12, post
            if post == "norm-cut":
                assert out.sum() <= 1 + 1e-12
            if post == "power":
                assert (out >= 1 / n).all() and (out <= 1).all()


def test_only_base_and_norm_are_unbiased():
    """4000 runs of GRR's unbiased estimate (k = 8, n = 2000, eps = 1) on a theta with a zero: Base and Norm average
    to theta within 4.5 standard errors of the mean everywhere; Base-Pos, Norm-Sub and Norm-Mul are biased at the
    zero (their mean there exceeds 0 by more than 10 standard errors)."""
    rng = privest.rng_for(2026, "consistency bias")
    theta = np.array([0.3, 0.2, 0.15, 0.15, 0.1, 0.05, 0.05, 0.0])
    A, runs, n = privest.krr(8, 1.0), 4000, 2000
    reports = rng.multinomial(n, theta @ A, size=runs)
    raw = privest.inv_runs(A, reports)
    for post in ("base", "norm", "base-pos", "norm-sub", "norm-mul"):
        estimates = np.array([consistency.apply(v, post) for v in raw])
        error = np.abs(estimates.mean(axis=0) - theta) / (estimates.std(axis=0) / np.sqrt(runs) + 1e-15)
        if post in ("base", "norm"):
            assert error.max() < 4.5, (post, error)
        else:
            assert error[-1] > 10, (post, error)


def test_power_equals_the_posterior_mean_over_every_count():
    """Power against the posterior mean summed over all n counts (no window), with the exponent fitted by the
    power law's mean over {1..n} computed directly."""
    rng = np.random.default_rng(3)
    n, variance = 3000, 2e-4
    v = rng.dirichlet(np.ones(10) * 0.5) + rng.normal(0, np.sqrt(variance), 10)
    counts = np.arange(1, n + 1, dtype=float)
    exponent = consistency._fit_power_law(n * v.sum() / v.size, n)
    mean = (counts ** (1 - exponent)).sum() / (counts**-exponent).sum()
    assert abs(mean - n * v.sum() / v.size) < 1e-6 * mean
    log_weight = -exponent * np.log(counts)[None, :] - (counts[None, :] - n * v[:, None]) ** 2 / (2 * n**2 * variance)
    weight = np.exp(log_weight - log_weight.max(axis=1, keepdims=True))
    np.testing.assert_allclose(consistency.power(v, variance, n), (weight @ counts) / weight.sum(axis=1) / n,
                               rtol=1e-10)
    np.testing.assert_allclose(consistency.power_ns(v, variance, n),
                               privest.project_simplex(consistency.power(v, variance, n)))


def test_the_power_sum_matches_the_direct_sum():
    for s in (0.0, 0.5, 0.999999, 1.0, 1.5, 3.0):
        direct = (np.arange(1, 200_001, dtype=float) ** -s).sum()
        assert abs(consistency._power_sum(s, 200_000) - direct) < 1e-11 * direct, s


def test_every_unbiased_estimator_takes_every_post_and_keeps_the_old_names():
    rng = privest.rng_for(2026, "consistency estimators")
    theta = np.array([0.4, 0.3, 0.2, 0.1, 0.0])
    secrets = rng.choice(5, size=3000, p=theta)
    A = privest.geometric(5, 1.0)
    counts = privest.sample_counts(A, np.bincount(secrets, minlength=5), rng)
    bits = privest.sampling.rappor(secrets, 5, 2.0, rng)
    for name in protocols.NAMES:
        protocol = protocols.by_name(name, 5, 1.0)
        reports = protocol.sample(secrets, rng)
        raw = protocol.estimate(reports)
        for post in consistency.POSTS:
            out = protocol.estimate(reports, post=post)
            assert out.shape == (5,) and np.isfinite(out).all()
        variance = protocol.q_star * (1 - protocol.q_star) / (3000 * protocol._gap**2)
        np.testing.assert_array_equal(protocol.estimate(reports, "base-cut"), consistency.base_cut(raw, variance))
        np.testing.assert_array_equal(protocol.estimate(reports, "power"), consistency.power(raw, variance, 3000))
        for old in ("projection", "normalization"):
            np.testing.assert_array_equal(protocol.estimate(reports, old), simplex.post_process(raw, old))
    raw_inv = privest.inv(A, counts)
    for post in consistency.POSTS:
        assert privest.inv(A, counts, post=post).shape == (5,)
        assert privest.rap(bits, 2.0, post=post).shape == (5,)
        assert privest.inv_m([A, A], [counts // 2, counts - counts // 2], post=post).shape == (5,)
    np.testing.assert_array_equal(privest.inv(A, counts, "base-cut"),
                                  consistency.base_cut(raw_inv, privest.inv_variance(A, counts)))
    np.testing.assert_array_equal(privest.inv(A, counts / counts.sum(), "power", n=3000),
                                  privest.inv(A, counts, "power"))
    flip = 1 / (1 + np.exp(1.0))
    var_star = flip * (1 - flip) / (3000 * (1 - 2 * flip) ** 2)  # Var* of RAP at eps 2: f = 1 / (1 + e^(eps/2))
    np.testing.assert_allclose(privest.rap(bits, 2.0, "base-cut"),
                               consistency.base_cut(privest.rap(bits, 2.0), var_star))


def test_a_missing_variance_or_n_and_an_unknown_post_are_named():
    with pytest.raises(ValueError, match="variance"):
        consistency.apply(RAW, "base-cut")
    with pytest.raises(ValueError, match="n "):
        consistency.apply(RAW, "power", variance=0.01)
    with pytest.raises(ValueError, match="post"):
        consistency.apply(RAW, "norm_sub")
    with pytest.raises(ValueError, match="n is required"):
        privest.inv(privest.krr(3, 1.0), np.array([0.5, 0.3, 0.2]), post="power")
    with pytest.raises(ValueError, match="variance"):
        consistency.base_cut(RAW, [0.01, 0.01])
