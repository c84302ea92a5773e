"""The free-will study's library (privest_studies.free_will) against closed forms and independent computations."""

from pathlib import Path

import numpy as np
import pytest
import yaml
from scipy import stats

from privest import mechanisms as mech
from privest.rappor import flip_probability
from privest.sampling import population, rng_for, split_users
from privest_studies import free_will as fw
from privest_studies import free_will_verdicts as verdicts
from privest_studies.uncertainty import ratio_interval

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


def test_verdict_takes_the_first_entry_the_ratio_does_not_exceed():
    assert [verdicts.verdict(r, RULE) for r in (1.0, 1.2, 1.21, 2.0, 7.0, float("nan"))] == [
        "Excellent", "Excellent", "Good", "Good", "Bad", "NA"]


def scores(table: dict[tuple[str, str], list[float]], n: int = 1000) -> dict:
    """Synthetic per-run EMDs at one n: (set, method) -> runs (plus a smaller n that the checks must ignore)."""
    out = {(s, n, m): verdicts.Summary(np.array(v, dtype=float)) for (s, m), v in table.items()}
    out |= {(s, 10, m): verdicts.Summary(np.array([9.0] * len(v))) for (s, m), v in table.items()}
    return out


def test_verdict_table_uses_the_best_variant_per_set_and_the_worst_set_per_cell():
    nan = [np.nan] * 2
    measured = scores({("lin", "GIBU"): [1.0, 1.0], ("lin", "[INV]_M-N"): [3.0, 3.0], ("lin", "[INV]_M-P"): [1.1, 1.1],
                       ("pl", "GIBU"): [2.0, 2.0], ("pl", "[INV]_M-N"): [3.0, 3.0], ("pl", "[INV]_M-P"): [3.2, 3.2],
                       ("sh", "GIBU"): [1.0, 1.0], ("sh", "[INV]_M-N"): nan, ("sh", "[INV]_M-P"): nan})
    spec = {"columns": [{"label": "[INV]_M", "methods": ["[INV]_M-N", "[INV]_M-P"]},
                        {"label": "GIBU", "methods": ["GIBU"]}],
            "rows": [{"label": "a", "mechanism_sets": ["lin", "pl"], "paper": ["Good", "Excellent"]},
                     {"label": "b", "mechanism_sets": ["sh"], "paper": ["NA", "Excellent"]}]}
    lines = verdicts.verdict_table(measured, spec, RULE)
    cell = [line for line in lines if line["row"] == "a" and line["column"] == "[INV]_M"]
    assert [(c["mechanism_set"], c["method"], c["ratio"]) for c in cell] == [("lin", "[INV]_M-P", pytest.approx(1.1)),
                                                                             ("pl", "[INV]_M-N", pytest.approx(1.5))]
    # runs without noise: zero-width intervals, so the cell is decided (the worst set, 1.5, is Good)
    assert {(c["verdict"], c["agreement"]) for c in cell} == {("Good", "agree")}
    na = [line for line in lines if line["row"] == "b" and line["column"] == "[INV]_M"]
    assert (na[0]["verdict"], na[0]["paper"], na[0]["agreement"]) == ("NA", "NA", "agree")
    text = verdicts.verdict_markdown("T", lines, RULE)
    assert "**NA**" in text and "1.50 [1.50, 1.50]" in text and "4 agree, 0 disagree, 0 undecided (of 4 cells)" in text


def test_a_cell_shows_each_alphabets_verdict_when_they_differ():
    measured = scores({("lin", "GIBU"): [1.0, 1.0], ("lin", "[INV]_M-N"): [np.nan] * 2,
                       ("pl", "GIBU"): [1.0, 1.0], ("pl", "[INV]_M-N"): [9.0, 9.0],
                       ("lin2", "GIBU"): [1.0, 1.0], ("lin2", "[INV]_M-N"): [1.1, 1.1],
                       ("pl2", "GIBU"): [1.0, 1.0], ("pl2", "[INV]_M-N"): [1.1, 1.1]})
    spec = {"columns": [{"label": "[INV]_M", "methods": ["[INV]_M-N"]}],
            "rows": [{"label": "shokri", "mechanism_sets": ["lin", "pl"], "paper": ["NA"]},
                     {"label": "same", "mechanism_sets": ["lin2", "pl2"], "paper": ["Excellent"]}]}
    alphabets = {"lin": "linear", "pl": "planar", "lin2": "linear", "pl2": "planar"}
    lines = verdicts.verdict_table(measured, spec, RULE, alphabets)
    assert {line["row"]: line["verdict"] for line in lines} == {"shokri": "NA (linear) / Bad (planar)",
                                                                "same": "Excellent"}
    assert {line["row"]: line["agreement"] for line in lines} == {"shokri": "disagree", "same": "agree"}
    assert "**NA (linear) / Bad (planar)**" in verdicts.verdict_markdown("T", lines, RULE)


def cell_of(gibu: list[float], method: list[float], paper: str) -> dict:
    """The one line of a one-cell table: a method's per-run EMDs against GIBU's."""
    measured = scores({("s", "GIBU"): gibu, ("s", "[IBU]_M"): method})
    spec = {"columns": [{"label": "[IBU]_M", "methods": ["[IBU]_M"]}],
            "rows": [{"label": "r", "mechanism_sets": ["s"], "paper": [paper]}]}
    (line,) = verdicts.verdict_table(measured, spec, RULE)
    return line


def test_a_cell_whose_interval_straddles_a_threshold_is_undecided_and_a_clear_one_is_decided():
    gibu = [1.0, 1.1, 0.9, 1.05, 0.95]
    straddling = cell_of(gibu, [1.7, 2.5, 1.6, 2.4, 1.8], "Good (Fig. 10)")  # ratio 2.0, interval about [1.5, 2.5]
    assert straddling["ratio_low"] < 2.0 < straddling["ratio_high"]
    assert (straddling["verdict"], straddling["agreement"]) == ("undecided (Good or Bad)", "undecided")
    inside = cell_of(gibu, [1.5, 1.7, 1.3, 1.6, 1.4], "Good (Fig. 10)")  # ratio 1.5 and its interval inside (1.2, 2]
    assert 1.2 < inside["ratio_low"] and inside["ratio_high"] <= 2.0
    assert (inside["verdict"], inside["agreement"]) == ("Good", "agree")
    outside = cell_of(gibu, [1.5, 1.7, 1.3, 1.6, 1.4], "Bad (Fig. 11)")  # wholly below the paper's band (2, inf)
    assert outside["agreement"] == "disagree"


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
    spec = {"columns": [{"label": "[INV]_M", "methods": ["[INV]_M-N"]}, {"label": "[IBU]_M", "methods": ["[IBU]_M"]}],
            "rows": [{"label": "r", "mechanism_sets": ["s"], "paper": ["Excellent", "Good"]}]}
    lines = verdicts.verdict_table(measured, spec, RULE)
    assert verdicts.tally(lines) == {"agree": 0, "disagree": 2, "undecided": 0}  # 1.4 is Good, 2.1 Bad under RULE
    grid = verdicts.threshold_sensitivity(lines, RULE, {"Excellent": [1.2, 1.5], "Good": [2.0, 2.5]})
    found = {(row["Excellent"], row["Good"]): row["agree"] for row in grid}
    assert found == {(1.2, 2.0): 0, (1.2, 2.5): 1, (1.5, 2.0): 1, (1.5, 2.5): 2}
    assert [row["ours"] for row in grid] == [True, False, False, False]
    with pytest.raises(ValueError, match="threshold grid"):
        verdicts.threshold_sensitivity(lines, RULE, {"Excellent": [1.2]})


def test_findings_hold_fail_or_stay_undecided_on_synthetic_scores():
    checks = [{"name": "gibu", "test": "not_worse", "better": "GIBU", "worse": "any"},
              {"name": "r", "test": "better", "better": "GIBU", "worse": ["[IBU]_R"]}]
    good = scores({("s", "GIBU"): [1.0, 1.1, 0.9], ("s", "[IBU]_R"): [2.0, 2.2, 1.9], ("s", "[IBU]_M"): [1.0, 1.2, 0.8],
                   ("s", "[INV]_M-N"): [np.nan] * 3})
    results = verdicts.check_findings(good, checks, z=2.0)
    assert all(r["result"] == "holds" for r in results) and len(results) == 3  # the NA method is skipped
    assert all(r["n"] == 1000 for r in results)
    bad = scores({("s", "GIBU"): [2.0, 2.1, 1.9], ("s", "[IBU]_R"): [1.0, 1.1, 1.0], ("s", "[IBU]_M"): [2.0, 2.1, 1.9]})
    assert [r["result"] for r in verdicts.check_findings(bad, checks, z=2.0)] == ["holds", "fails", "fails"]
    noisy = scores({("s", "GIBU"): [1.0, 1.3, 0.8], ("s", "[IBU]_R"): [1.1, 1.0, 1.2]})  # better by 0.07 ± 0.15
    assert [r["result"] for r in verdicts.check_findings(noisy, checks[1:], z=2.0)] == ["undecided"]
    assert verdicts.finding_result("better", -0.1, float("inf")) == "undecided"  # one run: nothing beyond noise


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
