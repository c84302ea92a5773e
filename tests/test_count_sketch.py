"""Private Count Sketch (privest.protocols.count_sketch) against closed forms.

- The client: the hash index uniform, the own cell's bit equal to g_j(x) with probability e^eps/(1 + e^eps), every
  other bit a fair coin, the padding bits 0 (chi-square at p < 1e-4 on 2 * 10^5 reports).
- The estimate: its mean is, exactly, sum_x theta_x F_x(d) with F_x(d) = mean_j 1[h_j(x) = h_j(d)] g_j(x) g_j(d), the
  fixed family's expectation computed here, within 4.5 estimated standard deviations on every queried item;
  ``estimate_variance`` equals (c^2 - E[Y]^2)/n within 3%.
- ``candidate_group``: the exact channel, each report's probability under each candidate and under "other" computed
  from the unpacked bits; the MLE near the truth. ``privest.audit`` bounds PCS near and below its eps.
"""

import math

import numpy as np
import pytest
from scipy.stats import chisquare

import privest
from privest import protocols, rng_for

EPS = 1.5
N = 200_000
ITEMS = np.array([3, 2**63 + 11, 987_654_321_987, 18_446_744_073_709_551_615], dtype=np.uint64)
THETA = np.array([0.5, 0.25, 0.15, 0.10])
QUERIED = np.concatenate([ITEMS, np.array([4, 12345], dtype=np.uint64)])


def users(seed: str, n: int = N) -> np.ndarray:
    return ITEMS[rng_for(2026, "pcs users", seed).choice(ITEMS.size, n, p=THETA)]


@pytest.mark.parametrize("width", [64, 61])
def test_pcs_reports_match_their_closed_form(width):
    sketch = protocols.pcs(2**64, EPS, hashes=8, width=width)
    item = np.uint64(2**63 + 11)
    reports = sketch.sample(np.full(N, item), rng_for(2026, "pcs client", str(width)))
    assert chisquare(np.bincount(reports.hashes, minlength=8)).pvalue > 1e-4
    bits = reports.bits.unpack()
    cells, signs = sketch.cells_and_signs(np.array([item]))
    own, sign = cells[reports.hashes, 0], signs[reports.hashes, 0]
    matched = np.count_nonzero(bits[np.arange(N), own] == (sign > 0))
    assert chisquare([matched, N - matched], [N * sketch.keep, N * (1 - sketch.keep)]).pvalue > 1e-4
    others = int(bits.sum()) - int(bits[np.arange(N), own].sum())
    assert chisquare([others, N * (width - 1) - others]).pvalue > 1e-4
    assert np.array_equal(np.packbits(bits, axis=1), reports.bits.bits)  # padding 0


def test_pcs_estimate_is_unbiased_and_its_variance_is_the_closed_form():
    sketch = protocols.pcs(2**64, EPS, hashes=64, width=256)
    reports = sketch.sample(users("unbiased"), rng_for(2026, "pcs unbiased"))
    estimate, variance = sketch.estimate(reports, QUERIED), sketch.estimate_variance(reports, QUERIED)
    cells_x, signs_x = sketch.cells_and_signs(ITEMS)
    cells_d, signs_d = sketch.cells_and_signs(QUERIED)
    share = ((cells_x[:, :, None] == cells_d[:, None, :]) * signs_x[:, :, None] * signs_d[:, None, :]).mean(axis=0)
    expected = THETA @ share
    z = (estimate - expected) / np.sqrt(variance)
    assert np.abs(z).max() < 4.5, z
    c = 1 / math.tanh(EPS / 2)
    assert np.allclose(variance, (c**2 - expected**2) / N, rtol=0.03)
    assert np.array_equal(sketch.interval(reports, QUERIED).estimate, estimate)


def test_pcs_candidate_group_is_the_exact_channel():
    sketch = protocols.pcs(2**64, EPS, hashes=3, width=10)
    reports = sketch.sample(rng_for(2026, "pcs cand items").integers(0, 50, 400), rng_for(2026, "pcs cand"))
    candidates = np.array([11, 2**63 + 1, 424242], dtype=np.uint64)
    likelihood, log_scale = sketch._candidate_likelihood(sketch._reports(reports), candidates)
    exact = likelihood * np.exp(log_scale)[:, None]
    bits = reports.bits.unpack()
    cells, signs = sketch.cells_and_signs(candidates)

    def probability(cell, sign):  # P(report | hash j, cell, sign), vectorised over reports
        match = bits[np.arange(len(reports)), cell] == (sign > 0)
        return np.where(match, sketch.keep, 1 - sketch.keep) / 2 ** (sketch.width - 1) / sketch.hashes

    for d in range(candidates.size):
        assert np.allclose(exact[:, d], probability(cells[reports.hashes, d], signs[reports.hashes, d]), rtol=1e-12)
    other = np.mean([probability(np.full(len(reports), cell), np.full(len(reports), sign))
                     for cell in range(sketch.width) for sign in (-1, 1)], axis=0)
    assert np.allclose(exact[:, -1], other, rtol=1e-12)


def test_pcs_candidate_mle_is_close_to_the_truth_and_the_audit_near_eps():
    sketch = protocols.pcs(2**64, EPS, hashes=64, width=256)
    reports = sketch.sample(users("mle"), rng_for(2026, "pcs mle"))
    result = privest.gibu([sketch.candidate_group(reports, QUERIED)])
    truth = np.append((QUERIED[:, None] == ITEMS[None, :]).astype(float) @ THETA, 0.0)
    assert np.all(result.theta >= 0) and result.theta.sum() == pytest.approx(1.0)
    assert np.abs(result.theta - truth).max() < 4.5 * np.sqrt(sketch.estimate_variance(reports, QUERIED)).max()
    audit = privest.audit(protocols.pcs(2**64, 1.0, hashes=64, width=256), 1.0, rng_for(2026, "pcs audit"),
                          trials=200_000)
    assert 0.7 < audit.bound <= 1.0, audit


def test_pcs_refuses_reports_of_another_width():
    sketch = protocols.by_name("pcs", 2**64, 1.0, hashes=4, width=16)
    other = protocols.pcs(2**64, 1.0, hashes=4, width=24).sample(np.array([1, 2]), rng_for(2026, "pcs bad"))
    with pytest.raises(ValueError, match=r"reports\.bits"):
        sketch.estimate(other, np.array([1]))
    with pytest.raises(TypeError, match="PcsReports"):
        sketch.estimate(protocols.cms(2**64, 1.0, 4, 16).sample(np.array([1]), rng_for(2026, "c")), np.array([1]))
