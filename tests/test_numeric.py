"""privest.numeric against closed forms and independent computations: each client's output distribution against its
closed-form CDF (Kolmogorov-Smirnov on 10^6 draws; a binomial test for Duchi's two outputs), the means unbiased and
the closed-form variances by simulation, the intervals' coverage measured over thousands of repetitions, the
discretised channel against a quadrature of the CDF, EMS's histogram against the uniform, and the audit's bound."""

import math

import numpy as np
import pytest
from scipy import stats

import privest
from privest import numeric

MECHANISMS = {
    "sw": lambda eps: numeric.square_wave(eps, lo=10.0, hi=90.0),
    "pm": lambda eps: numeric.piecewise(eps, lo=10.0, hi=90.0),
    "hm": lambda eps: numeric.hybrid(eps, lo=10.0, hi=90.0),
    "duchi": lambda eps: numeric.duchi(eps, lo=10.0, hi=90.0),
}
EPS = (0.5, 2.0)  # Hybrid is Duchi's at 0.5 (below 0.61) and mixes Piecewise in at 2


def _rng(*keys):
    return privest.rng_for(2026, "test_numeric", *keys)


def _skewed(n, rng):
    """Values on [10, 90] drawn from Beta(5, 2), the skewed synthetic distribution of Li et al. (2020)."""
    return 10.0 + 80.0 * rng.beta(5, 2, n)


@pytest.mark.parametrize("eps", EPS)
@pytest.mark.parametrize("kind", ["sw", "pm"])
def test_a_continuous_client_output_has_its_closed_form_distribution(kind, eps):
    mechanism = MECHANISMS[kind](eps)
    for value in (10.0, 37.0, 90.0):
        reports = mechanism.sample(np.full(10**6, value), _rng("ks", kind, eps, value))
        result = stats.kstest(reports, lambda y, v=value: mechanism.cdf(y, v))
        assert result.pvalue > 1e-3, (kind, eps, value, result)


@pytest.mark.parametrize("eps", EPS)
def test_the_hybrid_client_output_has_its_closed_form_distribution(eps):
    """Duchi's two outputs with probability (1 - alpha) P(+-), binomially; the rest is Piecewise's, by KS."""
    mechanism = MECHANISMS["hm"](eps)
    duchi, piecewise = numeric.duchi(eps, 10.0, 90.0), numeric.piecewise(eps, 10.0, 90.0)
    value, n = 70.0, 10**6
    reports = mechanism.sample(np.full(n, value), _rng("ks hybrid", eps))
    low, high = duchi.output_range
    plus, minus = np.isclose(reports, high, rtol=1e-12), np.isclose(reports, low, rtol=1e-12)
    p_plus = (1 - mechanism.alpha) * (1 - float(duchi.cdf([50.0], value)[0]))
    p_minus = (1 - mechanism.alpha) * float(duchi.cdf([50.0], value)[0])
    for hits, p in ((plus.sum(), p_plus), (minus.sum(), p_minus)):
        assert stats.binomtest(int(hits), n, p).pvalue > 1e-3
    rest = reports[~(plus | minus)]
    if mechanism.alpha > 0:
        assert stats.kstest(rest, lambda y: piecewise.cdf(y, value)).pvalue > 1e-3
    else:
        assert rest.size == 0


@pytest.mark.parametrize("eps", EPS)
def test_the_duchi_client_reports_plus_with_its_probability(eps):
    mechanism = MECHANISMS["duchi"](eps)
    for value in (10.0, 60.0):
        reports = mechanism.sample(np.full(10**6, value), _rng("duchi", eps, value))
        t = (value - 50.0) / 40.0
        p = (math.exp(eps) - 1) * t / (2 * math.exp(eps) + 2) + 0.5  # Wang et al. 2019, Algorithm 1
        assert set(np.unique(reports)) <= set(mechanism.output_range)
        assert stats.binomtest(int((reports > 50).sum()), reports.size, p).pvalue > 1e-3


@pytest.mark.parametrize("eps", EPS)
@pytest.mark.parametrize("kind", sorted(MECHANISMS))
def test_the_mean_is_unbiased_and_the_variance_is_the_closed_form(kind, eps):
    """The estimate of 10^6 users' mean lies within 4 standard errors of the true mean (a bias of a few standard
    errors fails), ``estimate_variance`` is the closed form's within 1%, and at a fixed value the per-report estimates'
    variance equals ``variance`` within 1%."""
    mechanism = MECHANISMS[kind](eps)
    rng = _rng("mean", kind, eps)
    values = _skewed(10**6, rng)
    reports = mechanism.sample(values, rng)
    error = mechanism.mean(reports) - values.mean()
    assert abs(error) < 4 * math.sqrt(mechanism.variance(values).mean() / values.size)
    # the estimates' spread: the mechanism's noise, averaged over the users, plus the users' values' own spread
    expected = (mechanism.variance(values).mean() + values.var()) / values.size
    assert mechanism.estimate_variance(reports) == pytest.approx(expected, rel=0.01)
    for value in (10.0, 75.0):
        estimates = mechanism.estimates(mechanism.sample(np.full(10**6, value), rng))
        assert estimates.mean() == pytest.approx(value, abs=4 * estimates.std() / 1000)
        assert estimates.var() == pytest.approx(float(mechanism.variance([value])[0]), rel=0.01)


REPETITIONS, USERS = 4000, 400


@pytest.mark.parametrize("kind", sorted(MECHANISMS))
def test_the_mean_interval_covers_at_its_level(kind):
    """Coverage of the 95% interval over 4000 repetitions of 400 users drawn i.i.d. from Beta(5, 2) on [10, 90], at
    eps = 1: within 0.93-0.97 (the binomial standard error is 0.0034, so a coverage of 0.92 or 0.98 fails, as the
    90% intervals of the same runs do)."""
    mechanism = MECHANISMS[kind](1.0)
    rng = _rng("coverage", kind)
    truth = 10.0 + 80.0 * 5 / 7
    reports = mechanism.sample(_skewed(REPETITIONS * USERS, rng), rng).reshape(REPETITIONS, USERS)
    covered = [mechanism.mean_interval(run).covers(truth) for run in reports]
    assert 0.93 <= np.mean(covered) <= 0.97, np.mean(covered)
    # the band can fail: the same runs' 90% intervals cover too rarely for it
    narrower = [mechanism.mean_interval(run, level=0.90).covers(truth) for run in reports]
    assert not 0.93 <= np.mean(narrower) <= 0.97, np.mean(narrower)


def test_the_mean_interval_is_the_whole_range_for_a_handful_of_reports():
    mechanism = MECHANISMS["pm"](1.0)
    interval = mechanism.mean_interval(mechanism.sample([20.0] * 5, _rng("few")))
    assert not interval.informative and (interval.lower, interval.upper) == (10.0, 90.0)


@pytest.mark.parametrize("eps", EPS)
@pytest.mark.parametrize("kind", sorted(MECHANISMS))
def test_the_channel_is_the_cell_average_of_the_closed_form_cdf(kind, eps):
    """A[x, j], computed in closed form, equals the mean over 4000 values spread over cell x of F(e_j+1 | v) -
    F(e_j | v) from ``cdf`` (an independent quadrature), and each row sums to 1."""
    mechanism = MECHANISMS[kind](eps)
    bins, report_bins = 8, 12
    A = mechanism.channel(bins, report_bins)
    assert np.allclose(A.sum(axis=1), 1.0, atol=1e-12) and A.min() >= 0
    low, high = mechanism.output_range
    cells = np.linspace(10.0, 90.0, bins + 1)
    for x in (0, 5, bins - 1):
        values = cells[x] + (np.arange(4000) + 0.5) / 4000 * (cells[x + 1] - cells[x])
        if kind == "duchi" or (kind == "hm" and mechanism.alpha == 0):
            edges = np.array([low - 1, 50.0, high])
        else:
            edges = np.linspace(low, high, report_bins + 1)
            edges[0] -= 1.0  # the first bin holds the lowest report
        cdf = np.array([mechanism.cdf(edges, v) for v in values]).mean(axis=0)
        expected = np.diff(cdf)
        if kind == "hm" and mechanism.alpha > 0:  # Piecewise's part in the bins, Duchi's in two columns
            duchi = numeric.duchi(eps, 10.0, 90.0)
            plus = (1 - mechanism.alpha) * np.mean([1 - duchi.cdf([50.0], v)[0] for v in values])
            minus = (1 - mechanism.alpha) * np.mean([duchi.cdf([50.0], v)[0] for v in values])
            atoms = np.searchsorted(edges, duchi.output_range, side="left") - 1
            expected[atoms[0]] -= minus
            expected[atoms[1]] -= plus
            expected = np.concatenate([expected, [minus, plus]])
        assert np.allclose(A[x], expected, atol=2e-7), (x, np.abs(A[x] - expected).max())


def test_sw_ems_is_far_closer_than_the_uniform_on_a_skewed_distribution():
    """Square Wave with EMS on 10^5 users from Beta(5, 2), eps = 1, 1024 cells (Li et al.'s setting): its Wasserstein
    distance to the true histogram is under a tenth of the uniform histogram's."""
    rng = _rng("ems")
    values = rng.beta(5, 2, 10**5)
    mechanism = numeric.square_wave(1.0)
    truth = np.histogram(values, 1024, (0.0, 1.0))[0] / values.size
    reports = mechanism.sample(values, rng)
    ems = mechanism.distribution(reports, 1024)
    uniform = privest.emd_1d(np.full(1024, 1 / 1024), truth, 1 / 1024)
    assert privest.emd_1d(ems.theta, truth, 1 / 1024) < uniform / 10
    assert not ems.capped and ems.theta.sum() == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("kind", ["pm", "hm", "duchi"])
def test_em_on_the_mean_mechanisms_channels_beats_the_uniform(kind):
    """The MLE histogram of Piecewise and Hybrid (eps = 2, 64 cells, 10^5 users) is closer to the truth than the
    uniform in Wasserstein distance; Duchi's two outputs carry only the mean, so its EM estimate keeps the mean."""
    mechanism = MECHANISMS[kind](2.0)
    rng = _rng("em", kind)
    values = _skewed(10**5, rng)
    truth = np.histogram(values, 64, (10.0, 90.0))[0] / values.size
    result = mechanism.distribution(mechanism.sample(values, rng), 64, stop="converged")
    spacing = 80.0 / 64
    if kind == "duchi":
        centres = (result.edges[:-1] + result.edges[1:]) / 2
        assert centres @ result.theta == pytest.approx(values.mean(), abs=1.0)
    else:
        assert privest.emd_1d(result.theta, truth, spacing) < privest.emd_1d(np.full(64, 1 / 64), truth, spacing) / 3


@pytest.mark.parametrize("kind", sorted(MECHANISMS))
def test_the_audit_bound_reaches_near_eps_and_catches_a_client_at_a_larger_eps(kind):
    """The honest client's bound is within 0.1 of eps = 1; a client that runs the mechanism at eps = 2 (its reports
    within the claimed output range: Duchi's signs put on the claimed outputs) is caught."""
    mechanism, leaky = MECHANISMS[kind](1.0), MECHANISMS[kind](2.0)
    honest = privest.audit(mechanism, 1.0, _rng("audit", kind), trials=100_000)
    assert 0.9 < honest.bound <= 1.0 and not honest.exceeds

    def client(values, rng):
        reports = leaky.sample(values, rng)
        return np.where(reports > 50.0, *mechanism.output_range[::-1]) if kind == "duchi" else reports

    caught = privest.audit(mechanism, 1.0, _rng("audit leak", kind), trials=100_000, client=client)
    assert caught.exceeds, caught


def test_bad_values_and_reports_are_refused_by_name():
    mechanism = MECHANISMS["sw"](1.0)
    with pytest.raises(ValueError, match="values must lie in"):
        mechanism.sample([5.0], _rng("bad"))
    with pytest.raises(ValueError, match="reports must lie in"):
        mechanism.mean([1e6])
    with pytest.raises(ValueError, match="reports of Duchi"):
        MECHANISMS["duchi"](1.0).mean([50.0])
    with pytest.raises(ValueError, match="hi must be above lo"):
        numeric.piecewise(1.0, lo=2.0, hi=1.0)


@pytest.mark.parametrize("eps", [numeric.EPS_MIN, 20.0, numeric.EPS_MAX])
@pytest.mark.parametrize("kind", sorted(MECHANISMS))
def test_the_channel_and_the_mle_hold_at_the_ends_of_the_eps_range(kind, eps):
    """At eps = 50 Piecewise's window is 2.8e-11 wide: its width is computed without the cancellation of C - 1 (which
    left rows summing to 1 + 4e-6, refused by IBU), and every entry is non-negative."""
    mechanism = MECHANISMS[kind](eps)
    A = mechanism.channel(256)
    assert np.abs(A.sum(axis=1) - 1).max() < 1e-9 and A.min() >= 0
    reports = mechanism.sample(np.linspace(10.0, 90.0, 500), _rng("ends", kind, eps))
    for smoothing in ("ems", None):
        histogram = mechanism.distribution(reports, 32, smoothing=smoothing, stop="converged")
        assert histogram.theta.sum() == pytest.approx(1.0, abs=1e-12) and histogram.theta.min() >= 0


def test_the_audit_takes_a_numeric_mechanism_s_values_as_inputs():
    mechanism = MECHANISMS["pm"](1.0)
    result = privest.audit(mechanism, 1.0, _rng("audit inputs"), trials=20_000, inputs=(90.0, 10.0))
    assert result.inputs == (90.0, 10.0) and result.event == "report >= 90"
    with pytest.raises(ValueError, match="inputs must be a number in"):
        privest.audit(mechanism, 1.0, _rng("audit inputs"), inputs=(95.0, 10.0))
    with pytest.raises(ValueError, match="inputs must be two different values"):
        privest.audit(mechanism, 1.0, _rng("audit inputs"), inputs=(20.0, 20.0))
    with pytest.raises(TypeError, match="inputs must be a pair"):
        privest.audit(mechanism, 1.0, _rng("audit inputs"), inputs=20.0)
