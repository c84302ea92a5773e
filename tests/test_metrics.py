"""EMD: the 1-D closed form against POT, and the metric axioms on a planar grid (issue 2, acceptance 5)."""

import numpy as np
import ot
import pytest

import privest
from privest.alphabets import Grid, linear_distances
from privest.metrics import emd, emd_1d
from privest.sampling import rng_for


@pytest.mark.parametrize(("k", "spacing"), [(2, 1.0), (20, 1.0), (100, 1.0), (37, 0.5)])
def test_emd_1d_equals_pot_on_the_linear_metric(k, spacing):
    rng = rng_for(0, "emd1d", k)
    for _ in range(5):
        p, q = rng.dirichlet(np.ones(k) * 0.5, size=2)
        expected = ot.emd2(p, q, linear_distances(k, spacing), numItermax=1_000_000)
        assert emd_1d(p, q, spacing) == pytest.approx(expected, abs=1e-9)
        assert emd(p, q, linear_distances(k, spacing)) == pytest.approx(expected, abs=1e-9)


def test_emd_is_a_metric_on_a_planar_grid():
    grid = Grid(6, 4, 0.5)
    d = grid.distances()
    rng = rng_for(0, "emd-planar")
    for _ in range(10):
        p, q, r = rng.dirichlet(np.ones(grid.k) * 0.3, size=3)
        assert emd(p, p, d) == pytest.approx(0, abs=1e-12)
        assert emd(p, q, d) == pytest.approx(emd(q, p, d), abs=1e-9)
        assert emd(p, r, d) <= emd(p, q, d) + emd(q, r, d) + 1e-9


def test_emd_of_point_masses_is_their_distance():
    grid = Grid(5, 5, 1.0)
    p, q = np.eye(grid.k)[0], np.eye(grid.k)[24]
    assert emd(p, q, grid.distances()) == pytest.approx(np.hypot(4, 4))


def test_emd_rejects_mismatched_inputs():
    with pytest.raises(ValueError, match="p and q"):
        emd_1d(np.ones(3) / 3, np.ones(4) / 4)
    with pytest.raises(ValueError, match="distances"):
        emd(np.ones(3) / 3, np.ones(3) / 3, np.zeros((2, 2)))
    with pytest.raises(ValueError, match="q must be a probability"):
        emd_1d(np.ones(3) / 3, np.array([1.0, 1.0, -1.0]))


def test_total_variation_is_the_emd_under_the_discrete_metric():
    rng = np.random.default_rng(7)
    for k in (2, 5, 9):
        p, q = rng.dirichlet(np.ones(k)), rng.dirichlet(np.ones(k))
        assert privest.total_variation(p, q) == pytest.approx(privest.emd(p, q, 1.0 - np.eye(k)), abs=1e-12)
        assert privest.total_variation(p, q) == pytest.approx(max(abs(p[s].sum() - q[s].sum())
                                                                  for s in _subsets(k)), abs=1e-12)


def _subsets(k):
    return [np.array([(mask >> i) & 1 for i in range(k)], dtype=bool) for mask in range(1 << k)]


def test_signed_emd_1d_by_hand():
    # p - q = [0.4, 0.3, -0.6], cumulative [0.4, 0.7, 0.1]: the last term is the 0.1 of mass p has and q lacks
    p, q = np.array([0.6, 0.6, -0.1]), np.array([0.2, 0.3, 0.5])
    assert emd_1d(p, q, signed=True) == pytest.approx(1.2, abs=1e-15)
    assert emd_1d(p, q, 2.0, signed=True) == pytest.approx(2.4, abs=1e-15)
    assert emd_1d(q, p, signed=True) == emd_1d(p, q, signed=True)
    # a negative entry, summing to 1: cumulative [-0.5, 0.5, 0] -> 1.0, and the unmoved point mass -> 0
    assert emd_1d([-0.5, 1.0, 0.5], [0.0, 0.0, 1.0], signed=True) == pytest.approx(1.0, abs=1e-15)
    assert emd_1d([0.0, 2.0, 0.0], [0.0, 2.0, 0.0], signed=True) == 0.0
    # mass only: two vectors that differ in the last entry, by 0.3, cost 0.3 (one step)
    assert emd_1d([0.2, 0.8], [0.2, 0.5], signed=True) == pytest.approx(0.3, abs=1e-15)


def test_signed_emd_1d_on_distributions_is_the_emd():
    rng = rng_for(0, "signed emd")
    for k in (2, 9, 40):
        p, q = rng.dirichlet(np.ones(k), size=2)
        assert emd_1d(p, q, 0.5, signed=True) == pytest.approx(emd_1d(p, q, 0.5), abs=1e-14)


def test_signed_total_variation_by_hand():
    assert privest.total_variation([0.75, 0.5, -0.25], [0.0, 0.5, 0.5], signed=True) == pytest.approx(0.75)
    assert privest.total_variation([0.2, 0.8], [0.2, 0.5], signed=True) == pytest.approx(0.15)
    rng = rng_for(1, "signed tv")
    p, q = rng.dirichlet(np.ones(6), size=2)
    assert privest.total_variation(p, q, signed=True) == pytest.approx(privest.total_variation(p, q), abs=1e-15)


@pytest.mark.parametrize("function", ["emd_1d", "total_variation"])
def test_a_raw_estimate_without_signed_is_refused_naming_signed(function):
    score = getattr(privest, function)
    for raw in ([0.6, 0.6, -0.2], [0.5, 0.4, 0.3]):  # a negative entry; non-negative but summing to 1.2
        with pytest.raises(ValueError, match=rf"p must be a probability .*; .*{function}\(p, q, signed=True\)"):
            score(raw, [0.2, 0.3, 0.5])
    with pytest.raises(ValueError, match="p and q must be 1-D of one length"):
        score([0.2, 0.8], [0.2, 0.3, 0.5], signed=True)
    with pytest.raises(ValueError, match="q must hold finite numbers only, found nan"):
        score([0.2, 0.8], [0.2, np.nan], signed=True)
    with pytest.raises(TypeError, match="p must be an array of numbers"):
        score("0.2 0.8", [0.2, 0.8], signed=True)
    with pytest.raises(TypeError, match="signed must be True or False, got 'yes'"):
        score([0.2, 0.8], [0.2, 0.8], signed="yes")
