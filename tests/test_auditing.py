"""The empirical privacy audit (privest.audit): every matrix mechanism and every protocol passes (its bound stays
below its claimed eps), the bound comes within 20% of eps for the tight ones (GRR, SUE, OUE at their worst pair),
and a client that flips with the wrong probability is caught.

False failures: each "passes" check holds with probability at least its confidence, 0.9999 here, so the 20 of
them fail together with probability below 0.2% (union bound); the draws are seeded, so a run is reproducible."""

import math

import numpy as np
import pytest

import privest
from privest import counts, protocols
from privest.alphabets import Grid

CONFIDENCE = 0.9999

MATRICES = {
    "krr": privest.krr(6, 1.0),
    "geometric": privest.geometric(8, 0.4),
    "laplace": privest.laplace(8, 0.4),
    "exponential": privest.exponential(privest.linear_distances(8), 0.5),
    "planar_geometric": privest.planar_geometric(Grid(3, 3, 1.0), 0.5),
    "planar_laplace": privest.planar_laplace(Grid(3, 3, 1.0), 0.5),
}


@pytest.mark.parametrize("name", sorted(MATRICES))
def test_every_matrix_mechanism_passes(name):
    A = MATRICES[name]
    claimed = privest.ldp_level(A)
    result = privest.audit(A, claimed, privest.rng_for(2026, "audit", name), confidence=CONFIDENCE)
    assert not result.exceeds and 0 < result.bound <= claimed, result


@pytest.mark.parametrize("name", ["GM", "EM", "WM"])
def test_the_count_mechanisms_pass_between_neighbouring_counts(name):
    """The count paper's mechanisms promise eps = -log(alpha) between neighbouring inputs i, i + 1 only: audited at
    the neighbouring pair whose columns differ most."""
    alpha = 0.6
    A = counts.as_row_stochastic(counts.by_name(name, 4, alpha))
    claimed = -math.log(alpha)
    ratios = [privest.ldp_level(A[[i, i + 1]]) for i in range(4)]
    pair = (int(np.argmax(ratios)), int(np.argmax(ratios)) + 1)
    result = privest.audit(A, claimed, privest.rng_for(2026, "audit counts", name), confidence=CONFIDENCE,
                           inputs=pair)
    assert not result.exceeds, result


@pytest.mark.parametrize("name", protocols.NAMES)
def test_every_protocol_passes(name):
    protocol = protocols.by_name(name, 8, 1.0)
    result = privest.audit(protocol, 1.0, privest.rng_for(2026, "audit", name), confidence=CONFIDENCE)
    assert not result.exceeds and 0 < result.bound <= 1.0, result


@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0])
@pytest.mark.parametrize("name", ["grr", "sue", "oue"])
def test_the_bound_is_within_20_percent_for_grr_sue_oue(name, eps):
    """200,000 trials an input: the event "x1 in the set, x2 not" has likelihood ratio exactly e^eps, and the
    Clopper-Pearson bounds at 99% lose under 10% of eps here."""
    protocol = protocols.by_name(name, 16, eps)
    result = privest.audit(protocol, eps, privest.rng_for(2026, "audit tight", name, eps), trials=200_000)
    assert 0.8 * eps <= result.bound <= eps, result


class _LeakyGRR(protocols.GRR):
    """A planted bug: GRR that claims eps but keeps the true value with the probability of 2 eps."""

    def sample(self, secrets, rng):
        return protocols.GRR(self.k, 2 * self.eps).sample(secrets, rng)


def test_a_client_flipping_with_the_wrong_probability_is_caught():
    result = privest.audit(_LeakyGRR(8, 1.0), 1.0, privest.rng_for(2026, "audit bug"), trials=20_000)
    assert result.exceeds and result.bound > 1.5, result
    A = privest.krr(8, 1.0)  # the matrix claims eps 1; the client keeps as k-RR at 1.5 does

    def leaky(secrets, rng):
        return privest.sample(privest.krr(8, 1.5), secrets, rng)

    result = privest.audit(A, 1.0, privest.rng_for(2026, "audit bug matrix"), trials=50_000, client=leaky)
    assert result.exceeds, result


def test_the_result_states_bound_claim_and_confidence_and_bad_arguments_are_named():
    result = privest.audit(privest.krr(4, 1.0), 1.0, privest.rng_for(1, "audit fields"), trials=1000,
                           confidence=0.95, inputs=(2, 1))
    assert result.claimed_eps == 1.0 and result.confidence == 0.95 and result.inputs == (2, 1)
    assert result.trials == 1000 and len(result.hits) == 2 and "columns [2]" in result.event
    with pytest.raises(ValueError, match="inputs"):
        privest.audit(privest.krr(4, 1.0), 1.0, privest.rng_for(1, "x"), inputs=(1, 1))
    with pytest.raises(ValueError, match="trials"):
        privest.audit(privest.krr(4, 1.0), 1.0, privest.rng_for(1, "x"), trials=10)
    with pytest.raises(ValueError, match="subject"):
        privest.audit(np.ones((3, 3)), 1.0, privest.rng_for(1, "x"))


MULTIDIMENSIONAL = [("spl", "grr", (2, 3)), ("spl", "oue", (3, 3, 3)), ("smp", "grr", (2, 3)), ("smp", "oue", (4, 3)),
                    ("smp", "olh", (5, 2)), ("rsfd", "grr", (2, 2)), ("rsfd", "sue_zero", (3, 3))]


@pytest.mark.parametrize("solution, protocol, ks", MULTIDIMENSIONAL)
def test_multidimensional_solutions_are_audited_on_tuples(solution, protocol, ks):
    # SPL and SMP give eps between any two tuples (SPL: the composition of d reports at eps / d, all of whose columns'
    # events the default pair tests; SMP: the drawn attribute's event): they pass, within 20% of eps for GRR and OUE.
    # RS+FD gives eps only between tuples that differ in one attribute: the default pair, which differs in all, shows
    # the amplified eps' = ln(d (e^eps - 1) + 1) its sampled attribute is reported at (the fake columns have the same
    # law under both tuples), and a pair that differs in one attribute passes.
    subject = getattr(protocols, solution)(ks, 1.0, protocol)
    rng = privest.rng_for(2026, "audit tuples", solution, protocol)
    result = privest.audit(subject, 1.0, rng, trials=200_000, confidence=CONFIDENCE)
    assert result.inputs == ((0,) * len(ks), tuple(k - 1 for k in ks))
    if solution != "rsfd":
        assert not result.exceeds, result
        assert result.bound > (0.8 if protocol != "olh" else 0.5), result
        return
    amplified = math.log(len(ks) * (math.e - 1) + 1)
    assert result.exceeds and result.bound > 0.9 * amplified, result
    one_apart = ((0,) * len(ks), (ks[0] - 1,) + (0,) * (len(ks) - 1))
    assert not privest.audit(subject, 1.0, rng, trials=200_000, confidence=CONFIDENCE, inputs=one_apart).exceeds


def test_a_multidimensional_client_at_the_wrong_eps_is_caught_and_bad_tuples_are_named():
    spl = protocols.spl((3, 3), 1.0, "grr")
    honest_at_twice = protocols.spl((3, 3), 2.0, "grr")  # each attribute at eps instead of eps / d
    result = privest.audit(spl, 1.0, privest.rng_for(2026, "audit tuples leak"), trials=50_000,
                           client=honest_at_twice.sample)
    assert result.exceeds and result.bound > 1.5, result
    rng = privest.rng_for(1, "audit tuples bad")
    with pytest.raises(ValueError, match="differ in at least one attribute"):
        privest.audit(spl, 1.0, rng, inputs=((1, 2), (1, 2)))
    with pytest.raises(TypeError, match="pair of tuples of 2 secrets"):
        privest.audit(spl, 1.0, rng, inputs=(0, 2))
    with pytest.raises(ValueError, match=r"inputs\[1\]\[0\]"):
        privest.audit(spl, 1.0, rng, inputs=((0, 0), (3, 0)))
    smp = protocols.smp((3, 4), 1.0, "grr")
    result = privest.audit(smp, 1.0, rng, trials=1000, inputs=((0, 1), (0, 3)))  # differ in attribute 1 only
    assert result.inputs == ((0, 1), (0, 3)) and "drawn attribute" in result.event
