"""The multidimensional solutions (privest/protocols/multidim.py): each attribute's marginal channel against the
solution's definition, the columns privest draws against those channels, the unbiased estimates and GIBU per
attribute, SMP's attribute that nobody drew, and every refusal naming its argument."""

import itertools
import math

import numpy as np
import pytest

import privest
from privest import protocols
from privest.protocols import multidim

KS = (2, 5, 9)
CASES = [("spl", "grr"), ("spl", "oue"), ("spl", "olh"), ("smp", "grr"), ("smp", "sue"), ("smp", "adp"),
         ("rsfd", "grr"), ("rsfd", "oue_zero"), ("rsfd", "sue_zero"), ("rsfd", "oue_rnd"), ("rsfd", "sue_rnd"),
         ("rsfd", "adp")]


def _rng(*labels: object) -> np.random.Generator:
    return privest.rng_for(2026, "test_multidim", *labels)


@pytest.mark.parametrize("d", [2, 3, 6])
@pytest.mark.parametrize("eps", [0.3, 1.0, 4.0])
def test_rsfd_marginals_are_the_mixture_of_the_true_report_and_the_fake_data(d, eps):
    # column j given x_j: with probability 1/d the protocol at eps' = ln(d (e^eps - 1) + 1), else fake data (GRR: a
    # uniform value; UE-zero: the zero vector through the same bit step)
    amplified = math.log(d * math.expm1(eps) + 1)
    for k in (2, 7):
        ks = (k,) * d
        grr = multidim.rsfd(ks, eps, "grr").marginal(0)
        p = math.exp(amplified) / (math.exp(amplified) + k - 1)
        q = (1 - p) / (k - 1)
        assert grr.p_star == pytest.approx(p / d + (d - 1) / (d * k), rel=1e-12)
        assert grr.q_star == pytest.approx(q / d + (d - 1) / (d * k), rel=1e-12)
        for optimal, name in [(True, "oue_zero"), (False, "sue_zero")]:
            unary = multidim.rsfd(ks, eps, name).marginal(0)
            base = protocols.oue(k, amplified) if optimal else protocols.sue(k, amplified)
            assert unary.flip == pytest.approx(base.flip, rel=1e-12)  # every other bit: q in both components
            assert unary.one == pytest.approx(base.one / d + (d - 1) * base.flip / d, rel=1e-12)
            assert unary._gap == pytest.approx((base.one - base.flip) / d, rel=1e-12)


def test_spl_and_smp_marginals_are_the_protocol_at_eps_over_d_and_at_eps():
    for name in ("grr", "oue", "olh", "hr"):
        assert multidim.spl(KS, 3.0, name).marginal(2) == protocols.by_name(name, 9, 1.0)
        assert multidim.smp(KS, 3.0, name).marginal(1) == protocols.by_name(name, 5, 3.0)


@pytest.mark.parametrize(("solution", "protocol"), CASES)
def test_the_columns_follow_their_marginal_channel(solution, protocol):
    # 10^5 users holding the tuple (1, 3, 8): each column's frequency of reporting (or holding in its set) each value
    # within 5 standard errors of the marginal's p* (the held value) and q* (the others)
    m = multidim.Multidimensional(solution, KS, 2.0, protocol)
    n, held = 100_000, (1, 3, 8)
    reports = m.sample(np.tile(held, (n, 1)), _rng("columns", solution, protocol))
    if solution == "smp":
        counts = np.bincount(reports.attribute, minlength=3)
        assert np.abs(counts - n / 3).max() < 5 * math.sqrt(n * 2 / 9)
    for j, (marginal, column) in enumerate(zip(m._marginals, reports.columns, strict=True)):
        users = marginal.count(column)
        frequency = marginal.support(column) / users
        expected = np.where(np.arange(KS[j]) == held[j], marginal.p_star, marginal.q_star)
        assert np.abs((frequency - expected) / np.sqrt(expected * (1 - expected) / users)).max() < 5, j


@pytest.mark.parametrize(("solution", "protocol"), CASES)
def test_each_attribute_is_estimated_without_bias_and_gibu_recovers_it(solution, protocol):
    m = multidim.Multidimensional(solution, KS, 2.0, protocol)
    thetas = [np.array([0.7, 0.3]), np.array([0.4, 0.3, 0.2, 0.05, 0.05]), np.full(9, 1 / 9)]
    n, runs = 60_000, 6
    estimates = [[] for _ in KS]
    for run in range(runs):
        rng = _rng("unbiased", solution, protocol, run)
        secrets = np.stack([rng.choice(k, n, p=t) for k, t in zip(KS, thetas, strict=True)], axis=1)
        reports = m.sample(secrets, rng)
        for j, estimate in enumerate(m.estimate(reports)):
            estimates[j].append(estimate)
    for j, marginal in enumerate(m._marginals):
        users = n / 3 if solution == "smp" else n
        error = np.sqrt(marginal.variance(thetas[j], int(users)) / runs)
        assert np.abs((np.mean(estimates[j], axis=0) - thetas[j]) / error).max() < 5, j
    fits = [privest.gibu([group]) for group in m.groups(reports)]
    for fit, theta in zip(fits, thetas, strict=True):
        assert np.abs(fit.theta - theta).max() < 0.08 and not fit.capped


def test_an_smp_attribute_nobody_drew_is_nan_and_bad_input_is_refused_naming_it():
    m = multidim.smp((3, 4, 5, 6, 7, 8), 1.0, "grr")
    reports = m.sample(np.zeros((2, 6), dtype=np.int64), _rng("empty"))
    estimates = m.estimate(reports)
    assert sum(np.isnan(e).all() for e in estimates) >= 4  # two users, six attributes
    intervals = m.interval(reports)
    assert [np.isnan(i.estimate).all() and not i.informative for i in intervals] == [np.isnan(e).all()
                                                                                   for e in estimates]
    with pytest.raises(ValueError, match=r"secrets must have one column per attribute, shape \(n, 6\)"):
        m.sample(np.zeros((2, 5), dtype=np.int64), _rng("bad"))
    with pytest.raises(ValueError, match=r"secrets\[:, 1\] must lie in 0..3"):
        m.sample(np.array([[0, 4, 0, 0, 0, 0]]), _rng("bad"))
    with pytest.raises(ValueError, match="protocol must be one of"):
        multidim.rsfd((3, 4), 1.0, "olh")
    with pytest.raises(ValueError, match=r"ks\[1\] must be"):
        multidim.spl((3, 1), 1.0, "grr")
    with pytest.raises(ValueError, match="protocol must be one of"):
        multidim.spl((3, 4), 1.0, "nope")
    with pytest.raises(ValueError, match="solution must be one of"):
        multidim.Multidimensional("split", (3, 4), 1.0, "grr")
    with pytest.raises(TypeError, match="reports must be MultiReports of 6 columns"):
        m.estimate(reports.columns)


def test_longitudinal_spl_splits_eps1_by_d_and_smp_keeps_it_and_rsfd_takes_no_options():
    m = multidim.spl((3, 4), 2.0, "l_grr", eps1=0.8, calibration="peer")
    assert m.marginal(1) == protocols.l_grr(4, 1.0, 0.4, calibration="peer")
    assert multidim.smp((3, 4), 2.0, "l_oue", eps1=0.8).marginal(0) == protocols.l_oue(3, 2.0, 0.8)
    assert multidim.spl((3, 4), 2.0, "l_sue").marginal(0).eps1 == 0.5  # the default eps1 of eps / d
    with pytest.raises(ValueError, match="options: RS\\+FD takes none"):
        multidim.Multidimensional("rsfd", (3, 4), 1.0, "grr", (("eps1", 0.5),))
    with pytest.raises(ValueError, match="protocol 'grr' takes no options"):
        multidim.spl((3, 4), 1.0, "grr", eps1=0.5)


@pytest.mark.parametrize("name", ["oue_rnd", "sue_rnd"])
@pytest.mark.parametrize("d, k", [(2, 3), (3, 4)])
def test_rsfd_ue_rnd_likelihood_is_the_mixture_with_a_random_one_hot(name, d, k):
    # every bit vector y: (1/d) M(y | x) + ((d - 1)/d) (1/k) sum_v M(y | v), M unary encoding at eps' (brute force)
    m = multidim.rsfd((k,) * d, 1.5, name).marginal(0)
    base = (protocols.oue if name == "oue_rnd" else protocols.sue)(k, math.log(d * math.expm1(1.5) + 1))
    every = np.array(list(itertools.product((0, 1), repeat=k)), dtype=bool)
    M = base.likelihood(every)  # (2^k, k)
    expected = M / d + (d - 1) / d * M.mean(axis=1, keepdims=True)
    np.testing.assert_allclose(m.likelihood(every), expected, rtol=1e-12)
    np.testing.assert_allclose(m.likelihood(every).sum(axis=0), 1.0, atol=1e-12)
    # the bit marginals are the estimator's p* and q*
    np.testing.assert_allclose(m.likelihood(every).T @ every, np.where(np.eye(k, dtype=bool), m.p_star, m.q_star),
                               rtol=1e-12)
