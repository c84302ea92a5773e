"""privest.lp, the LP front end on HiGHS: small LPs with known optima, rows added to a live model re-solved from the
kept basis, clear errors, determinism and the recorded solver."""

import numpy as np
import pytest

from privest import lp


def transport(supply, demand, cost):
    """The transportation LP: x[s, d] >= 0, rows sum to the supply, columns to the demand; returns (program, shape)."""
    S, D = len(supply), len(demand)
    program = lp.LinearProgram(np.asarray(cost, dtype=float).ravel(), name="transport")
    rows = np.r_[np.repeat(np.arange(S), D), S + np.tile(np.arange(D), S)]
    columns = np.r_[np.arange(S * D), np.arange(S * D)]
    program.add_rows(rows, columns, np.ones(2 * S * D), np.r_[supply, demand], np.r_[supply, demand])
    return program


def test_a_small_lp_reaches_its_known_vertex_in_full_precision():
    # maximise 3x + 2y subject to x + y <= 4, x + 3y <= 6, x <= 3: the optimum is (3, 1), value 11.
    solution = lp.solve([3.0, 2.0], [0, 0, 1, 1, 2], [0, 1, 0, 1, 0], [1.0, 1.0, 1.0, 3.0, 1.0], -np.inf,
                        [4.0, 6.0, 3.0], sense="max")
    assert solution.x.dtype == np.float64
    assert solution.x.tolist() == [3.0, 1.0]
    assert solution.objective == 11.0


def test_a_transportation_problem_matches_the_earth_movers_distance():
    # Moving mass on a line with cost |i - j|: the optimum is the 1-D EMD, sum of |CDF differences|.
    p, q = np.array([0.5, 0.2, 0.3, 0.0]), np.array([0.1, 0.1, 0.4, 0.4])
    cost = np.abs(np.subtract.outer(np.arange(4), np.arange(4))).astype(float)
    solution = transport(p, q, cost).solve()
    assert solution.objective == pytest.approx(np.abs(np.cumsum(p - q)).sum(), abs=1e-12)
    plan = solution.x.reshape(4, 4)
    np.testing.assert_allclose(plan.sum(axis=1), p, atol=1e-12)
    np.testing.assert_allclose(plan.sum(axis=0), q, atol=1e-12)


def test_rows_added_after_a_solve_are_solved_from_the_kept_basis():
    # A 30 x 30 transportation problem, then a row capping one route at half its flow: the re-solve starts from the
    # optimal basis and needs a few dual simplex iterations, where the same LP from scratch needs many more.
    rng = np.random.default_rng(5)
    supply, demand = rng.dirichlet(np.ones(30)), rng.dirichlet(np.ones(30))
    cost = rng.random((30, 30))
    live = transport(supply, demand, cost)
    first = live.solve(method="primal")
    route = int(np.argmax(first.x))
    live.add_rows([0], [route], [1.0], upper=first.x[route] / 2)
    again = live.solve()
    fresh = transport(supply, demand, cost)
    fresh.add_rows([0], [route], [1.0], upper=first.x[route] / 2)
    scratch = fresh.solve()
    assert again.objective == pytest.approx(scratch.objective, rel=1e-12)
    assert again.objective > first.objective
    assert 0 < again.iterations < scratch.iterations / 3
    assert live.solves == 2 and live.rows == 61


def test_infeasible_and_unbounded_lps_raise_lp_errors_naming_them():
    with pytest.raises(lp.LPError, match=r"the LP 'neg' is infeasible: HiGHS model status 'Infeasible' \(HiGHS "):
        lp.solve([1.0], [0], [0], [1.0], -np.inf, -1.0, name="neg")
    with pytest.raises(lp.LPError, match=r"the LP 'free' is unbounded"):
        lp.solve([1.0, 0.0], [0], [1], [1.0], -np.inf, 1.0, lower=-np.inf, name="free")
    # Infeasibility that appears only when a lazy row is added to a solved model.
    program = lp.LinearProgram([1.0, 1.0], name="late")
    program.add_rows([0, 0], [0, 1], [1.0, 1.0], lower=1.0)
    program.solve()
    program.add_rows([0, 0], [0, 1], [1.0, 1.0], upper=0.5)
    with pytest.raises(lp.LPError, match="'late' is infeasible"):
        program.solve()


def test_the_same_lp_gives_the_same_bytes_and_the_solver_is_recorded():
    import highspy

    cost = np.random.default_rng(1).random((12, 12))
    first, second = (transport(np.full(12, 1 / 12), np.full(12, 1 / 12), cost).solve() for _ in range(2))
    assert first.x.tobytes() == second.x.tobytes()
    assert first.solver == lp.solver_description("dual")
    assert first.solver.startswith(f"HiGHS {highspy.Highs().version()} (git {highspy.Highs().githash()}) through "
                                   "highspy ")
    assert first.solver.endswith("; dual simplex, serial")


@pytest.mark.parametrize(("call", "match"), [
    (lambda: lp.LinearProgram([1.0, np.nan]), "cost"),
    (lambda: lp.LinearProgram([[1.0]]), "cost"),
    (lambda: lp.LinearProgram([1.0], sense="up"), "sense"),
    (lambda: lp.LinearProgram([1.0], lower=2.0, upper=1.0), "lower"),
    (lambda: lp.LinearProgram([1.0]).add_rows([0], [1], [1.0]), "columns"),
    (lambda: lp.LinearProgram([1.0]).add_rows([0, 0], [0], [1.0]), "one length"),
    (lambda: lp.LinearProgram([1.0]).add_rows([0], [0], [np.inf]), "values"),
    (lambda: lp.LinearProgram([1.0]).solve(method="barrier"), "method"),
])
def test_bad_arguments_raise_value_errors_naming_them(call, match):
    with pytest.raises(ValueError, match=match):
        call()
