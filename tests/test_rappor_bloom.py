"""RAPPOR with Bloom filters (privest.protocols.rappor_bloom) against closed forms and independent computations.

- The client: cohorts uniform, each bit of the user's filter reported 1 with probability 1 - f/2, every other bit
  with f/2 (chi-square at p < 1e-4), f = 2/(1 + e^(eps/(2h))).
- The estimate: its mean is, exactly, sum_x theta_x (F_x(d) - beta)/(1 - beta) for the fixed hash family (computed
  here by a loop over cohorts and hashes), within 4.5 estimated standard deviations on every queried item.
- ``candidate_group``: the exact channel, each report's probability under each candidate from the unpacked bits,
  and "other" by enumerating every draw of h uniform bits; the MLE near the truth.
- ``nonnegative_lasso``: the KKT conditions of its problem hold; ``decode`` recovers the support and frequencies of a
  well-separated distribution and reports no absent candidate there.
- ``privest.audit`` bounds RAPPOR-Bloom at or below its eps.
"""

import itertools
import math

import numpy as np
import pytest
from scipy.stats import chisquare

import privest
from privest import protocols, rng_for

EPS = 2.0
N = 200_000
ITEMS = np.array([3, 2**63 + 11, 987_654_321_987, 18_446_744_073_709_551_615], dtype=np.uint64)
THETA = np.array([0.5, 0.25, 0.15, 0.10])
QUERIED = np.concatenate([ITEMS, np.array([4, 12345], dtype=np.uint64)])


def users(seed: str, n: int = N) -> np.ndarray:
    return ITEMS[rng_for(2026, "bloom users", seed).choice(ITEMS.size, n, p=THETA)]


def own_filter(sketch, item, cohorts) -> np.ndarray:
    """(n, bits) bool: each user's true Bloom filter of ``item`` in its cohort."""
    cells = sketch.filters(np.array([item], dtype=np.uint64))[cohorts, :, 0]
    out = np.zeros((cohorts.size, sketch.bits), dtype=bool)
    out[np.arange(cohorts.size)[:, None], cells] = True
    return out


@pytest.mark.parametrize("hashes", [1, 3])
def test_bloom_reports_match_their_closed_form(hashes):
    sketch = protocols.rappor_bloom(2**64, EPS, hashes=hashes, bits=20, cohorts=4)
    assert sketch.f == pytest.approx(2 / (1 + math.exp(EPS / (2 * hashes))))
    reports = sketch.sample(np.full(N, ITEMS[1]), rng_for(2026, "bloom client", str(hashes)))
    assert chisquare(np.bincount(reports.cohorts, minlength=4)).pvalue > 1e-4
    bits, truth = reports.bits.unpack(), own_filter(sketch, ITEMS[1], reports.cohorts)
    for inside, rate in ((truth, 1 - sketch.f / 2), (~truth, sketch.f / 2)):
        total, ones = int(inside.sum()), int(bits[inside].sum())
        assert chisquare([ones, total - ones], [total * rate, total * (1 - rate)]).pvalue > 1e-4


def test_bloom_estimate_is_unbiased_for_the_fixed_family():
    sketch = protocols.rappor_bloom(2**64, EPS, hashes=2, bits=32, cohorts=8)
    reports = sketch.sample(users("unbiased"), rng_for(2026, "bloom unbiased"))
    estimate, variance = sketch.estimate(reports, QUERIED), sketch.estimate_variance(reports, QUERIED)
    filters_d, filters_x = sketch.filters(QUERIED), sketch.filters(ITEMS)
    share = np.zeros((ITEMS.size, QUERIED.size))
    for c, s in itertools.product(range(sketch.cohorts), range(sketch.hashes)):
        share += (filters_x[c][:, :, None] == filters_d[c, s][None, None, :]).any(axis=0)
    share /= sketch.cohorts * sketch.hashes
    beta = 1 - (1 - 1 / sketch.bits) ** sketch.hashes
    expected = THETA @ (share - beta) / (1 - beta)
    z = (estimate - expected) / np.sqrt(variance)
    assert np.abs(z).max() < 4.5, z
    assert np.array_equal(sketch.interval(reports, QUERIED).estimate, estimate)


@pytest.mark.parametrize("hashes", [1, 2, 3])
def test_bloom_candidate_group_is_the_exact_channel(hashes):
    sketch = protocols.rappor_bloom(2**64, EPS, hashes=hashes, bits=6, cohorts=3)
    reports = sketch.sample(rng_for(2026, "bloom cand items").integers(0, 40, 300), rng_for(2026, "bloom cand"))
    candidates = np.array([11, 2**63 + 1, 424242], dtype=np.uint64)
    likelihood, log_scale = sketch._candidate_likelihood(sketch._reports(reports), candidates)
    exact = likelihood * np.exp(log_scale)[:, None]
    bits, low = reports.bits.unpack(), sketch.f / 2

    def probability(filters):  # P(report | filter) for each report, filters (n, bits) bool
        one = np.where(filters, 1 - low, low)
        return np.prod(np.where(bits, one, 1 - one), axis=1) / sketch.cohorts

    for d, item in enumerate(candidates):
        assert np.allclose(exact[:, d], probability(own_filter(sketch, item, reports.cohorts)), rtol=1e-10)
    other = np.zeros(len(reports))
    for draw in itertools.product(range(sketch.bits), repeat=hashes):
        filters = np.zeros((len(reports), sketch.bits), dtype=bool)
        filters[:, list(draw)] = True
        other += probability(filters) / sketch.bits**hashes
    assert np.allclose(exact[:, -1], other, rtol=1e-10)


def test_bloom_candidate_mle_is_close_to_the_truth_and_the_audit_at_most_eps():
    sketch = protocols.rappor_bloom(2**64, EPS, hashes=2, bits=64, cohorts=16)
    reports = sketch.sample(users("mle"), rng_for(2026, "bloom mle"))
    result = privest.gibu([sketch.candidate_group(reports, QUERIED)])
    truth = np.append((QUERIED[:, None] == ITEMS[None, :]).astype(float) @ THETA, 0.0)
    assert np.all(result.theta >= 0) and result.theta.sum() == pytest.approx(1.0)
    assert np.abs(result.theta - truth).max() < 0.01
    audit = privest.audit(sketch, EPS, rng_for(2026, "bloom audit"), trials=200_000)
    assert 0.5 * EPS < audit.bound <= EPS, audit


def test_nonnegative_lasso_meets_its_kkt_conditions():
    rng = rng_for(2026, "lasso")
    X = (rng.random((60, 12)) < 0.3).astype(float)
    y = X @ np.where(np.arange(12) < 4, 0.2, 0.0) + rng.normal(0, 0.05, 60)
    penalty = 0.01
    b = protocols.nonnegative_lasso(X, y, penalty)
    gradient = X.T @ (y - X @ b) / 60  # KKT: = penalty where b > 0, <= penalty where b = 0
    assert np.all(b >= 0) and np.any(b > 0) and np.any(b == 0)
    assert np.allclose(gradient[b > 0], penalty, atol=1e-7)
    assert np.all(gradient[b == 0] <= penalty + 1e-7)


def test_decode_recovers_a_well_separated_distribution():
    sketch = protocols.rappor_bloom(2**64, 4.0, hashes=2, bits=64, cohorts=16)
    reports = sketch.sample(users("decode"), rng_for(2026, "bloom decode"))
    decoding = sketch.decode(reports, QUERIED)
    truth = (QUERIED[:, None] == ITEMS[None, :]).astype(float) @ THETA
    assert decoding.significant.tolist() == [True] * 4 + [False] * 2
    assert np.abs(decoding.theta - truth).max() < 4.5 * decoding.std_error[:4].max()
    with pytest.raises(ValueError, match="penalty"):
        sketch.decode(reports, QUERIED, penalty=2.0)


@pytest.mark.parametrize("hashes", [1, 2, 3])
def test_bloom_moments_equal_the_per_user_contributions(hashes):
    sketch = protocols.rappor_bloom(2**64, EPS, hashes=hashes, bits=8, cohorts=3)  # narrow: repeated bits occur
    reports = sketch.sample(rng_for(2026, "bloom moments items").integers(0, 20, 5000), rng_for(2026, "bloom mom"))
    queried = np.arange(25)
    cells = sketch.filters(queried)[reports.cohorts]  # (n, h, q)
    ones = reports.bits.unpack()[np.arange(len(reports))[:, None, None], cells].sum(axis=1)
    beta = 1 - (1 - 1 / sketch.bits) ** hashes
    contributions = ((ones / hashes - sketch.f / 2) / (1 - sketch.f) - beta) / (1 - beta)
    assert np.allclose(sketch.estimate(reports, queried), contributions.mean(axis=0), rtol=1e-12, atol=1e-12)
    assert np.allclose(sketch.estimate_variance(reports, queried), contributions.var(axis=0, ddof=1) / len(reports),
                       rtol=1e-9)
