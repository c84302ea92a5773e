"""Shokri et al.'s optimal mechanism: the lazy LP against the LP written out in full, and the LP's own claims."""

import functools

import numpy as np
import pytest

from privest.alphabets import Grid, linear_distances
from privest.shokri import adversary_loss, blind_guess_loss, shokri, solve_shokri

GRID = Grid(5, 5, 1.0).distances()  # L* = 1.874
LINE = linear_distances(20)  # L* = 5


def independent_adversary_loss(A, loss, pi):
    """sum_y min_z sum_x pi_x A[x, y] l(x, z), written out with loops."""
    k = len(pi)
    total = 0.0
    for y in range(k):
        total += min(sum(pi[x] * A[x, y] * loss[x, z] for x in range(k)) for z in range(k))
    return total


@functools.cache
def solved(alphabet, Q, lazy=True, cap=True, prior=None):
    loss = {"grid": GRID, "line": LINE}[alphabet]
    pi = None if prior is None else np.array(prior)
    return solve_shokri(loss, Q, pi, lazy=lazy, cap_at_blind_guess=cap)


CASES = [("grid", Q) for Q in (0.3, 0.9, 1.5, 1.874, 2.5)] + [("line", Q) for Q in (1.0, 3.0, 4.9, 7.0)]


@pytest.mark.parametrize(("alphabet", "Q"), CASES)
def test_lazy_lp_has_the_objective_of_the_full_lp(alphabet, Q):
    full = solved(alphabet, Q, lazy=False, cap=False)
    assert full.constraints == len(full.A) ** 2
    for lazy in (solved(alphabet, Q), solved(alphabet, Q, cap=False)):
        assert lazy.objective == pytest.approx(full.objective, abs=1e-6)
        assert lazy.constraints < len(lazy.A) ** 2


@pytest.mark.parametrize(("alphabet", "Q"), CASES)
def test_optimum_is_q_below_saturation_and_the_blind_guess_loss_above(alphabet, Q):
    loss = {"grid": GRID, "line": LINE}[alphabet]
    blind = blind_guess_loss(loss)
    for solution in (solved(alphabet, Q, lazy=False, cap=False), solved(alphabet, Q)):
        assert solution.optimum == min(Q, blind)
        assert solution.objective == pytest.approx(min(Q, blind), abs=1e-7)


@pytest.mark.parametrize(("alphabet", "Q"), CASES)
def test_quality_constraint_is_tight_below_saturation_and_slack_above(alphabet, Q):
    full = solved(alphabet, Q, lazy=False, cap=False)
    capped = solved(alphabet, Q)
    if Q <= full.blind_guess_loss:
        # Tight: the adversary's loss never exceeds the quality loss, and the optimum is Q.
        assert full.quality_loss == pytest.approx(Q, abs=1e-7)
        assert capped.quality_loss == pytest.approx(Q, abs=1e-7)
    else:
        assert full.quality_loss <= Q + 1e-7
        assert capped.Q_solved == capped.blind_guess_loss
        assert capped.quality_loss == pytest.approx(capped.blind_guess_loss, abs=1e-7)
        assert capped.quality_loss < Q  # slack: the capped mechanism spends only L*


@pytest.mark.parametrize(("alphabet", "Q"), CASES)
def test_mechanism_is_row_stochastic_and_non_negative(alphabet, Q):
    for solution in (solved(alphabet, Q, lazy=False, cap=False), solved(alphabet, Q)):
        assert solution.A.dtype == np.float64
        assert (solution.A >= 0).all()
        np.testing.assert_allclose(solution.A.sum(axis=1), 1.0, rtol=0, atol=1e-9)


@pytest.mark.parametrize(("alphabet", "Q"), CASES)
def test_objective_equals_the_adversary_loss_computed_from_the_matrix(alphabet, Q):
    loss = {"grid": GRID, "line": LINE}[alphabet]
    pi = np.full(len(loss), 1 / len(loss))
    solution = solved(alphabet, Q)
    expected = independent_adversary_loss(solution.A, loss, pi)
    assert solution.objective == pytest.approx(expected, abs=1e-9)
    assert solution.lp_objective == pytest.approx(expected, abs=1e-6)  # the LP's own sum of u_y
    assert adversary_loss(solution.A, loss) == pytest.approx(expected, abs=1e-9)


def test_lazy_lp_with_a_non_uniform_prior_matches_the_full_lp():
    prior = tuple(np.arange(1.0, 21.0) / np.arange(1.0, 21.0).sum())
    loss = LINE
    blind = blind_guess_loss(loss, np.array(prior))
    for Q in (0.5, 2.0, blind + 1.0):
        full = solved("line", Q, lazy=False, cap=False, prior=prior)
        lazy = solved("line", Q, prior=prior)
        assert lazy.objective == pytest.approx(full.objective, abs=1e-6)
        assert lazy.objective == pytest.approx(min(Q, blind), abs=1e-6)
        assert lazy.objective == pytest.approx(independent_adversary_loss(lazy.A, loss, np.array(prior)), abs=1e-9)


def test_neighbours_suffice_on_the_line_and_the_grid_needs_few_rounds():
    # f_y is convex on a line, so the constraints of z in {y - 1, y, y + 1} are all the LP needs.
    for Q in (1.0, 3.0, 4.9, 7.0):
        assert solve_shokri(LINE, Q, nearest=3).rounds == 1
    assert max(solved("grid", Q).rounds for Q in (0.3, 0.9, 1.5, 1.874, 2.5)) <= 5


def test_the_blind_guess_loss_caps_the_optimum_and_a_two_point_mechanism_attains_it():
    assert blind_guess_loss(linear_distances(100)) == pytest.approx(25.0)
    loss = GRID
    blind = blind_guess_loss(loss)
    centre = int(np.argmin(loss.mean(axis=0)))
    for Q in (0.5, 1.0, 3.0):
        t = min(Q / blind, 1.0)
        trivial = (1 - t) * np.eye(len(loss))
        trivial[:, centre] += t
        assert adversary_loss(trivial, loss) == pytest.approx(min(Q, blind), abs=1e-12)


def test_zero_q_gives_the_identity():
    for loss in (GRID, LINE):
        solution = solve_shokri(loss, 0.0)
        np.testing.assert_array_equal(solution.A, np.eye(len(loss)))
        assert solution.objective == 0.0


def test_the_same_input_gives_a_byte_identical_matrix_and_the_solver_is_recorded():
    first = shokri(GRID, 1.2)
    second = shokri(GRID.copy(), 1.2)
    assert first.tobytes() == second.tobytes()
    solution = solved("grid", 1.5)
    assert solution.solver.startswith("HiGHS ") and "through highspy" in solution.solver
    assert "primal simplex, then dual simplex from the kept optimal basis" in solution.solver


def test_a_tiny_per_round_budget_still_reaches_the_optimum():
    solution = solve_shokri(GRID, 1.5, nearest=1, per_round=2)
    assert solution.objective == pytest.approx(1.5, abs=1e-7)
    assert solution.rounds > 1


@pytest.mark.parametrize(("call", "name"), [
    (lambda: shokri(np.ones((3, 4)), 1.0), "distances"),
    (lambda: shokri(np.zeros((0, 0)), 1.0), "distances"),
    (lambda: shokri(np.array([[0.0, 1.0], [2.0, 0.0]]), 1.0), "distances"),
    (lambda: shokri(np.array([[0.0, -1.0], [-1.0, 0.0]]), 1.0), "distances"),
    (lambda: shokri(np.array([[1.0, 1.0], [1.0, 0.0]]), 1.0), "distances"),
    (lambda: shokri(np.array([[0.0, np.nan], [np.nan, 0.0]]), 1.0), "distances"),
    (lambda: shokri(LINE, -0.1), "Q"),
    (lambda: shokri(LINE, float("nan")), "Q"),
    (lambda: shokri(LINE, 1.0, np.full(19, 1 / 19)), "prior"),
    (lambda: shokri(LINE, 1.0, np.full(20, 0.1)), "prior"),
    (lambda: shokri(LINE, 1.0, np.r_[-0.05, 0.1, np.full(18, 0.95 / 18)]), "prior"),
    (lambda: shokri(LINE, 1.0, solver="GLPK_CMD"), "solver"),
    (lambda: shokri(LINE, 1.0, nearest=0), "nearest"),
    (lambda: shokri(LINE, 1.0, per_round=0), "per_round"),
    (lambda: shokri(LINE, 1.0, tol=0.0), "tol"),
])
def test_invalid_arguments_raise_value_errors_naming_them(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_negative_q_is_reported_infeasible():
    with pytest.raises(ValueError, match="infeasible"):
        shokri(GRID, -1.0)
