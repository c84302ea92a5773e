"""The free-will study's library (privest_studies.free_will) against closed forms and independent computations."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from scipy import stats

from privest import mechanisms as mech
from privest.rappor import flip_probability
from privest.sampling import population, rng_for, split_users
from privest_studies import free_will as fw
from privest_studies import free_will_verdicts as verdicts
from privest_studies.reproduction import checks_free_will as judge
from privest_studies.uncertainty import Ratio, ratio_interval

STOPPING = {"delta": 1e-12, "max_iter": 20_000}


def test_binomial_theta_is_the_binomial_pmf():
    theta = fw.binomial_theta(5, 0.5)
    np.testing.assert_allclose(theta, np.array([1, 4, 6, 4, 1]) / 16, atol=1e-15)
    assert fw.binomial_theta(100).argmax() in (49, 50)


def test_members_keep_a_scales_shokri_subset_and_reject_unknown_q():
    spec = {"mechanisms": [{"kind": "shokri", "Q": [0.3, 0.6, 3.0]}]}
    assert [m.parameter for m in fw.members(spec, [3.0, 0.3])] == [0.3, 3.0]
    with pytest.raises(ValueError, match="not Q values"):
        fw.members(spec, [1.0])


def exact_inv_m_krr_mse(theta, eps, users):
    """E||theta_hat - theta||^2 of [INV]_M (eq. 9) with users[j] users on k-RR(eps[j]): unbiased, so the sum over x
    of the variance of c q_x, q the pooled frequencies of independent multinomial groups."""
    k, n = len(theta), users.sum()
    e_n = fw.krr_average_eps(eps, users, k)
    c = (np.exp(e_n) + k - 1) / (np.exp(e_n) - 1)
    marginals = [theta @ mech.krr(k, e) for e in eps]
    variance = sum(u * m * (1 - m) for u, m in zip(users, marginals, strict=True))
    return c**2 * variance.sum() / n**2


def exact_rap_m_mse(theta, eps, users):
    """E||theta_hat - theta||^2 of [RAP]_M (eq. 14): bit x of a user on flip f is 1 with b = f + theta_x (1 - 2f),
    users independent; theta_hat = (s - f_bar) / (1 - 2 f_bar) is unbiased."""
    n = users.sum()
    f = flip_probability(np.asarray(eps))
    f_bar = users @ f / n
    bits = [fj + theta * (1 - 2 * fj) for fj in f]
    variance = sum(u * b * (1 - b) for u, b in zip(users, bits, strict=True))
    return variance.sum() / (n**2 * (1 - 2 * f_bar) ** 2)


@pytest.mark.parametrize("n", [10, 1000, 12345])
def test_proposition_2_bound_is_exact_for_equal_eps_and_an_upper_bound_for_mixed(n):
    theta = fw.binomial_theta(9)
    equal = fw.members({"mechanisms": [{"kind": "krr", "eps": [2.0, 2.0]}]})
    mixed = fw.members({"mechanisms": [{"kind": "krr", "eps": [0.5, 1.0, 3.0, 6.0]}]})
    bound = fw.proposition_bound(2, theta, equal, n)
    assert bound["eps_n"] == pytest.approx(2.0, abs=1e-12)
    assert bound["bound"] == pytest.approx(exact_inv_m_krr_mse(theta, [2.0, 2.0], fw.group_sizes(n, 2)), rel=1e-12)
    users = fw.group_sizes(n, 4)
    assert exact_inv_m_krr_mse(theta, [0.5, 1.0, 3.0, 6.0], users) <= fw.proposition_bound(2, theta, mixed, n)["bound"]


@pytest.mark.parametrize("n", [10, 1000, 12345])
def test_proposition_3_bound_is_exact_for_equal_eps_and_an_upper_bound_for_mixed(n):
    theta = fw.binomial_theta(7)
    equal = fw.members({"mechanisms": [{"kind": "rappor", "eps": [1.5, 1.5, 1.5]}]})
    mixed = fw.members({"mechanisms": [{"kind": "rappor", "eps": [0.1, 1.0, 10.0]}]})
    assert fw.proposition_bound(3, theta, equal, n)["bound"] == pytest.approx(
        exact_rap_m_mse(theta, [1.5] * 3, fw.group_sizes(n, 3)), rel=1e-12)
    exact = exact_rap_m_mse(theta, [0.1, 1.0, 10.0], fw.group_sizes(n, 3))
    assert exact <= fw.proposition_bound(3, theta, mixed, n)["bound"]


def test_noninformative_example_ibu_m_stays_uniform_while_gibu_recovers_theta():
    theta = np.array([0.8, 0.2])
    A = np.array([[0.75, 0.25], [0.25, 0.75]])
    mechanisms = [A, A[:, ::-1]]
    rng = rng_for(1, "eq11")
    counts = np.array([population(mechanisms, split_users(200_000, 2, theta, rng), rng) for _ in range(2)])
    estimates = fw.noninformative_estimates(mechanisms, counts, STOPPING)
    for ibu_m, gibu, inv in zip(estimates["[IBU]_M"], estimates["GIBU"], estimates["[INV]_M-P"], strict=True):
        np.testing.assert_allclose(ibu_m, [0.5, 0.5], atol=1e-12)
        np.testing.assert_allclose(gibu, theta, atol=0.01)
        assert np.isnan(inv).all()


RULE = [{"verdict": "Excellent", "max_ratio": 1.2}, {"verdict": "Good", "max_ratio": 2.0}, {"verdict": "Bad"}]
TWO_SIDED = [{"verdict": "Excellent", "min_ratio": 1 / 1.2, "max_ratio": 1.2, "min_ratio_added": "2026-11-27"},
             {"verdict": "Good", "max_ratio": 2.0}, {"verdict": "Bad"}]


def exact(ratio: float) -> Ratio:
    """A ratio without noise: a zero-width interval."""
    return Ratio(ratio, ratio, ratio, 5)


def test_a_noiseless_ratio_takes_the_band_it_lies_in_and_nothing_below_the_two_sided_excellent():
    assert [judge.interval_verdict(exact(r), RULE) for r in (0.12, 1.0, 1.2, 1.21, 2.0, 7.0)] == [
        "Excellent", "Excellent", "Excellent", "Good", "Good", "Bad"]
    assert judge.interval_verdict(Ratio(np.nan, np.nan, np.nan, 0), RULE) == "NA"
    assert [judge.interval_verdict(exact(r), TWO_SIDED) for r in (0.12, 0.9, 1.2)] == [
        "below Excellent", "Excellent", "Excellent"]
    assert judge.interval_verdict(Ratio(0.85, 0.7, 1.0, 5), TWO_SIDED) == "undecided (below Excellent or Excellent)"
    assert judge.agreement("Excellent", exact(0.12), TWO_SIDED) == "disagree"
    assert judge.agreement("Excellent", exact(0.12), judge.first_rule(TWO_SIDED)) == "agree"  # the first rule
    assert judge.first_rule(TWO_SIDED) == RULE
    assert judge.rule_text(TWO_SIDED) == "0.833 < Excellent <= 1.2 < Good <= 2 < Bad"


def scores(table: dict[tuple[str, str], list[float]], n: int = 1000) -> dict:
    """Synthetic per-run EMDs at one n: (set, method) -> runs (plus a smaller n that the checks must ignore)."""
    out = {(s, n, m): verdicts.Summary(np.array(v, dtype=float)) for (s, m), v in table.items()}
    out |= {(s, 10, m): verdicts.Summary(np.array([9.0] * len(v))) for (s, m), v in table.items()}
    return out


def judged_cells(lines: list[dict], rule=RULE) -> dict[tuple[str, str], tuple[str, str]]:
    """(row, column) -> (our verdict, agreement), judged as the report judges them (from the CSV's columns)."""
    cells = judge.table_cells(pd.DataFrame(lines, columns=verdicts.RATIO_COLUMNS))
    return {key: judge.cell_judgement(c, c[0]["paper"], rule) for key, c in cells.items()}


def test_ratio_table_uses_the_best_variant_per_set_and_the_judge_the_worst_set_per_cell():
    nan = [np.nan] * 2
    measured = scores({("lin", "GIBU"): [1.0, 1.0], ("lin", "[INV]_M-N"): [3.0, 3.0], ("lin", "[INV]_M-P"): [1.1, 1.1],
                       ("pl", "GIBU"): [2.0, 2.0], ("pl", "[INV]_M-N"): [3.0, 3.0], ("pl", "[INV]_M-P"): [3.2, 3.2],
                       ("sh", "GIBU"): [1.0, 1.0], ("sh", "[INV]_M-N"): nan, ("sh", "[INV]_M-P"): nan})
    spec = {"columns": [{"label": "[INV]_M", "methods": ["[INV]_M-N", "[INV]_M-P"]},
                        {"label": "GIBU", "methods": ["GIBU"]}],
            "rows": [{"label": "a", "mechanism_sets": ["lin", "pl"], "paper": ["Good", "Excellent"]},
                     {"label": "b", "mechanism_sets": ["sh"], "paper": ["NA", "Excellent"]}]}
    lines = verdicts.ratio_table(measured, spec, level=0.95)
    assert all(set(line) == set(verdicts.RATIO_COLUMNS) for line in lines)  # numbers only: no verdict column
    cell = [line for line in lines if line["row"] == "a" and line["column"] == "[INV]_M"]
    assert [(c["mechanism_set"], c["method"], c["ratio"]) for c in cell] == [("lin", "[INV]_M-P", pytest.approx(1.1)),
                                                                             ("pl", "[INV]_M-N", pytest.approx(1.5))]
    found = judged_cells(lines)
    # runs without noise: zero-width intervals, so the cell is decided (the worst set, 1.5, is Good)
    assert found["a", "[INV]_M"] == ("Good", "agree")
    assert found["b", "[INV]_M"] == ("NA", "agree")
    text = verdicts.ratio_markdown("T", lines)
    assert "NA · paper: NA" in text and "1.50 [1.50, 1.50]" in text and "| agree" not in text


def test_a_cell_shows_each_alphabets_verdict_when_they_differ():
    measured = scores({("lin", "GIBU"): [1.0, 1.0], ("lin", "[INV]_M-N"): [np.nan] * 2,
                       ("pl", "GIBU"): [1.0, 1.0], ("pl", "[INV]_M-N"): [9.0, 9.0],
                       ("lin2", "GIBU"): [1.0, 1.0], ("lin2", "[INV]_M-N"): [1.1, 1.1],
                       ("pl2", "GIBU"): [1.0, 1.0], ("pl2", "[INV]_M-N"): [1.1, 1.1]})
    spec = {"columns": [{"label": "[INV]_M", "methods": ["[INV]_M-N"]}],
            "rows": [{"label": "shokri", "mechanism_sets": ["lin", "pl"], "paper": ["NA"]},
                     {"label": "same", "mechanism_sets": ["lin2", "pl2"], "paper": ["Excellent"]}]}
    alphabets = {"lin": "linear", "pl": "planar", "lin2": "linear", "pl2": "planar"}
    found = judged_cells(verdicts.ratio_table(measured, spec, alphabets))
    assert found == {("shokri", "[INV]_M"): ("NA (linear) / Bad (planar)", "disagree"),
                     ("same", "[INV]_M"): ("Excellent", "agree")}


def cell_of(gibu: list[float], method: list[float], paper: str) -> tuple[dict, tuple[str, str]]:
    """The one line of a one-cell table (a method's per-run EMDs against GIBU's) and its judgement."""
    measured = scores({("s", "GIBU"): gibu, ("s", "[IBU]_M"): method})
    spec = {"columns": [{"label": "[IBU]_M", "methods": ["[IBU]_M"]}],
            "rows": [{"label": "r", "mechanism_sets": ["s"], "paper": [paper]}]}
    (line,) = verdicts.ratio_table(measured, spec)
    return line, judged_cells([line])["r", "[IBU]_M"]


def test_a_cell_whose_interval_straddles_a_threshold_is_undecided_and_a_clear_one_is_decided():
    gibu = [1.0, 1.1, 0.9, 1.05, 0.95]
    straddling, found = cell_of(gibu, [1.7, 2.5, 1.6, 2.4, 1.8], "Good (Fig. 10)")  # ratio 2.0, about [1.5, 2.5]
    assert straddling["ratio_low"] < 2.0 < straddling["ratio_high"]
    assert found == ("undecided (Good or Bad)", "undecided")
    inside, found = cell_of(gibu, [1.5, 1.7, 1.3, 1.6, 1.4], "Good (Fig. 10)")  # ratio 1.5, interval inside (1.2, 2]
    assert 1.2 < inside["ratio_low"] and inside["ratio_high"] <= 2.0
    assert found == ("Good", "agree")
    assert cell_of(gibu, [1.5, 1.7, 1.3, 1.6, 1.4], "Bad (Fig. 11)")[1][1] == "disagree"  # wholly below (2, inf)


def test_ratio_interval_is_the_delta_method_and_covers_the_true_ratio_95_percent_of_the_time():
    a, g = np.array([2.0, 3.0, 4.0]), np.array([1.0, 2.0, 1.5])
    r = 9.0 / 4.5
    se = np.std(a - r * g, ddof=1) / (np.sqrt(3) * 1.5)  # by hand: residuals 0, -1, 1
    assert se == pytest.approx(np.sqrt(1.0) / (np.sqrt(3) * 1.5))
    found = ratio_interval(a, g)
    assert (found.value, found.runs) == (pytest.approx(2.0), 3)
    assert found.high - found.value == pytest.approx(stats.t.ppf(0.975, 2) * se)
    assert ratio_interval([2.0], [1.0]).high == np.inf  # one run bounds nothing
    # Coverage, against the true ratio of a correlated pair (the same reports): 4000 experiments of 20 runs
    rng = np.random.default_rng(11)
    common = rng.normal(0, 0.2, (4000, 20))
    g_runs = 1.0 + common + rng.normal(0, 0.1, (4000, 20))
    a_runs = 1.8 + 1.5 * common + rng.normal(0, 0.15, (4000, 20))
    covered = np.mean([(x := ratio_interval(a_runs[i], g_runs[i])).low <= 1.8 <= x.high for i in range(4000)])
    assert 0.93 <= covered <= 0.97  # binomial sd 0.0034 around 0.95: a miss of either bound is a real miss


def test_threshold_sensitivity_counts_the_agreeing_cells_for_each_pair_of_thresholds():
    measured = scores({("s", "GIBU"): [1.0] * 2, ("s", "[INV]_M-N"): [1.4] * 2, ("s", "[IBU]_M"): [2.1] * 2})
    spec = {"columns": [{"label": "[INV]_M", "methods": ["[INV]_M-N"]}, {"label": "[IBU]_M", "methods": ["[IBU]_M"]},
                        {"label": "GIBU", "methods": ["GIBU"]}],
            "rows": [{"label": "r", "mechanism_sets": ["s"], "paper": ["Excellent", "Good", "Excellent"]}]}
    cells = judge.table_cells(pd.DataFrame(verdicts.ratio_table(measured, spec), columns=verdicts.RATIO_COLUMNS))
    # 1.4 is Good, 2.1 Bad under RULE; the GIBU cell is the reference, not counted
    assert judge.tally(cells, RULE) == {"agree": 0, "disagree": 2, "undecided": 0}
    grid = judge.threshold_sensitivity(cells, RULE, {"Excellent": [1.2, 1.5], "Good": [2.0, 2.5]})
    found = {(row["Excellent"], row["Good"]): row["agree"] for row in grid}
    assert found == {(1.2, 2.0): 0, (1.2, 2.5): 1, (1.5, 2.0): 1, (1.5, 2.5): 2}
    assert [row["ours"] for row in grid] == [True, False, False, False]
    with pytest.raises(ValueError, match="threshold grid"):
        judge.threshold_sensitivity(cells, RULE, {"Excellent": [1.2]})


def test_the_reference_cell_is_shown_but_neither_judged_nor_counted():
    common = {"row": "r", "mechanism_set": "s", "alphabet": "linear", "n": 10, "reference": "GIBU", "runs": 3,
              "level": 0.95, "paper": "Excellent"}
    lines = [common | {"column": "GIBU", "method": "GIBU", "ratio": 1.0, "ratio_low": 1.0, "ratio_high": 1.0},
             common | {"column": "[IBU]_M", "method": "[IBU]_M", "ratio": 0.5, "ratio_low": 0.4, "ratio_high": 0.6}]
    config = {"free_will": {"verdict": TWO_SIDED, "verdict_interval": {"thresholds": {
        "Excellent": [1.2], "Good": [2.0]}}}}
    outcome = judge.fw_verdicts({"free_will/tables/table01.csv": pd.DataFrame(lines)}, config, "table01")
    reference, excellent, _grid = outcome.comparisons
    assert reference.agrees is None and not reference.undecided and "reference" in reference.tolerance
    assert excellent.agrees is False and "under the first rule" in excellent.ours and "agree (not judged)" in (
        excellent.ours)
    assert outcome.tally == "Table 1: 0 agree, 1 disagree, 0 undecided (of 1 judged cells; the GIBU column is the " \
        "reference)"


def finding_lines(measured: dict, checks: list[dict]) -> list[dict]:
    """The findings' numbers, each with the judge's result (agree: holds, disagree: fails, undecided)."""
    return [line | {"result": judge.finding_result(line, TWO_SIDED)}
            for line in verdicts.finding_numbers(measured, checks, level=0.95)]


def test_findings_hold_fail_or_stay_undecided_on_synthetic_scores():
    checks = [{"name": "similar", "test": "similar", "better": "GIBU", "worse": "any"},
              {"name": "r", "test": "better", "better": "GIBU", "worse": ["[IBU]_R"]}]
    good = scores({("s", "GIBU"): [1.0, 1.1, 0.9], ("s", "[IBU]_R"): [2.0, 2.2, 1.9], ("s", "[IBU]_M"): [1.0, 1.2, 0.8],
                   ("s", "[INV]_M-N"): [np.nan] * 3})
    results = finding_lines(good, checks)
    assert [(r["worse"], r["result"]) for r in results] == [
        ("[IBU]_M", "undecided"), ("[IBU]_R", "disagree"), ("[IBU]_R", "agree")]  # the NA method is left out
    assert all(r["n"] == 1000 and set(r) - {"result"} == set(verdicts.FINDING_COLUMNS) for r in results)
    d = results[-1]  # GIBU - [IBU]_R per run: -1.0, -1.1, -1.0, with Student's t on 2 degrees of freedom
    assert (d["mean_difference"], d["runs"]) == (pytest.approx(-31 / 30), 3)
    assert d["difference_high"] - d["mean_difference"] == pytest.approx(
        stats.t.ppf(0.975, 2) * np.std([-1.0, -1.1, -1.0], ddof=1) / np.sqrt(3))
    bad = scores({("s", "GIBU"): [2.0, 2.1, 1.9], ("s", "[IBU]_R"): [1.0, 1.1, 1.0]})
    assert [r["result"] for r in finding_lines(bad, checks[1:])] == ["disagree"]
    noisy = scores({("s", "GIBU"): [1.0, 1.3, 0.8], ("s", "[IBU]_R"): [1.1, 1.0, 1.2]})  # better by 0.07 ± 0.15
    assert [r["result"] for r in finding_lines(noisy, checks[1:])] == ["undecided"]
    # the first rule (z = 2 standard errors) calls a difference of 2.2 SE decided; t on 2 df (4.3) does not
    line = {"test": "better", "mean_difference": -2.2, "standard_error": 1.0, "difference_low": -2.2 - 4.303,
            "difference_high": -2.2 + 4.303}
    assert (judge.first_finding_result(line), judge.finding_result(line, RULE)) == ("agree", "undecided")


@pytest.mark.parametrize("n", [10, 1001])
def test_expected_mse_is_the_exact_error_of_the_raw_estimates(n):
    """Against the oracles above (built from the mechanism matrices and bit probabilities), for mixed eps."""
    theta = fw.binomial_theta(9)
    krr, rappor = [0.5, 1.0, 3.0, 6.0], [0.1, 1.0, 10.0]
    assert verdicts.expected_mse(2, theta, krr, fw.group_sizes(n, 4)) == pytest.approx(
        exact_inv_m_krr_mse(theta, krr, fw.group_sizes(n, 4)), rel=1e-12)
    assert verdicts.expected_mse(3, theta, rappor, fw.group_sizes(n, 3)) == pytest.approx(
        exact_rap_m_mse(theta, rappor, fw.group_sizes(n, 3)), rel=1e-12)
    assert verdicts.expected_mse(3, theta, [1.5] * 3, fw.group_sizes(n, 3)) == pytest.approx(  # equal eps: equality
        fw.proposition_bound(3, theta, fw.members({"mechanisms": [{"kind": "rappor", "eps": [1.5] * 3}]}), n)["bound"],
        rel=1e-12)


def test_expected_mse_matches_a_simulation_of_the_raw_krr_estimate():
    """An independent check of the exact error: 4000 simulated populations of eq. (9)'s estimate."""
    theta, eps, n = fw.binomial_theta(4), [0.5, 3.0], 200
    users, k = fw.group_sizes(n, 2), len(theta)
    e_n = fw.krr_average_eps(eps, users, k)
    rng = np.random.default_rng(3)
    errors = []
    for _ in range(4000):
        counts = population([mech.krr(k, e) for e in eps], split_users(n, 2, theta, rng), rng)
        q = np.sum(counts, axis=0) / n
        estimate = (np.exp(e_n) + k - 1) / np.expm1(e_n) * q - 1 / np.expm1(e_n)
        errors.append(np.sum((estimate - theta) ** 2))
    expected = verdicts.expected_mse(2, theta, eps, users)
    assert abs(np.mean(errors) - expected) < 4 * np.std(errors) / np.sqrt(len(errors))


def test_mechanism_tables_regenerate_the_config_values_and_mark_a_scales_subset():
    sets = {"a": {"table": 8, "label": "linear", "alphabet": "linear",
                  "mechanisms": [{"kind": "shokri", "Q": [1.0, 4.0, 7.0]}]},
            "b": {"table": 5, "label": "planar", "alphabet": "planar", "mechanisms": [{"kind": "krr", "eps": [3.05]}]}}
    rows = fw.mechanism_table_rows(8, sets, {"a": [1.0, 7.0]})
    assert [(r["value"], r["used_at_this_scale"]) for r in rows] == [(1.0, True), (4.0, False), (7.0, True)]
    text = fw.mechanism_table_markdown(8, "Mechanisms used in Figure 13", rows)
    assert "3 Shokri | Q: 1, ~~4~~, 7" in text
    with pytest.raises(ValueError, match="table 6"):
        fw.mechanism_table_rows(6, sets, {})


CONFIG = yaml.safe_load((Path(__file__).resolve().parents[1] / "config.yaml").read_text())


def test_every_mechanism_set_is_an_experiment_with_the_whole_set_at_every_n():
    experiments = fw.experiments(CONFIG)
    assert list(experiments) == list(CONFIG["free_will"]["mechanism_sets"])
    mixed = experiments["mixed_planar"]
    assert [p.value for p in mixed.points] == CONFIG["scales"]["quick"]["free_will"]["n"]
    assert all(p.mechanisms == tuple(range(10)) and p.users == p.value for p in mixed.points)
    assert mixed.data == "results/free_will/alphabets/planar" and mixed.shokri == ()
    shokri = experiments["shokri_linear"]
    assert shokri.shokri[0] == "results/free_will/shokri/linear_Q1.npz" and len(shokri.shokri) == 10


def test_figure_panels_follow_the_rules_outputs_and_name_the_key_when_they_disagree():
    outputs = [f"results/free_will/figures/{panel}.{ext}" for panel in fw.panels(CONFIG) for ext in ("pdf", "png")]
    panels = fw.figure_panels(CONFIG, outputs)
    assert panels[0] == {"panel": "fig02a", "figure": "fig02", "letter": "a", "mechanism_set": "rappor_high"}
    with pytest.raises(ValueError, match=r"config key free_will\.figures"):
        fw.figure_panels(CONFIG, outputs[2:])


def test_alphabets_are_the_binomial_range_or_a_regions_cells():
    linear, theta = fw.alphabet({"kind": "linear", "k": 5, "binomial_p": 0.5})
    assert linear["k"] == 5 and theta.sum() == pytest.approx(1)
    region = {"kind": "planar", "region": "san_francisco", "columns": 2, "rows": 1, "cell_km": 0.5, "k": 2}
    planar, theta = fw.alphabet({"kind": "planar", "region": "san_francisco"}, np.array([0.25, 0.75]), region)
    assert planar["label"].startswith("San Francisco, 2 x 1 cells") and list(theta) == [0.25, 0.75]
