"""The library's default estimator, ``accelerate="squarem-newton"``: SQUAREM, then Newton's method on the support
(privest/estimators/_squarem.py), checked against the optimality conditions of the MLE, a closed form with zeros,
an independent optimiser and SQUAREM alone."""

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.stats import binom

from privest import estimators, protocols
from privest import mechanisms as mech
from privest.estimators import _iteration, _squarem
from privest.sampling import rng_for


def _optimality(result, groups) -> tuple[float, float]:
    """(max_x u_x - 1, max over the support of |u_x - 1|) at the estimate (u = dL/dtheta): both 0 at the MLE."""
    u = _iteration._Likelihood.of([estimators.iterative._as_group(g) for g in groups]).gradient(result.theta)
    return float(u.max() - 1), float(np.abs(u[result.theta > 1e-9] - 1).max())


def _binomial_reports(protocol, k: int, n: int, seed: str):
    """Secrets binomial over k values (tails near 0: an MLE with zeros, which EM approaches slowly)."""
    rng = rng_for(2026, "test_newton", seed)
    return protocol.sample(rng.choice(k, n, p=binom.pmf(np.arange(k), k - 1, 0.5)), rng)


def test_exact_frequencies_with_zeros_give_theta_in_a_few_newton_steps():
    """k-RR's exact report frequencies of a theta with five zeros: the default returns theta (its zeros included)
    after SQUAREM's 32 updates and a few Newton steps; SQUAREM alone has not reached the gap after 2,000 updates."""
    A, theta = mech.krr(8, 1.0), np.array([0.3, 0.3, 0.4, 0, 0, 0, 0, 0])
    result = estimators.ibu(A, 1000 * theta @ A, delta=1e-13)
    assert not result.capped and result.gap < 1e-13 and result.iterations < 50
    assert np.abs(result.theta - theta).max() < 1e-9
    alone = estimators.ibu(A, 1000 * theta @ A, delta=1e-13, max_iter=2000, accelerate="squarem-direct")
    assert alone.capped and alone.gap > 1e-13  # the check can fail: SQUAREM alone does


@pytest.mark.parametrize("name", ["oue", "olh", "ss", "grr", "she"])
def test_the_default_meets_the_mles_optimality_conditions_where_the_mle_has_zeros(name):
    """At the MLE, u_x = 1 on the support and u_x <= 1 off it: the default's estimate meets both to 1e-9 and its L is
    the best of a long SQUAREM run's (to 1e-12), on reports whose MLE has zeros."""
    k = 20
    protocol = protocols.by_name(name, k, 1.0)
    groups = [(protocol, _binomial_reports(protocol, k, 4000, name))]
    result = estimators.gibu(groups)
    long_run = estimators.gibu(groups, delta=1e-13, max_iter=20_000, accelerate="squarem-direct")
    above, off = _optimality(result, groups)
    assert not result.capped and above < 1e-10 and off < 1e-9
    assert result.log_likelihood >= long_run.log_likelihood - 1e-12
    assert (result.theta == 0).any() or result.theta.min() < 1e-9  # the case has zeros (else it tests nothing new)
    short = estimators.gibu(groups, max_iter=20, accelerate="squarem-direct")
    assert max(_optimality(short, groups)) > 1e-9  # the check can fail: an estimate stopped early does


def test_the_default_agrees_with_an_independent_optimiser():
    """Geometric and k-RR users together: the default's estimate and scipy's SLSQP on the same log-likelihood agree
    to 1e-6 (SLSQP's own tolerance), with the default's L at least SLSQP's."""
    k = 40
    rng = rng_for(2026, "test_newton", "slsqp")
    theta = np.where(np.arange(k) < 25, rng.dirichlet(np.ones(k)), 0.0)
    theta /= theta.sum()
    A, B = mech.geometric(k, 1.0), mech.krr(k, 2.0)
    groups = [(A, 3000 * theta @ A), (B, 2000 * theta @ B)]
    result = estimators.gibu(groups, delta=1e-13)

    def negative(x):
        return -estimators.log_likelihood(np.maximum(x, 0), groups)

    best = minimize(negative, np.full(k, 1 / k), method="SLSQP", bounds=[(0, 1)] * k,
                    constraints={"type": "eq", "fun": lambda x: x.sum() - 1}, options={"ftol": 1e-15, "maxiter": 2000})
    assert result.log_likelihood >= -best.fun - 1e-12
    assert np.abs(result.theta - best.x).max() < 1e-6
    assert np.abs(result.theta - theta).max() < 1e-9  # exact frequencies: the MLE is theta


def test_newton_stops_within_the_rounding_of_l_by_the_gap():
    """OLH at k = 16 on Dirichlet data: near the MLE the step's rise in L is below L's rounding, so a step is taken
    when it lowers the gap (``FLAT_ULPS``); without that rule Newton stalled at a gap of 1.5e-9 and SQUAREM took
    another 90 updates."""
    rng = np.random.default_rng(7)
    olh = protocols.olh(16, 1.0)
    reports = olh.sample(rng.choice(16, 20_000, p=rng.dirichlet(np.ones(16))), rng)
    result = estimators.gibu([(olh, reports)])
    assert not result.capped and result.gap < 1e-10 and result.iterations <= 40


def test_a_singular_information_falls_back_to_squarem():
    """Two secrets with the same row of A (not identifiable: the information is singular along their difference):
    where Newton cannot step, SQUAREM goes on and stops by the same gap."""
    k = 40
    A = mech.krr(k, 1.0)
    A[1] = A[0]
    rng = rng_for(2026, "test_newton", "singular")
    counts = rng.multinomial(20_000, rng.dirichlet(np.ones(k)) @ A).astype(float)
    result = estimators.ibu(A, counts)
    alone = estimators.ibu(A, counts, accelerate="squarem-direct")
    assert not result.capped and result.gap < 1e-10
    assert abs(result.log_likelihood - alone.log_likelihood) < 1e-10


def test_the_cap_counts_newton_steps_and_reports_the_gap():
    oue = protocols.oue(32, 1.0)
    groups = [(oue, _binomial_reports(oue, 32, 5000, "cap"))]
    free = estimators.gibu(groups)
    assert free.iterations > 33  # Newton's steps start after 32 updates here, and take more than one
    capped = estimators.gibu(groups, max_iter=33)
    assert capped.capped and capped.iterations == 33 and capped.gap is not None and capped.gap > 1e-10
    changed = estimators.gibu(groups, stop="change")
    assert not changed.capped and changed.gap is None and changed.log_likelihood >= free.log_likelihood - 1e-10


def test_beyond_newton_max_k_the_default_is_squarem_alone(monkeypatch):
    oue = protocols.oue(32, 1.0)
    groups = [(oue, _binomial_reports(oue, 32, 5000, "max k"))]
    alone = estimators.gibu(groups, accelerate="squarem-direct")
    assert estimators.gibu(groups).iterations != alone.iterations
    monkeypatch.setattr(_squarem, "NEWTON_MAX_K", 31)
    default = estimators.gibu(groups)
    assert default.iterations == alone.iterations and np.array_equal(default.theta, alone.theta)


def test_issue_47s_notebook_case_ends_in_a_few_newton_steps_on_every_draw():
    """OUE, k = 50, eps = 1, n = 10^5, binomial secrets (27 of 50 zeros in the MLE): SQUAREM alone took 350 to 3,584
    updates to the gap on such draws; the default ends within 60 (50 updates and its Newton steps) on each."""
    oue = protocols.oue(50, 1.0)
    for draw in range(4):
        result = estimators.gibu([(oue, _binomial_reports(oue, 50, 100_000, f"notebook {draw}"))])
        assert not result.capped and result.gap < 1e-10 and result.iterations <= 60, (draw, result.iterations)


def test_a_newton_step_sets_to_zero_the_secrets_it_would_take_below_zero():
    """From SQUAREM's 50 updates on a notebook draw: the step solves the model again with the secrets it would take
    negative set to 0, so theta + d is a distribution (no entry below 0, some exactly 0) and its L is higher: the full
    step is taken (projected without this, the first step needed t = 1/512 on one draw)."""
    oue = protocols.oue(50, 1.0)
    groups = [(oue, _binomial_reports(oue, 50, 100_000, "notebook 0"))]
    likelihood = _iteration._Likelihood.of([estimators.iterative._as_group(g) for g in groups])
    theta = estimators.gibu(groups, accelerate="squarem-direct", max_iter=50).theta
    step = _squarem._newton_step(likelihood, theta, likelihood.gradient(theta))
    after = theta + step
    assert after.min() >= -1e-15 and abs(after.sum() - 1) < 1e-12
    assert np.any((theta > 0) & (np.abs(after) <= 1e-15))
    assert likelihood.value(np.maximum(after, 0) / np.maximum(after, 0).sum()) > likelihood.value(theta)


def test_where_newton_gives_up_squarem_goes_on_from_where_newton_started():
    """The IBU paper's remapped planar mechanism (Figure 6: rank 16 of 25 secrets, not identifiable): from this start
    Newton's steps stall (each raised L by a hair; before ``NEWTON_STALLS`` a million of them hit the cap) and its
    iterate holds exact zeros that GIBU's update could never leave (from it, SQUAREM was still 9e-9 short at a million
    updates); handed back, SQUAREM ends where it ends alone, a few Newton steps later."""
    from privest.alphabets import Grid

    M = mech.planar_geometric_remapped(Grid(5, 5, 1.0), Grid(4, 4, 1.25), 0.5)
    rng = rng_for(0, "test", "fig06")
    q = rng.dirichlet(np.ones(25)) @ M
    start = rng.dirichlet(np.ones(25))
    result = estimators.ibu(M, q, delta=1e-16, max_iter=1_000_000, theta0=start)
    alone = estimators.ibu(M, q, delta=1e-16, max_iter=1_000_000, theta0=start, accelerate="squarem-direct")
    assert not result.capped and result.gap < 1e-16 and result.log_likelihood == alone.log_likelihood
    assert alone.iterations < result.iterations <= alone.iterations + 4 * _squarem.NEWTON_STALLS
