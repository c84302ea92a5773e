"""The count paper's mechanisms: closed forms against independent computations, the LP against the closed forms
(Theorems 3 and 4), the property checker against hand-made matrices and the paper's Figure 6, the nine combinations
of Figure 8 and the flowchart of Figure 5, then the experiment helpers."""

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from privest import counts
from privest.sampling import rng_for

GRID_N = (2, 3, 5, 8)
GRID_ALPHA = (0.2, 0.5, 0.76, 0.9, 0.99)
LP_TOL = 1e-6  # HiGHS's feasibility tolerance is 1e-7


# --- closed forms -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n, alpha", [(1, 0.5), (2, 0.9), (5, 0.3), (9, 0.76)])
def test_gm_is_two_sided_geometric_noise_clamped_to_the_range(n, alpha):
    # Definition 4: output = clamp(i + noise), P(noise = z) = (1-a)/(1+a) a^|z|, summed over a wide window.
    z = np.arange(-2000, 2001)
    noise = (1 - alpha) / (1 + alpha) * alpha ** np.abs(z)
    expected = np.zeros((n + 1, n + 1))
    for i in range(n + 1):
        np.add.at(expected[:, i], np.clip(i + z, 0, n), noise)
    np.testing.assert_allclose(counts.gm(n, alpha), expected, rtol=1e-12, atol=1e-15)


def test_gm_example_1_true_answer_eighteen_times_less_likely_than_a_wrong_one():
    P = counts.gm(2, 0.9)
    assert (1 - P[1, 1]) / P[1, 1] == pytest.approx(18, rel=1e-12)
    np.testing.assert_allclose([P[0, 1], P[2, 1], P[0, 0]], [0.9 / 1.9, 0.9 / 1.9, 1 / 1.9], rtol=1e-14)


@pytest.mark.parametrize("n", [1, 2, 4, 7, 30])
@pytest.mark.parametrize("alpha", GRID_ALPHA)
def test_gm_score_is_2a_over_1_plus_a_for_every_n(n, alpha):
    assert counts.loss(counts.gm(n, alpha)) == pytest.approx(2 * alpha / (1 + alpha), rel=1e-13)
    assert counts.loss(counts.um(n)) == pytest.approx(1.0, rel=1e-13)


@pytest.mark.parametrize("n", range(1, 16))
def test_em_columns_hold_the_same_exponents_so_they_sum_to_one(n):
    e = counts.em_exponents(n)
    middle = np.sort(e[:, n // 2])
    assert all(np.array_equal(np.sort(e[:, i]), middle) for i in range(n + 1))
    for alpha in (0.1, 0.5, 0.99):
        P = counts.em(n, alpha)
        np.testing.assert_allclose(P.sum(axis=0), 1.0, rtol=0, atol=1e-14)
        np.testing.assert_allclose(np.diag(P), counts.em_diagonal(n, alpha), rtol=1e-14)


def test_em_diagonal_is_eq15_and_figure7s_0224():
    # Lemma 4 / eq. (15) for even n = 2m: y = 1 / (1 + 2 sum_{k=1..m} a^k + (terms beyond m)); written out for n = 4:
    a = 10 / 11
    assert counts.em_diagonal(4, a) == pytest.approx(1 / (1 + 2 * a + 2 * a**2), rel=1e-14)
    assert round(counts.em_diagonal(4, a), 3) == 0.224
    assert round(np.diag(counts.gm(4, a)).mean(), 3) == 0.238
    # Odd n = 5, middle column 2: exponents |2 - j| for j = 0..4 and ceil((3 + 2) / 2) = 3 for j = 5.
    assert counts.em_diagonal(5, a) == pytest.approx(1 / (1 + 2 * a + 2 * a**2 + a**3), rel=1e-14)


# --- the property checker ---------------------------------------------------------------------------------------------


def test_checker_on_a_hand_made_matrix():
    P = np.array([[0.5, 0.4, 0.3], [0.3, 0.4, 0.3], [0.2, 0.2, 0.4]])
    expected = {"BasicDP": True, "RH": True, "RM": True, "CH": True, "CM": True, "F": False, "WH": True, "S": False}
    assert counts.properties(P, 0.5) == expected
    assert not counts.properties(P, 0.6)["BasicDP"]  # row 2 steps from 0.2 to 0.4: ratio 2 > 1/0.6


def test_checker_separates_honesty_from_monotonicity():
    P = np.array([[0.4, 0.1, 0.3], [0.3, 0.8, 0.3], [0.3, 0.1, 0.4]])  # row 0 dips then rises: honest, not monotone
    holds = counts.properties(P, 0.1)
    assert holds["RH"] and not holds["RM"] and holds["CH"] and holds["CM"]
    holds = counts.properties(P.T, 0.1)
    assert holds["CH"] and not holds["CM"] and holds["RH"] and holds["RM"]
    assert not counts.properties(np.full((3, 3), 0.3) + 0.1 * np.eye(3)[::-1], 1.0)["WH"]


def test_checker_tolerance():
    P = counts.um(4)
    P[0, 0] += 1e-10
    P[1, 0] -= 1e-10
    assert counts.properties(P, 1.0)["F"] and not counts.properties(P, 1.0, tol=1e-12)["F"]


@pytest.mark.parametrize("n", GRID_N)
@pytest.mark.parametrize("alpha", GRID_ALPHA)
def test_gm_and_em_have_exactly_the_properties_of_figure6_and_lemmas_2_3(n, alpha):
    gm, em, um = (counts.properties(P, alpha) for P in (counts.gm(n, alpha), counts.em(n, alpha), counts.um(n)))
    assert all(em.values()) and all(um.values())  # Theorem 4: EM has every property
    assert gm["BasicDP"] and gm["S"] and gm["RH"] and gm["RM"] and not gm["F"]
    assert gm["WH"] == (n >= counts.gm_weak_honesty_threshold(alpha))  # Lemma 2
    assert gm["CM"] == gm["CH"] == (alpha <= 0.5)  # Lemma 3 (n >= 2)


def test_figure6_claims_hold_on_the_grid_for_the_closed_forms():
    build = {"GM": counts.gm, "EM": counts.em, "UM": lambda n, a: counts.um(n)}
    for name, make in build.items():
        for prop, claim in counts.FIGURE6_CLAIMS[name].items():
            holds = [counts.properties(make(n, a), a)[prop] for n in GRID_N for a in GRID_ALPHA]
            assert counts.verdict(holds) == claim, (name, prop)


# --- the linear program -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 5, 8])
@pytest.mark.parametrize("alpha", GRID_ALPHA)
def test_unconstrained_l0_optimum_is_gm(n, alpha):
    P = counts.optimal(n, alpha, "L0")
    assert counts.loss(P) == pytest.approx(2 * alpha / (1 + alpha), abs=LP_TOL)  # Theorem 3
    np.testing.assert_allclose(P, counts.gm(n, alpha), atol=LP_TOL)  # ... and the optimum is unique


@pytest.mark.parametrize("n", [2, 3, 4, 7, 10])
@pytest.mark.parametrize("alpha", GRID_ALPHA)
def test_em_is_optimal_among_fair_mechanisms(n, alpha):
    P = counts.optimal(n, alpha, "L0", ["F"])
    assert counts.loss(P) == pytest.approx(counts.loss(counts.em(n, alpha)), abs=LP_TOL)  # Theorem 4
    assert counts.properties(P, alpha, tol=1e-7)["F"]


def test_fair_optimum_ignores_the_weights():
    # Lemma 1: with F the objective is (n+1)/n (1 - y) whatever the weights.
    w = rng_for(0, "weights").random(6)
    P = counts.optimal(5, 0.8, "L0", ["F"], weights=w)
    assert counts.loss(P, "L0", w) == pytest.approx(counts.loss(counts.em(5, 0.8)), abs=LP_TOL)
    unconstrained = counts.optimal(5, 0.8, "L0", weights=w)
    assert counts.loss(unconstrained, "L0", w) <= counts.loss(counts.gm(5, 0.8), "L0", w) + LP_TOL


@pytest.mark.parametrize("names", [(), ("WH",), ("WH", "CM"), ("RH", "CH"), ("F",)])
def test_symmetry_comes_free(names):
    # Theorem 1: adding S does not change the optimum.
    for objective in ("L0", "L1"):
        plain = counts.loss(counts.optimal(6, 0.8, objective, names), objective)
        assert counts.loss(counts.optimal(6, 0.8, objective, (*names, "S")), objective) == pytest.approx(
            plain, abs=LP_TOL)


def test_lp_solution_has_the_requested_properties():
    for names in (("RM", "CM"), ("WH",), ("RH", "CH", "S"), counts.PROPERTIES):
        P = counts.optimal(7, 0.85, "L1", names)
        holds = counts.properties(P, 0.85, tol=1e-7)
        assert holds["BasicDP"] and all(holds[name] for name in names), names


def test_objectives_by_hand():
    P = counts.um(2)
    assert counts.loss(P, "L1") == pytest.approx(8 / 9)
    assert counts.loss(P, "L2") == pytest.approx(12 / 9)
    assert counts.loss(P, "L0,1") == pytest.approx(2 / 9 * 3 / 2)
    assert counts.loss(P, "L0,0") == counts.loss(P, "L0") == pytest.approx(1.0)
    np.testing.assert_allclose(counts.tail_mass(counts.gm(3, 0.5), 2), [0.5**3 / 1.5, 0, 0, 0.5**3 / 1.5])


def test_figure1_squared_error_optimum_always_reports_the_middle():
    P = counts.optimal(4, 0.85, "L2")
    np.testing.assert_allclose(P[2], 1.0, atol=LP_TOL)


def test_lp_is_deterministic_on_a_degenerate_program():
    first, second = counts.optimal(7, 0.85, "L1"), counts.optimal(7, 0.85, "L1")
    assert np.array_equal(first, second)


def test_nine_combinations_collapse_to_the_papers_four_behaviours():
    # Section V-A: WH with row properties only = the LP with WH alone (= GM once n >= 2a/(1-a)); WH with any column
    # property = one other LP; all between GM and EM (the four behaviours: GM, LP-WH, WM, EM).
    for n, alpha in itertools.product((2, 4, 7), (0.3, 0.6, 0.9)):
        scores = {c: counts.loss(counts.optimal(n, alpha, "L0", ("WH", *c))) for c in counts.COMBINATIONS}
        rows = [scores[c] for c in counts.COMBINATIONS if not set(c) & {"CH", "CM"}]
        columns = [scores[c] for c in counts.COMBINATIONS if set(c) & {"CH", "CM"}]
        assert len(rows) == 3 and len(columns) == 6
        assert np.ptp(rows) <= LP_TOL and np.ptp(columns) <= LP_TOL, (n, alpha)
        gm, em = counts.gm_score(alpha), counts.loss(counts.em(n, alpha))
        assert gm - LP_TOL <= rows[0] <= columns[0] + LP_TOL <= em + 2 * LP_TOL
        assert (abs(rows[0] - gm) <= LP_TOL) == (n >= counts.gm_weak_honesty_threshold(alpha))
        assert columns[0] == pytest.approx(counts.loss(counts.wm_cm(n, alpha)), abs=LP_TOL)
        assert rows[0] == pytest.approx(counts.loss(counts.wm(n, alpha)), abs=LP_TOL)


def test_wm_is_the_papers_figures_mechanism_and_wm_cm_its_sentences():
    """decisions.md, section 7: WM (WH + RM) has no column property and meets GM's score from n = 2a/(1-a) (Figure 9(b)
    at alpha = 10/11, n = 20); WM (CM) is column monotone and stays above GM there (alpha > 1/2: GM is not CM)."""
    alpha = 10 / 11
    wm, wm_cm = counts.wm(20, alpha), counts.wm_cm(20, alpha)
    assert counts.loss(wm) == pytest.approx(counts.gm_score(alpha), abs=LP_TOL)
    assert counts.loss(wm_cm) > counts.gm_score(alpha) + 1e-3
    held, held_cm = counts.properties(wm, alpha, tol=1e-6), counts.properties(wm_cm, alpha, tol=1e-6)
    assert held["WH"] and held["RM"] and held["S"] and not held["CM"]
    assert held_cm["WH"] and held_cm["RM"] and held_cm["CM"]
    for name in counts.MECHANISMS:
        P = counts.by_name(name, 4, alpha)
        np.testing.assert_allclose(P.sum(axis=0), 1.0, atol=1e-9)
    assert counts.mechanism_key("WM (CM)", 4, alpha) == "WM_CM_n4_alpha0.909091"
    with pytest.raises(ValueError, match="unknown count mechanism"):
        counts.by_name("XM", 4, alpha)


def test_flowchart_picks_an_optimal_mechanism_for_all_128_property_sets():
    n, alpha = 4, 0.9  # below GM's weak-honesty threshold (18) and above 1/2: all four behaviours occur
    scores = {"GM": counts.gm_score(alpha), "EM": counts.loss(counts.em(n, alpha)),
              "WM (CM)": counts.loss(counts.wm_cm(n, alpha)),
              "LP-WH": counts.loss(counts.optimal(n, alpha, "L0", ["WH"]))}
    assert len({round(s, 6) for s in scores.values()}) == 4
    for size in range(len(counts.PROPERTIES) + 1):
        for names in itertools.combinations(counts.PROPERTIES, size):
            choice = counts.flowchart(names, n, alpha)
            assert counts.loss(counts.optimal(n, alpha, "L0", names)) == pytest.approx(scores[choice], abs=LP_TOL)


def test_lp_errors_are_clear():
    # The count LPs go through privest.lp; its LPError is counts.LPError, and its message names the LP and the status.
    from privest import lp

    assert counts.LPError is lp.LPError
    with pytest.raises(counts.LPError, match=r"'x <= -1' is infeasible: HiGHS model status 'Infeasible'"):
        lp.solve([1.0], [0], [0], [1.0], -np.inf, -1.0, name="x <= -1")  # x >= 0 and x <= -1
    with pytest.raises(counts.LPError, match=r"'min y' is unbounded"):
        lp.solve([1.0], [0], [0], [1.0], -np.inf, 1.0, lower=-np.inf, name="min y")  # y free, y <= 1


def test_the_solver_is_highs_and_recorded_with_its_version():
    import highspy

    description = counts.solver_description()
    assert description.startswith(f"HiGHS {highspy.Highs().version()} (git ")
    assert "highspy" in description and "dual simplex" in description


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: counts.optimal(3, 0.5, "L3"), "objective"),
        (lambda: counts.optimal(3, 0.5, "L1,2"), "objective"),
        (lambda: counts.optimal(3, 0.5, "L0", ["XX"]), "unknown properties"),
        (lambda: counts.optimal(3, 1.5), "alpha"),
        (lambda: counts.optimal(0, 0.5), "n"),
        (lambda: counts.optimal(3, 0.5, weights=[1, 1]), "weights"),
        (lambda: counts.gm(3, 0.0), "alpha"),
    ],
)
def test_bad_arguments_raise_naming_the_argument(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# --- experiments ------------------------------------------------------------------------------------------------------


def test_sampled_outputs_follow_the_columns():
    P = counts.em(4, 0.7)
    true = np.repeat(np.arange(5), 40_000)
    noisy = counts.sample_outputs(P, true, rng_for(0, "counts-sample"))
    for i in range(5):
        frequencies = np.bincount(noisy[true == i], minlength=5) / 40_000
        np.testing.assert_allclose(frequencies, P[:, i], atol=0.01)
    assert counts.wrong_fraction(true, noisy) == pytest.approx(1 - counts.em_diagonal(4, 0.7), abs=0.005)


def test_group_counts_and_scores():
    bits = np.array([1, 0, 1, 1, 0, 0, 1])
    np.testing.assert_array_equal(counts.group_counts(bits, 3), [2, 1])
    order = np.array([6, 5, 4, 3, 2, 1, 0])
    np.testing.assert_array_equal(counts.group_counts(bits, 2, order), [1, 1, 1])
    with pytest.raises(ValueError, match="permutation"):
        counts.group_counts(bits, 2, np.zeros(7, dtype=int))
    assert counts.wrong_fraction([0, 1, 2, 3], [0, 3, 2, 1], d=1) == 0.5
    assert counts.rmse([0, 0], [3, 4]) == pytest.approx(math.sqrt(12.5))


# --- the report's judge of the count paper (privest_studies.reproduction.checks_counts) -------------------------------


def test_a_directional_claim_is_judged_on_the_paired_t_interval_of_the_per_repetition_means():
    """counts_ordering against a hand computation: per repetition the mean over the points, the paired difference,
    Student t on repetitions - 1 degrees of freedom at 95%."""
    from scipy import stats

    from privest_studies.reproduction import checks_counts

    rng = np.random.default_rng(11)
    rows = [{"alpha": 0.9, "n": n, "mechanism": m, "repetition": r, "groups": 100,
             "wrong_fraction": base + rng.normal(0, 0.01)} for r in range(4) for n in (3, 6)
            for m, base in (("GM", 0.80), ("EM", 0.78))]
    table = pd.DataFrame(rows)
    outcome = checks_counts.counts_ordering(
        {"constrained_counts/tables/fig10_adult.csv": table}, {"report": {"level": 0.95}}, table="fig10_adult",
        value="wrong_fraction", smaller="EM", larger="GM", claim="EM best")
    per_rep = table.groupby(["repetition", "mechanism"])["wrong_fraction"].mean().unstack()
    d = (per_rep["GM"] - per_rep["EM"]).to_numpy()
    half = stats.t.ppf(0.975, 3) * d.std(ddof=1) / 2
    (comparison,) = outcome.comparisons
    assert f"[{d.mean() - half:+.3g}, {d.mean() + half:+.3g}]" in comparison.ours
    assert d.mean() - half > 0 and comparison.agrees is True  # the seed's difference lies wholly above 0


@pytest.mark.parametrize("value, relation, reference, high, tolerance, agrees", [
    (6.3333, "rounds to", 6.33, math.nan, "printed digits", True),
    (6.336, "rounds to", 6.33, math.nan, "printed digits", False),
    (5e-7, "equals", 0.0, math.nan, "LP", True),
    (5e-7, "equals", 0.0, math.nan, "closed form", False),
    (-0.1, "below", 0.0, math.nan, "exact", True),
    (0.0, "below", 0.0, math.nan, "exact", False),
    (0.0, "above", 0.0, math.nan, "exact", False),
    (0.23, "between", 0.22, 0.24, "exact", True),
    (0.25, "between", 0.22, 0.24, "exact", False),
    (1.0, "inside", 0.0, 1.0, "exact", False),
    (0.4, "inside", 0.0, 1.0, "exact", True),
    (0.4, "shown", math.nan, math.nan, "exact", None),
])
def test_published_numbers_are_judged_by_their_relation(value, relation, reference, high, tolerance, agrees):
    from privest_studies.reproduction import checks_counts

    assert checks_counts.published_verdict(value, relation, reference, high, tolerance)[0] is agrees


def test_an_unknown_relation_or_tolerance_of_published_csv_is_named():
    from privest_studies.reproduction import checks_counts

    with pytest.raises(ValueError, match="unknown relation 'near'"):
        checks_counts.published_verdict(1.0, "near", 1.0, math.nan, "exact")
    with pytest.raises(ValueError, match="unknown tolerance 'loose'"):
        checks_counts.published_verdict(1.0, "equals", 1.0, math.nan, "loose")
