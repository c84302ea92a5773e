"""Confidence intervals (privest.intervals, Protocol.interval, inv_interval, IbuResult.interval, privest.bootstrap):
the variances against closed forms and simulation, the observed Fisher information against a numerical Hessian,
the Fisher interval of an interior MLE equal to the unbiased one where the MLE is INV, and the coverage of 95%
intervals measured by simulation (benchmarks/bench_coverage.py runs the same at a larger size)."""

import sys
from pathlib import Path

import numpy as np
import pytest

import privest
from privest import protocols
from privest.estimators._iteration import _Likelihood
from privest.groups import _as_group

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from bench_coverage import coverage  # the benchmark's simulation, run here at a size of seconds

THETA16 = np.linspace(2, 1, 16) / np.linspace(2, 1, 16).sum()  # interior: the smallest entry is 0.042


@pytest.mark.parametrize(("name", "n"), [("grr", 20_000), ("oue", 20_000), ("olh", 5_000), ("geometric", 20_000)])
def test_95_percent_intervals_cover_within_93_to_97_percent(name, n):
    """120 seeded runs at eps 2 on 16 interior values: 1920 intervals per kind. Their pooled coverage has a standard
    error of about 0.005 (sqrt(0.95 * 0.05 / 1920); bench_coverage.py measures it from the per-run spread, which
    includes the dependence of one run's intervals), so [0.93, 0.97] is 4 standard errors either side of 0.95: a
    correct interval fails one of the 8 checks with probability below 1e-3 (normal approximation)."""
    counts = coverage(name, THETA16, n, 2.0, 120, privest.rng_for(2026, "coverage test", name))
    for kind in ("unbiased", "mle"):
        share = counts[kind].sum() / (counts[kind].size * THETA16.size)
        assert 0.93 <= share <= 0.97, (name, kind, share)


def test_the_fisher_information_is_the_negative_hessian_of_the_log_likelihood():
    """Observed information n * (-Hessian of the normalised log-likelihood), by central differences, for a matrix
    group and a set-valued group together (GIBU over a mix), on the directions that keep the sum at 1 (the set-valued
    likelihood is written with sum(theta) = 1 substituted, so off the simplex the two functions differ)."""
    rng = privest.rng_for(2026, "fisher hessian")
    theta = np.array([0.4, 0.3, 0.2, 0.1])
    A = privest.geometric(4, 0.8)
    oue = protocols.oue(4, 1.0)
    groups = [(A, privest.sample_counts(A, rng.multinomial(300, theta), rng)),
              (oue, oue.sample(rng.choice(4, size=200, p=theta), rng))]
    likelihood = _Likelihood.of([_as_group(g) for g in groups])
    at, h = np.array([0.35, 0.25, 0.25, 0.15]), 1e-4
    hessian = np.empty((4, 4))
    for i in range(4):
        for j in range(4):
            e_i, e_j = np.eye(4)[i] * h, np.eye(4)[j] * h
            hessian[i, j] = (likelihood.value(at + e_i + e_j) - likelihood.value(at + e_i - e_j)
                             - likelihood.value(at - e_i + e_j) + likelihood.value(at - e_i - e_j)) / (4 * h * h)
    U = np.linalg.eigh(np.eye(4) - 0.25)[1][:, 1:]
    np.testing.assert_allclose(U.T @ likelihood.information(at) @ U, -500 * U.T @ hessian @ U, rtol=1e-5)


def test_the_fisher_interval_of_an_interior_mle_is_the_unbiased_one():
    """Where INV lies inside the simplex it is the MLE, and the inverse of the observed information restricted to the
    simplex is A^-T (diag q - q q^T) A^-1 / n, the unbiased estimator's plug-in covariance: the intervals agree."""
    rng = privest.rng_for(2026, "fisher equals inv")
    A = privest.geometric(6, 1.0)
    counts = privest.sample_counts(A, rng.multinomial(20_000, [0.1, 0.2, 0.25, 0.2, 0.15, 0.1]), rng)
    unbiased = privest.inv_interval(A, counts)
    assert (unbiased.estimate > 0).all()
    fisher = privest.ibu(A, counts, delta=1e-15, max_iter=100_000).interval()
    np.testing.assert_allclose(fisher.estimate, unbiased.estimate, atol=1e-6)
    np.testing.assert_allclose(fisher.lower, unbiased.lower, atol=1e-6)
    np.testing.assert_allclose(fisher.upper, unbiased.upper, atol=1e-6)


def test_the_variances_match_their_closed_forms_and_a_simulation():
    """inv_variance on k-RR is GRR's q (1 - q) / (n (p* - q*)^2); Protocol.estimate_variance matches the spread of
    2000 simulated raw OUE estimates within 10% (the relative standard error of a variance from 2000 draws is 3%)."""
    grr = protocols.grr(5, 1.0)
    counts = np.array([300.0, 250.0, 200.0, 150.0, 100.0])
    q = counts / counts.sum()
    np.testing.assert_allclose(privest.inv_variance(privest.krr(5, 1.0), counts),
                               q * (1 - q) / (1000 * (grr.p_star - grr.q_star) ** 2), rtol=1e-10)
    np.testing.assert_allclose(grr.estimate_variance(np.repeat(np.arange(5), counts.astype(int))),
                               q * (1 - q) / (1000 * (grr.p_star - grr.q_star) ** 2), rtol=1e-12)
    rng = privest.rng_for(2026, "oue variance")
    theta, n, oue = np.array([0.4, 0.3, 0.2, 0.1]), 2000, protocols.oue(4, 1.0)
    runs = [oue.sample(rng.choice(4, size=n, p=theta), rng) for _ in range(2000)]
    spread = np.var([oue.estimate(r) for r in runs], axis=0, ddof=1)
    q_true = oue.q_star + theta * (oue.p_star - oue.q_star)
    np.testing.assert_allclose(spread, q_true * (1 - q_true) / (n * (oue.p_star - oue.q_star) ** 2), rtol=0.1)
    np.testing.assert_allclose(np.mean([oue.estimate_variance(r) for r in runs[:50]], axis=0), spread, rtol=0.1)


def test_the_bootstrap_holds_the_boundary_and_agrees_with_fisher_inside():
    rng = privest.rng_for(2026, "bootstrap boundary")
    theta = np.array([0.4, 0.3, 0.2, 0.1, 0.0])
    A = privest.krr(5, 2.0)
    counts = privest.sample_counts(A, rng.multinomial(10_000, theta), rng)
    result = privest.bootstrap([(A, counts)], rng, replicates=200)
    assert result.method == "bootstrap" and result.lower[-1] == 0.0 and result.covers(theta)[-1]
    fisher = privest.ibu(A, counts).interval()
    width_ratio = (result.upper - result.lower)[:4] / (fisher.upper - fisher.lower)[:4]
    assert (0.7 < width_ratio).all() and (width_ratio < 1.3).all(), width_ratio
    oue = protocols.oue(5, 2.0)
    reports = oue.sample(rng.choice(5, size=3000, p=theta), rng)
    boot = privest.bootstrap([(oue, reports)], rng, replicates=20)
    assert boot.lower[-1] == 0.0 and (boot.lower <= boot.estimate).all() and (boot.estimate <= boot.upper).all()


def test_the_bootstrap_gives_the_same_interval_on_one_thread_or_two(monkeypatch):
    """The replicates are drawn in turn from rng and estimated on PRIVEST_THREADS threads: the same bytes."""
    rng_seed = "bootstrap threads"
    oue = protocols.oue(6, 1.0)
    reports = oue.sample(privest.rng_for(2026, rng_seed).choice(6, size=2000), privest.rng_for(1, rng_seed))
    results = []
    for threads in ("1", "2", "3"):
        monkeypatch.setenv("PRIVEST_THREADS", threads)
        result = privest.bootstrap([(oue, reports)], privest.rng_for(2, rng_seed), replicates=15)
        results.append((result.lower.tobytes(), result.upper.tobytes()))
    assert results[0] == results[1] == results[2]
    other = privest.bootstrap([(oue, reports)], privest.rng_for(3, rng_seed), replicates=15)
    assert (other.lower.tobytes(), other.upper.tobytes()) != results[0]  # the check can fail: another rng differs


def test_bad_levels_and_results_without_a_likelihood_are_named():
    with pytest.raises(ValueError, match="level"):
        privest.inv_interval(privest.krr(3, 1.0), np.array([5.0, 3.0, 2.0]), level=1.0)
    with pytest.raises(ValueError, match="likelihood"):
        privest.IbuResult(np.array([0.5, 0.5]), 1, 0.0, False).interval()
    with pytest.raises(TypeError, match="groups"):
        privest.bootstrap([privest.matrix_group(privest.krr(3, 1.0), np.array([5.0, 3.0, 2.0]))],
                          privest.rng_for(1, "x"))


def test_the_simplex_covariance_is_the_basis_form_and_a_blind_direction_gets_0_to_1():
    """J^-1 - J^-1 1 1^T J^-1 / 1^T J^-1 1 equals U (U^T J U)^-1 U^T (U: eigenvectors of I - 11^T/k); an information of
    rank below k - 1 (three observables for six secrets) leaves directions without information: their secrets get
    an infinite variance and the interval [0, 1]."""
    rng = np.random.default_rng(5)
    B = rng.random((6, 9))
    U = np.linalg.eigh(np.eye(6) - 1 / 6)[1][:, 1:]
    np.testing.assert_allclose(privest.intervals.simplex_covariance(B @ B.T),
                               U @ np.linalg.solve(U.T @ B @ B.T @ U, U.T), atol=1e-9)
    blind = privest.intervals.simplex_covariance(B[:, :3] @ B[:, :3].T)
    assert np.isinf(np.diag(blind)).all()
    interval = privest.intervals.fisher_interval(np.full(6, 1 / 6), B[:, :3] @ B[:, :3].T)
    assert (interval.lower == 0).all() and (interval.upper == 1).all()
    grr = protocols.grr(6, 1.0)  # two secrets nobody reported: GRR's reports cannot tell them apart
    reports = np.repeat(np.arange(4), 50)
    fitted = privest.gibu([(grr, reports)])
    result = fitted.interval()
    assert (result.upper[4:] == 1).all() and (result.upper[:4] < 1).all()
    # the singular information takes the basis form: its informative part lies in the vectors summing to 0
    covariance = privest.intervals.simplex_covariance(fitted.likelihood.information(fitted.theta))
    assert np.isinf(np.diag(covariance)[4:]).all() and np.isfinite(covariance[:4, :4]).all()
    np.testing.assert_allclose(privest.intervals.simplex_covariance(B @ B.T).sum(axis=1), 0, atol=1e-9)


def test_intervals_from_too_few_reports_are_the_whole_range_and_say_so():
    """One report gave 95% intervals of width 0 (its plug-in variance is 0), which cover nothing."""
    one = privest.inv_interval(privest.krr(3, 1.0), np.array([1, 0, 0]), n=1)
    assert not one.informative and np.all(one.lower == 0) and np.all(one.upper == 1)
    oue = protocols.oue(4, 1.0)
    few = oue.interval(oue.sample(np.zeros(privest.intervals.MIN_NORMAL_REPORTS - 1, dtype=np.int64),
                                  np.random.default_rng(0)))
    assert not few.informative and np.all(few.upper - few.lower == 1)
    enough = oue.interval(oue.sample(np.zeros(privest.intervals.MIN_NORMAL_REPORTS, dtype=np.int64),
                                     np.random.default_rng(0)))
    assert enough.informative and np.all(enough.upper - enough.lower < 1)
