"""privest_studies.cost: the model of an estimate job's seconds and the budget warning."""

import json

import numpy as np
import pytest

from privest_studies import cost
from privest_studies.experiment import Experiment, Member, Point


def experiment(kind="rappor", users=(1000,), runs=5, families=("ibu",), max_iter=10_000, members=1,
               data="d") -> Experiment:
    return Experiment(study="s", name="e", axis="n", members=tuple(Member(kind, 1.0) for _ in range(members)),
                      points=tuple(Point(n, tuple(range(members)), n) for n in users), runs=runs, families=families,
                      data=data, labels=(("study", "s"),), stopping=(("delta", 1e-10), ("max_iter", max_iter)))


@pytest.mark.parametrize("kind", ["rappor", "krr", "sue", "olh"])
def test_the_cost_grows_with_users_runs_k_mechanisms_and_the_cap(kind):
    base = cost.job_seconds(experiment(kind, users=(100_000,)), "gibu", 64, 0)
    assert cost.job_seconds(experiment(kind, users=(100_000,), runs=10), "gibu", 64, 0) > base
    assert cost.job_seconds(experiment(kind, users=(100_000,)), "gibu", 128, 0) > base
    assert cost.job_seconds(experiment(kind, users=(100_000,), members=3), "gibu", 64, 0) >= base
    assert cost.job_seconds(experiment(kind, users=(100_000,), max_iter=20_000), "gibu", 64, 0) > base
    assert cost.job_seconds(experiment(kind, users=(100_000,)), "inv_r", 64, 0) < base  # a closed form
    if kind != "krr":  # a matrix iteration costs the same whatever the users
        assert cost.job_seconds(experiment(kind, users=(1_000_000,)), "gibu", 64, 0) > base


def test_rappor_on_adult_ages_is_minutes_of_gibu_per_run_and_seconds_of_rap():
    adult = experiment(users=(48_842,), runs=20)
    ibu = cost.job_seconds(adult, "ibu", 100, 0)
    assert ibu == pytest.approx(cost.STARTUP + 20 * 10_000 * 48_842 * 100 * cost.RAPPOR_CELL)
    assert ibu > 20 * 20 and cost.job_seconds(adult, "rap", 100, 0) < 60


def test_the_warning_names_the_job_its_cost_and_the_config_key():
    line = cost.JobCost("free_will", "adult_rappor", "gibu", 3960.0).warning(30)
    assert line == ("privest: warning: job estimate (study=free_will, experiment=adult_rappor, family=gibu) is "
                    "estimated at ~1.1 h (budget 30 min, config key budget.job_minutes)")


def test_a_tiny_config_over_budget_warns_once_per_job_and_a_small_one_does_not(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "adult_alphabet.json").write_text(json.dumps({"kind": "linear", "k": 100}))
    np.savez(tmp_path / "adult.npz", theta=np.full(100, 0.01), secrets=np.zeros(48_842, dtype=np.int64))
    own = Experiment(study="mine", name="adult_rappor", axis="eps", members=(Member("rappor", 1.0),),
                     points=(Point(1.0, (0,)),), runs=20, families=("rap", "ibu"), data="adult",
                     labels=(("study", "mine"),))
    costs = cost.estimate_jobs({"mine": {"adult_rappor": own, "small": experiment(data="adult")},
                                "other": {"missing": experiment(data="nowhere")}})
    assert [(c.experiment, c.family) for c in costs] == [("adult_rappor", "rap"), ("adult_rappor", "ibu"),
                                                         ("small", "ibu")]
    lines = cost.over_budget(costs, 5)
    assert len(lines) == 1 and "experiment=adult_rappor, family=ibu" in lines[0] and "(budget 5 min," in lines[0]
    assert cost.over_budget(costs, 600) == []
    cost.warn_once(lines)
    cost.warn_once(lines)
    assert capsys.readouterr().err == lines[0] + "\n"


def test_the_memory_model_grows_with_runs_users_and_gibus_groups_and_never_goes_below_the_floor():
    zipf = [Member(kind, 1.0) for kind in ("grr", "sue", "oue", "blh", "olh", "ss", "hr")]

    def megabytes(family, users=1_000_000, runs=20):
        spec = Experiment(study="s", name="e", axis="n", members=tuple(zipf),
                          points=(Point(users, tuple(range(len(zipf))), users),), runs=runs,
                          families=("inv_r", "ibu_r", "gibu"), data="d", labels=(("study", "s"),))
        return cost.job_megabytes(spec, family, 1024, 0)

    assert megabytes(None, runs=40) > megabytes(None) > megabytes(None, users=100_000)
    assert megabytes("gibu") > megabytes("ibu_r") > megabytes("inv_r") == megabytes(None)
    # the sum of the groups' members for GIBU: 16 bytes each, 1.5 x margin
    members = sum(cost.distinct_reports(m, 1024, 1_000_000 / 7) * cost.set_size(m, 1024) for m in zipf)
    assert megabytes("gibu") - megabytes(None) == pytest.approx(cost.MEMORY_MARGIN * 16 * members / 1e6, abs=200)
    assert cost.job_megabytes(experiment("krr", users=(100,)), "ibu", 10, 0) == cost.MIN_MEGABYTES


def test_a_job_whose_dataset_is_not_written_yet_declares_the_floor(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cost.job_megabytes_of(experiment("sue", users=(10**7,), data="nowhere"), "gibu") == cost.MIN_MEGABYTES
