"""Longitudinal own studies (issue 49, item 6): rounds of collection with the longitudinal protocols, each user's memo
kept across rounds (privest.protocols.Rounds), values redrawn between rounds, each round estimated and scored, and the
privacy spent per round; the config check of rounds and redraw; seeds from the config seed and the round."""

from pathlib import Path

import numpy as np
import pytest
import yaml

import privest
from privest import protocols
from privest.alphabets import Alphabet
from privest_studies import experiment, files, own_figures, own_study

ROOT = Path(__file__).resolve().parents[1]
K = 6


def config(**spec) -> dict:
    experiments = {"e": {"mechanisms": ["l_grr"], "eps": [2.0], "estimators": ["inv", "ibu"], **spec}}
    return {"studies": {"s": {"data": {"csv": "x.csv", "column": "x"}, "alphabet": {"kind": "linear", "k": K},
                              "runs": 2, "ibu": {"delta": 1e-8, "max_iter": 500}, "experiments": experiments}}}


def data(users: int = 4000, seed: int = 3) -> dict:
    theta = np.array([0.4, 0.25, 0.15, 0.1, 0.06, 0.04])
    secrets = np.sort(np.random.default_rng(seed).choice(K, users, p=theta))
    return {"secrets": secrets, "theta": np.bincount(secrets, minlength=K) / users}


def spec_of(**spec) -> experiment.Experiment:
    (built,) = own_study.experiments(config(**spec))["s"].values()
    return built


def reports_of(spec: experiment.Experiment, seed: int = 11, dataset: dict | None = None):
    built = experiment.build_mechanisms(spec.members, Alphabet(K))
    return built, experiment.perturb(spec, built, dataset or data(), seed)


def test_an_unchanged_value_reuses_its_memo_in_every_round():
    """With no redraw, one user's reports of two rounds are two instantaneous responses to the same memo: they agree
    with probability p2^2 + (k - 1) q2^2 (L-GRR). Fresh memos each round (what multi-freq-ldpy's clients do) agree
    with a lower probability, sum_z P(z | x)^2 under the one-round channel, p*^2 + (k - 1) q*^2."""
    spec = spec_of(rounds=2, mechanisms=[{"kind": "l_grr", "eps1": 1.5}], eps=[3.0])
    (m,), reports = reports_of(spec)
    names = sorted(name for name in reports if name.startswith("p0_r0_m0_") or name.startswith("p0_r1_m0_"))
    first, second = (reports[name] for name in names)
    same_memo = m.p2**2 + (K - 1) * m.q2**2
    fresh = m.p_star**2 + (K - 1) * m.q_star**2
    agree = float(np.mean(first == second))
    sd = np.sqrt(same_memo * (1 - same_memo) / first.size)
    assert abs(agree - same_memo) < 4 * sd, (agree, same_memo, fresh)
    assert abs(agree - fresh) > 10 * sd  # the test tells the two apart


def test_the_privacy_spent_is_eps_per_distinct_value_reported():
    """No redraw: eps at every round. Redraw r from theta: after round 2 a user holds a second value with probability
    r (1 - sum theta^2), so the mean eps spent is eps (1 + r (1 - sum theta^2)); the largest is eps x the most values
    any user held."""
    spec = spec_of(rounds=3)
    _, reports = reports_of(spec)
    np.testing.assert_array_equal(reports["eps_spent"], 2.0)
    np.testing.assert_array_equal(reports["eps_spent_max"], 2.0)
    dataset = data(20_000)
    spec = spec_of(rounds=3, redraw=0.3, eps=[2.0, 5.0])
    _, reports = reports_of(spec, dataset=dataset)
    theta = dataset["theta"]
    expected = 1 + 0.3 * (1 - np.sum(theta**2))
    for p, eps in enumerate((2.0, 5.0)):
        for run in range(spec.runs):
            slot = run * 3
            assert reports["eps_spent"][p, slot] == eps  # round 1: one value
            assert reports["eps_spent"][p, slot + 1] == pytest.approx(eps * expected, rel=0.01)
            assert reports["eps_spent"][p, slot + 2] > reports["eps_spent"][p, slot + 1]
            assert reports["eps_spent_max"][p, slot + 2] == 3 * eps  # some user held three values


def test_each_round_is_scored_against_its_own_users_and_the_summary_has_a_row_per_round(tmp_path):
    spec = spec_of(rounds=4, redraw=0.5)
    built, reports = reports_of(spec)
    counts = reports["secret_counts"]
    assert counts.shape == (1, 2 * 4, 1, K)
    assert not np.array_equal(counts[0, 0], counts[0, 1])  # the values changed between rounds
    estimates = [experiment.estimate(spec, family, built, reports, spec.stopping_rule) for family in spec.families]
    rows, columns = experiment.score(spec, Alphabet(K), data()["theta"], reports, estimates)
    assert columns[columns.index("point"):] == ["point", "round", "run", "method", "emd", "l2sq", "iterations",
                                                "capped", "note", "eps_spent", "eps_spent_max"]
    assert len(rows) == 4 * 2 * 3 and {r["round"] for r in rows} == {1, 2, 3, 4} and {r["run"] for r in rows} == {0, 1}
    original = counts[0, :, 0] / counts[0, :, 0].sum(axis=-1, keepdims=True)
    inv_p = estimates[0]["theta"][list(estimates[0]["methods"]).index("INV-P"), 0]
    for row in rows:
        if row["method"] == "INV-P":  # the error to that round's values, by an independent EMD on the line
            slot = row["run"] * 4 + row["round"] - 1
            emd = np.abs(np.cumsum(original[slot] - inv_p[slot])).sum()
            assert row["emd"] == pytest.approx(emd)
    summary = own_study.summary(rows)
    assert {(r["round"], r["method"]) for r in summary} == {(t, m) for t in range(1, 5)
                                                           for m in ("INV-N", "INV-P", "IBU")}
    assert all(r["runs"] == 2 for r in summary)
    files.save_rows(rows, columns, tmp_path / "scores.csv")
    table = files.load_table(tmp_path / "scores.csv", dtypes={"note": str})
    fig = own_figures.draw([spec], {"kind": "linear", "k": K}, table, "e")
    texts = " ".join(t.get_text() for t in fig.texts) + fig._suptitle.get_text()
    assert "4 rounds" in texts and "probability 0.5" in texts
    assert [ax.get_xlabel() for ax in fig.axes if ax.get_xlabel()] == ["round"]


def test_the_seeds_of_a_round_come_from_the_config_seed_and_the_round():
    """Reruns are byte-identical; another seed gives other reports; adding rounds leaves the earlier rounds' reports
    unchanged (each round's draws from its own generator)."""
    spec = spec_of(rounds=2, redraw=0.2)
    _, once = reports_of(spec)
    _, again = reports_of(spec)
    assert once.keys() == again.keys() and all(np.array_equal(once[k], again[k]) for k in once)
    _, other = reports_of(spec, seed=12)
    assert not np.array_equal(once["p0_r1_m0_reports"], other["p0_r1_m0_reports"])
    _, longer = reports_of(spec_of(rounds=3, redraw=0.2))
    for run in range(2):
        for t in range(2):
            name = f"p0_r{run * 2 + t}_m0_reports"
            assert np.array_equal(once[name], longer[f"p0_r{run * 3 + t}_m0_reports"]), name
    assert spec.seed_keys(spec.points[0], 1, 2) == ("s", "e", "2.0", 1, "round", 2)


@pytest.mark.parametrize(("spec", "message"), [
    ({"rounds": 3, "mechanisms": ["l_oue", "oue"], "estimators": ["gibu"]},
     r"^config key studies\.s\.experiments\.e\.rounds: oue \(mechanisms\[1\]\) cannot report over rounds; rounds need "
     r"longitudinal protocols"),
    ({"rounds": 3, "compare": ["krr"], "mechanisms": None}, r"experiments\.e\.rounds: krr \(compare\[0\]\) cannot"),
    ({"redraw": 0.2}, r"^config key studies\.s\.experiments\.e\.redraw: how often a user's value changes between "
                      r"rounds needs rounds \(2 or more\)$"),
    ({"rounds": 2, "redraw": 1.5}, r"experiments\.e\.redraw: a probability per round in \[0, 1\], got 1\.5$"),
])
def test_rounds_without_a_longitudinal_protocol_and_a_redraw_without_rounds_are_refused_naming_the_key(spec, message):
    built = config(**spec)
    experiments = built["studies"]["s"]["experiments"]["e"]
    if spec.get("mechanisms", 0) is None:
        del experiments["mechanisms"]
    with pytest.raises(ValueError, match=message) as error:
        own_study.experiments(built)
    assert "\n" not in str(error.value)


def test_the_longitudinal_example_builds_a_comparison_of_rounds(monkeypatch):
    monkeypatch.chdir(ROOT)
    example = yaml.safe_load((ROOT / "examples" / "own_study" / "longitudinal.yaml").read_text())
    own_study.check(example)
    built = own_study.experiments(example)["ages_weekly"]
    assert list(built) == ["weekly_l_grr", "weekly_l_osue_eps1_1"]
    assert all(e.rounds == 6 and e.redraw == 0.1 and e.slots == 6 * e.runs for e in built.values())
    assert built["weekly_l_osue_eps1_1"].members[0].eps1 == 1.0


def test_gibu_joint_is_the_mle_of_rounds_1_to_t_and_round_1_is_the_per_round_gibu():
    """gibu_joint on a mixture (L-GRR's values and L-OUE's packed bits) at a small eps, no redraw: round t of a run
    equals privest.gibu on each mechanism's joint_group of the stored rounds 1..t, computed independently; round 1
    equals the per-round GIBU; and over the later rounds its error is smaller than the per-round GIBU's in every run
    (at eps 1 the joint estimate's L1 error is about half the per-round one's by round 4 on this seed)."""
    spec = spec_of(rounds=4, mechanisms=["l_grr", "l_oue"], eps=[1.0], estimators=["gibu", "gibu_joint"])
    built, reports = reports_of(spec)
    alone, joint = (experiment.estimate(spec, f, built, reports, spec.stopping_rule)["theta"][0, 0]
                    for f in spec.families)
    runs = experiment.reports_from_arrays(reports, [[built[j] for j in p.mechanisms] for p in spec.points])[0]
    rule = {**privest.estimators.PLAIN_IBU, **spec.stopping_rule}
    for run in range(spec.runs):
        for t in range(1, 5):
            groups = [protocols.joint_group(m, [runs[run * 4 + r][j] for r in range(t)]) for j, m in enumerate(built)]
            np.testing.assert_array_equal(joint[run * 4 + t - 1], privest.gibu(groups, **rule).theta)
    np.testing.assert_allclose(joint[::4], alone[::4], atol=1e-9)
    theta = data()["theta"]
    error = {name: np.abs(est - theta).sum(axis=-1).reshape(spec.runs, 4) for name, est in (("alone", alone),
                                                                                             ("joint", joint))}
    assert np.all(error["joint"][:, 1:] < error["alone"][:, 1:]), error


def test_a_split_of_gibu_joint_holds_whole_runs_and_gives_the_whole_jobs_estimates():
    """runs_per_job 3 with 4 rounds a run rounds up to one run a part (4 stored runs), never a run cut in two; the
    parts gathered are the whole job's archive."""
    spec = spec_of(rounds=4, estimators=["gibu_joint"])
    parts = experiment.parts(spec, "gibu_joint", 3)
    assert [(p.first, p.stop) for p in parts] == [(0, 4), (4, 8)]
    assert [(p.first, p.stop) for p in experiment.parts(spec, "gibu", 3)] == [(0, 3), (3, 6), (6, 8)]
    built, reports = reports_of(spec)
    whole = experiment.estimate(spec, "gibu_joint", built, reports, spec.stopping_rule)
    gathered = experiment.gather(spec, "gibu_joint", [experiment.estimate_part(spec, "gibu_joint", built, reports,
                                                                               spec.stopping_rule, p) for p in parts])
    np.testing.assert_array_equal(gathered["theta"], whole["theta"])


@pytest.mark.parametrize(("spec", "message"), [
    ({}, r"^config key studies\.s\.experiments\.e\.rounds: gibu_joint estimates round t from rounds 1\.\.t .*needs "
         r"rounds 2 or more and redraw 0, got rounds 1"),
    ({"rounds": 3, "redraw": 0.1}, r"^config key studies\.s\.experiments\.e\.redraw: gibu_joint .*value did not "
                                   r"change \(a changed value draws a new memo\).*got rounds 3, redraw 0\.1$"),
    ({"rounds": 3, "mechanisms": ["l_oue", "oue"]}, r"^config key studies\.s\.experiments\.e\.rounds: oue "
                                                    r"\(mechanisms\[1\]\) cannot report over rounds"),
])
def test_gibu_joint_without_rounds_with_redraw_or_a_memoryless_kind_is_refused_naming_the_key(spec, message):
    with pytest.raises(ValueError, match=message) as error:
        own_study.experiments(config(**{"estimators": ["gibu", "gibu_joint"], **spec}))
    assert "\n" not in str(error.value)
    built = spec_of(rounds=2, estimators=["gibu"]).to_dict()
    said = r"^experiment s/e: gibu_joint .*: it needs rounds 2 or more and redraw 0, got rounds 2, redraw 0\.3$"
    with pytest.raises(ValueError, match=said):
        experiment.Experiment.from_dict({**built, "families": ["gibu_joint"], "redraw": 0.3})
    assert experiment.refused("gibu_joint", ("l_grr", "oue")) and not experiment.refused("gibu_joint", ("l_adp",))
