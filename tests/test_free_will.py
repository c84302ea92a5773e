"""The free-will study's library (privest_studies.free_will) against closed forms and independent computations."""

import numpy as np
import pytest

from privest import estimators as est
from privest import mechanisms as mech
from privest.alphabets import Alphabet
from privest.rappor import flip_probability
from privest.sampling import Rappor, population, rng_for, split_users
from privest_studies import free_will as fw

STOPPING = {"delta": 1e-12, "max_iter": 20_000}


def test_binomial_theta_is_the_binomial_pmf():
    theta = fw.binomial_theta(5, 0.5)
    np.testing.assert_allclose(theta, np.array([1, 4, 6, 4, 1]) / 16, atol=1e-15)
    assert fw.binomial_theta(100).argmax() in (49, 50)


def test_gibu_matrix_runs_equals_algorithm_1_on_each_run():
    rng = rng_for(1, "gibu-batch")
    k, m = 6, 6
    matrices = [rng.dirichlet(np.ones(m), size=k) for _ in range(3)]
    counts = np.array([[rng.multinomial(200, rng.dirichlet(np.ones(m))) for _ in matrices] for _ in range(4)])
    batched = fw.gibu_matrix_runs(matrices, counts, **STOPPING)
    for run, result in zip(counts, batched, strict=True):
        single = est.gibu([est.matrix_group(A, c) for A, c in zip(matrices, run, strict=True)], **STOPPING)
        np.testing.assert_allclose(result.theta, single.theta, atol=1e-9)
        assert abs(result.iterations - single.iterations) <= 1


def test_batched_ibu_ignores_columns_a_run_did_not_report_even_at_probability_zero():
    # Column 2 is produced by secret 2 only. Run 0 never reports it, so its estimate of secret 2 falls to 0 at once
    # and the column's probability under it is 0: the batch must not compute 0/0 there (regression: NaN estimates).
    A = np.array([[0.5, 0.5, 0.0], [0.4, 0.6, 0.0], [0.0, 0.0, 1.0]])
    counts = np.array([[10.0, 5.0, 0.0], [3.0, 4.0, 6.0]])
    batched = est.ibu_runs(A, counts, **STOPPING)
    for run, result in zip(counts, batched, strict=True):
        single = est.ibu(A, run, **STOPPING)
        assert np.all(np.isfinite(result.theta))
        np.testing.assert_allclose(result.theta, single.theta, atol=1e-9)


def test_members_keep_a_scales_shokri_subset_and_reject_unknown_q():
    spec = {"mechanisms": [{"kind": "shokri", "Q": [0.3, 0.6, 3.0]}]}
    assert [m.parameter for m in fw.members(spec, [3.0, 0.3])] == [0.3, 3.0]
    with pytest.raises(ValueError, match="not Q values"):
        fw.members(spec, [1.0])
    mixed = {"mechanisms": [{"kind": "geometric", "eps": [0.5]}, {"kind": "krr", "eps": [3.0, 4.0]}]}
    assert fw.describe(fw.members(mixed)) == "1 geometric, ε 0.5 + 2 k-RR, ε 3–4"


def test_built_sets_round_trip_through_arrays():
    alphabet = Alphabet(7)
    members = fw.members({"mechanisms": [{"kind": "geometric", "eps": [0.5]}, {"kind": "krr", "eps": [2.0]},
                                         {"kind": "shokri", "Q": [1.0]}]})
    built = fw.build(members, alphabet, {1.0: np.eye(7)})
    np.testing.assert_array_equal(built[1], mech.krr(7, 2.0))
    back_members, back = fw.from_arrays(fw.to_arrays(members, built))
    assert back_members == members
    for a, b in zip(built, back, strict=True):
        np.testing.assert_array_equal(a, b)
    rappor = fw.members({"mechanisms": [{"kind": "rappor", "eps": [1.0, 2.0]}]})
    assert fw.from_arrays(fw.to_arrays(rappor, fw.build(rappor, alphabet)))[1] == [Rappor(7, 1.0), Rappor(7, 2.0)]


def test_reports_round_trip_for_matrix_and_rappor_sets():
    rng = rng_for(1, "reports")
    theta = fw.binomial_theta(5)
    for mechanisms in ([mech.krr(5, 1.0), mech.geometric(5, 0.5)], [Rappor(5, 1.0), Rappor(5, 3.0)]):
        reports = [[population(mechanisms, split_users(n, 2, theta, rng), rng) for _run in range(2)]
                   for n in (10, 40)]
        back = fw.reports_from_arrays(fw.reports_to_arrays(reports), 2, 2, 2)
        for p in range(2):
            for r in range(2):
                for a, b in zip(reports[p][r], back[p][r], strict=True):
                    if isinstance(a, np.ndarray):
                        np.testing.assert_array_equal(a, b)
                    else:
                        np.testing.assert_array_equal(a.bits, b.bits)
                        np.testing.assert_array_equal(a.counts, b.counts)
                        assert a.eps == b.eps


def reports_of(mechanisms, n, runs, seed="families"):
    theta = fw.binomial_theta(mechanisms[0].k if isinstance(mechanisms[0], Rappor) else mechanisms[0].shape[0])
    rngs = [rng_for(1, seed, run) for run in range(runs)]
    return [population(mechanisms, split_users(n, len(mechanisms), theta, rng), rng) for rng in rngs]


def test_combine_results_families_weight_each_mechanisms_own_estimate():
    matrices = [mech.krr(6, 2.0), mech.krr(6, 4.0)]
    reports = reports_of(matrices, 301, 2)
    inv_r = fw.estimate_family("inv_r", matrices, reports, STOPPING).estimates
    ibu_r = fw.estimate_family("ibu_r", matrices, reports, STOPPING).estimates
    for run, by_mechanism in enumerate(reports):
        n = [c.sum() for c in by_mechanism]
        expected = sum(w * est.inv(A, c, "projection") for w, A, c in zip(n, matrices, by_mechanism, strict=True))
        np.testing.assert_allclose(inv_r["[INV]_R-P"][run].theta, expected / sum(n), atol=1e-12)
        expected = sum(w * est.ibu(A, c, **STOPPING).theta for w, A, c in zip(n, matrices, by_mechanism, strict=True))
        np.testing.assert_allclose(ibu_r["[IBU]_R"][run].theta, expected / sum(n), atol=1e-8)


def test_rappor_families_match_the_estimators_on_pooled_and_separate_groups():
    mechanisms = [Rappor(6, 1.0), Rappor(6, 4.0)]
    reports = reports_of(mechanisms, 400, 2)
    rap_m = fw.estimate_family("rap_m", mechanisms, reports, STOPPING).estimates
    rap_r = fw.estimate_family("rap_r", mechanisms, reports, STOPPING).estimates
    gibu = fw.estimate_family("gibu", mechanisms, reports, STOPPING).estimates
    for run, groups in enumerate(reports):
        np.testing.assert_allclose(rap_m["[RAP]_M-raw"][run].theta, est.rap_grouped(groups), atol=1e-12)
        n = np.array([g.n for g in groups])
        separate = [est.rap_grouped([g], "normalization") for g in groups]
        np.testing.assert_allclose(rap_r["[RAP]_R-N"][run].theta, n @ np.array(separate) / n.sum(), atol=1e-12)
        direct = est.gibu([est.rappor_group(g) for g in groups], **STOPPING)
        np.testing.assert_allclose(gibu["GIBU"][run].theta, direct.theta, atol=1e-12)


def test_a_family_that_cannot_run_gives_na_with_its_reason():
    singular = np.array([[0.5, 0.5, 0.0], [0.5, 0.5, 0.0], [0.0, 0.0, 1.0]])
    reports = reports_of([singular, singular], 50, 2, seed="na")
    result = fw.estimate_family("inv_m", [singular, singular], reports, STOPPING)
    assert "singular" in result.note
    assert all(np.isnan(e.theta).all() for e in result.estimates["[INV]_M-P"])
    result = fw.estimate_family("rap_m", [singular, singular], reports, STOPPING)
    assert "RAPPOR" in result.note
    assert fw.estimate_family("ibu_m", [singular, singular], reports, STOPPING).note == ""


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
    assert [fw.verdict(r, RULE) for r in (1.0, 1.2, 1.21, 2.0, 7.0, float("nan"))] == [
        "Excellent", "Excellent", "Good", "Good", "Bad", "NA"]


def scores(table: dict[tuple[str, str], list[float]], n: int = 1000) -> dict:
    """Synthetic per-run EMDs at one n: (set, method) -> runs (plus a smaller n that the checks must ignore)."""
    out = {(s, n, m): fw.Summary(np.array(v, dtype=float)) for (s, m), v in table.items()}
    out |= {(s, 10, m): fw.Summary(np.array([9.0] * len(v))) for (s, m), v in table.items()}
    return out


def test_verdict_table_uses_the_best_variant_per_set_and_the_worst_set_per_cell():
    nan = [np.nan] * 2
    measured = scores({("lin", "GIBU"): [1.0, 1.0], ("lin", "[INV]_M-N"): [3.0, 3.0], ("lin", "[INV]_M-P"): [1.1, 1.1],
                       ("pl", "GIBU"): [2.0, 2.0], ("pl", "[INV]_M-N"): [3.0, 3.0], ("pl", "[INV]_M-P"): [3.2, 3.2],
                       ("sh", "GIBU"): [1.0, 1.0], ("sh", "[INV]_M-N"): nan, ("sh", "[INV]_M-P"): nan})
    spec = {"columns": [{"label": "[INV]_M", "methods": ["[INV]_M-N", "[INV]_M-P"]},
                        {"label": "GIBU", "methods": ["GIBU"]}],
            "rows": [{"label": "a", "mechanism_sets": ["lin", "pl"], "paper": ["Excellent", "Excellent"]},
                     {"label": "b", "mechanism_sets": ["sh"], "paper": ["NA", "Excellent"]}]}
    lines = fw.verdict_table(measured, spec, RULE)
    cell = [line for line in lines if line["row"] == "a" and line["column"] == "[INV]_M"]
    assert [(c["mechanism_set"], c["method"], c["ratio"]) for c in cell] == [("lin", "[INV]_M-P", pytest.approx(1.1)),
                                                                             ("pl", "[INV]_M-N", pytest.approx(1.5))]
    assert {c["verdict"] for c in cell} == {"Good"}
    na = [line for line in lines if line["row"] == "b" and line["column"] == "[INV]_M"]
    assert na[0]["verdict"] == "NA" and na[0]["paper"] == "NA"
    assert "**NA**" in fw.verdict_markdown("T", lines)


def test_findings_pass_and_fail_on_synthetic_scores():
    checks = [{"name": "gibu", "test": "not_worse", "better": "GIBU", "worse": "any"},
              {"name": "r", "test": "better", "better": "GIBU", "worse": ["[IBU]_R"]}]
    good = scores({("s", "GIBU"): [1.0, 1.1, 0.9], ("s", "[IBU]_R"): [2.0, 2.2, 1.9], ("s", "[IBU]_M"): [1.0, 1.2, 0.8],
                   ("s", "[INV]_M-N"): [np.nan] * 3})
    results = fw.check_findings(good, checks, z=2.0)
    assert all(r["passed"] for r in results) and len(results) == 3  # the NA method is skipped
    assert all(r["n"] == 1000 for r in results)
    bad = scores({("s", "GIBU"): [2.0, 2.1, 1.9], ("s", "[IBU]_R"): [1.0, 1.1, 1.0], ("s", "[IBU]_M"): [2.0, 2.1, 1.9]})
    assert [r["passed"] for r in fw.check_findings(bad, checks, z=2.0)] == [True, False, False]


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
