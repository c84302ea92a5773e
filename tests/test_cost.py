"""privest_studies.cost: the model of an estimate job's seconds and the budget warning."""

import json

import numpy as np
import pytest

from privest_studies import cost
from privest_studies.experiment import Experiment, Member, Point
from privest_studies.experiment import parts as split


def experiment(kind="rappor", users=(1000,), runs=5, families=("ibu",), max_iter=10_000, members=1,
               data="d", accelerate=None) -> Experiment:
    return Experiment(study="s", name="e", axis="n", members=tuple(Member(kind, 1.0) for _ in range(members)),
                      points=tuple(Point(n, tuple(range(members)), n) for n in users), runs=runs, families=families,
                      data=data, labels=(("study", "s"),),
                      stopping=(("delta", 1e-10), ("max_iter", max_iter),
                                *((("accelerate", accelerate),) if accelerate else ())))


PRICES = {"startup": 1.0, "runs": 1.5e-3, "iterations": 1e-6, "squarem_updates": 2.5e-5, "group_iterations": 2e-6,
          "matrix": 1e-9, "large_matrix": 2e-9, "mixture": 3e-9, "bit_rows": 7e-9, "bits": 4e-9, "sets": 5e-9,
          "closed": 6e-9, "closed_bits": 8e-9, "closed_sets": 9e-9, "closed_groups": 1.2e-3, "reading": 1e-10}
"""Prices of a model to test with: every kind of work priced, each at its own price."""


@pytest.fixture
def model(monkeypatch):
    """The cost model with ``PRICES`` and the iterations of ``s/e/gibu`` measured at n = 1000 and 10^5."""
    calibration = cost.Calibration(PRICES, {"s/e/gibu": {1000.0: 300.0, 100_000.0: 700.0}}, "a test")
    monkeypatch.setattr(cost, "calibration", lambda: calibration)
    return calibration


@pytest.mark.parametrize("kind", ["rappor", "krr", "sue", "olh"])
def test_the_cost_grows_with_users_runs_k_mechanisms_and_the_cap(kind, model):
    base = cost.job_seconds(experiment(kind, users=(100_000,)), "ibu", 64, 0)
    assert cost.job_seconds(experiment(kind, users=(100_000,), runs=10), "ibu", 64, 0) > base
    assert cost.job_seconds(experiment(kind, users=(100_000,)), "ibu", 128, 0) > base
    assert cost.job_seconds(experiment(kind, users=(100_000,), members=3), "gibu", 64, 0) >= \
        cost.job_seconds(experiment(kind, users=(100_000,)), "gibu", 64, 0)
    assert cost.job_seconds(experiment(kind, users=(100_000,), max_iter=20_000), "ibu", 64, 0) > base
    assert cost.job_seconds(experiment(kind, users=(100_000,)), "inv_r", 64, 0) < base  # a closed form
    if kind != "krr":  # a matrix iteration costs the same whatever the users
        assert cost.job_seconds(experiment(kind, users=(1_000_000,)), "ibu", 64, 0) > base


@pytest.mark.parametrize("family, loops", [("gibu", 1), ("ibu_r", 3)])
def test_squarem_prices_its_updates_apart_from_the_plain_loops_iterations(family, loops, model):
    # SQUAREM's updates go through numpy's calls on k-vectors (about 18 us each at k = 1024 in the paper run), the
    # plain iteration through the compiled loop: under accelerate: squarem every loop's updates are priced at
    # squarem_updates, one loop per mechanism for [IBU]_R, SQUAREM_UPDATES of them where none were measured.
    plain, fast = (experiment("sue", users=(10_000,), members=3, families=(family,), accelerate=accelerate)
                   for accelerate in (None, "squarem"))
    (work_plain,), (work_fast,) = (cost.point_work(e, family, 64, 0) for e in (plain, fast))
    iterations = {e: cost.iterations(e, family, 10_000, model) for e in (plain, fast)}
    assert iterations[fast] == (iterations[plain] if family == "gibu" else cost.SQUAREM_UPDATES)  # gibu: measured
    assert work_plain["iterations"] == iterations[plain] * loops and work_plain["squarem_updates"] == 0
    assert work_fast["squarem_updates"] == iterations[fast] * loops and work_fast["iterations"] == 0
    assert cost.seconds_of(work_fast) == pytest.approx(sum(PRICES[kind] * count for kind, count in work_fast.items()))


def test_rappor_on_adult_ages_prices_its_rows_bytes_reading_and_iterations_at_the_cap_where_none_were_measured(model):
    adult = experiment(users=(48_842,), runs=20)
    rows = cost.expected_distinct_reports(Member("rappor", 1.0), 100, 48_842)
    assert rows == pytest.approx(48_842, rel=1e-6)  # 2^100 reports: every user's is another
    stored = rows * (13 + 8)  # packed bits and a count per distinct report
    ibu = cost.job_seconds(adult, "ibu", 100, 0)
    per_iteration = (PRICES["iterations"] + PRICES["group_iterations"]
                     + rows * (PRICES["bit_rows"] + 13 * PRICES["bits"]))
    assert ibu == pytest.approx(PRICES["startup"] + 20 * (PRICES["runs"] + 10_000 * per_iteration
                                                          + stored * PRICES["reading"]))
    rap = PRICES["startup"] + 20 * (PRICES["runs"] + PRICES["closed_groups"] + rows * 100 * PRICES["closed_bits"]
                                    + stored * PRICES["reading"])
    assert cost.job_seconds(adult, "rap", 100, 0) == pytest.approx(rap)


@pytest.mark.parametrize(("kind", "eps", "k", "users", "options"), [
    ("rappor", 5.0, 16, 20_000, {}), ("rappor", 1.0, 12, 3_000, {}), ("oue", 3.0, 14, 10_000, {}),
    ("sue", 8.0, 10, 500, {}), ("the", 1.0, 12, 3000, {}), ("l_oue", 2.0, 12, 3000, {}), ("l_osue", 4.0, 10, 2000, {}),
    ("adp", 1.0, 30, 2000, {}), ("l_osue", 4.0, 10, 2000, {"eps1": 3.5}), ("l_sue", 6.0, 12, 3000, {"eps1": 1.0})])
def test_the_expected_distinct_unary_reports_match_a_simulation(kind, eps, k, users, options):
    from privest import protocols, sampling

    rng = np.random.default_rng(3)
    secrets = rng.integers(0, k, users)
    if kind == "rappor":
        bits = sampling.rappor(secrets, k, eps, rng)
    else:
        bits = protocols.by_name(kind, k, eps, **options).sample(secrets, rng)
    seen = len(np.unique(np.packbits(np.asarray(bits, dtype=np.uint8), axis=1), axis=0))
    expected = cost.expected_distinct_reports(Member(kind, eps, **options), k, users)
    assert expected <= min(users, 2**k)
    assert abs(seen - expected) <= 4 * np.sqrt(expected) + 0.01 * expected, (seen, expected)


def test_measured_iterations_replace_the_cap_at_the_nearest_point_and_parts_split_the_work(model):
    spec = experiment(users=(1000, 10_000, 300_000, 1_000_000), runs=4, families=("gibu",))
    assert [cost.iterations(spec, "gibu", p.value, model) for p in spec.points] == [300, 300, 700, 700]
    assert cost.iterations(spec, "ibu", 1000, model) == 10_000  # not measured: the cap
    assert cost.iterations(experiment(max_iter=500), "gibu", 1000, model) == 300
    assert cost.iterations(experiment(max_iter=200), "gibu", 1000, model) == 200  # never above the cap
    whole = cost.job_seconds(spec, "gibu", 20, 0)
    parts = split(spec, "gibu", 3)
    assert len(parts) == 8
    assert sum(cost.job_seconds(spec, "gibu", 20, 0, part) for part in parts) == pytest.approx(
        whole + (len(parts) - 1) * PRICES["startup"])


def test_the_calibration_round_trips_through_its_file_and_the_file_prices_every_kind_of_work():
    stored = cost.Calibration.from_dict(json.loads(cost.CALIBRATION.read_text()))
    assert set(stored.seconds) == set(cost.WORK_KINDS) and all(v >= 0 for v in stored.seconds.values())
    again = cost.Calibration.from_dict(json.loads(json.dumps(stored.to_dict())))
    assert again.seconds == stored.seconds and again.iterations.keys() == stored.iterations.keys()
    # a calibration fitted before a kind of work was modelled has no price for it: that kind costs nothing
    older = stored.to_dict()
    del older["seconds"]["runs"]
    loaded = cost.Calibration.from_dict(older)
    assert loaded.seconds["runs"] == 0.0
    assert {kind: v for kind, v in loaded.seconds.items() if kind != "runs"} == {
        kind: v for kind, v in stored.seconds.items() if kind != "runs"}


def test_the_fit_recovers_the_prices_of_jobs_made_from_them():
    import sys

    sys.path.insert(0, str(cost.CALIBRATION.parents[1] / "benchmarks"))
    import calibrate_cost

    rng = np.random.default_rng(5)
    rows = []
    for _ in range(40):
        # per-run kinds in the thousands of runs, cells in the billions
        work = {kind: float(rng.uniform(0, 1e4 if kind in ("runs", "closed_groups") else 1e9)
                            if rng.random() < 0.6 else 0) for kind in cost.WORK_KINDS[1:]}
        work["iterations"] = float(rng.uniform(1e3, 1e6))
        rows.append({**work, "wall": cost.seconds_of(work, cost.Calibration(PRICES), startup=True)})
    fitted = calibrate_cost.fit(rows)
    for kind, price in PRICES.items():
        assert fitted[kind] == pytest.approx(price, rel=1e-2), kind


def test_the_warning_names_the_job_its_cost_and_the_config_key():
    line = cost.JobCost("free_will", "adult_rappor", "gibu", 3960.0).warning(30)
    assert line == ("privest: warning: job estimate (study=free_will, experiment=adult_rappor, family=gibu) is "
                    "estimated at ~1.1 h (budget 30 min, config key budget.job_minutes)")


def test_a_tiny_config_over_budget_warns_once_per_job_and_a_small_one_does_not(tmp_path, monkeypatch, capsys, model):
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
    assert megabytes("gibu") > megabytes("ibu_r") >= megabytes("inv_r") == megabytes(None)
    # GIBU's groups, 1.5 x margin: GRR's sets as CSR (one member a report, 16 bytes), every other protocol's bit-packed
    # (128 bytes a distinct report and 32 beside): SUE, OUE, SS, and BLH, OLH (g = 4), HR whose sets hold > k/8
    users = 1_000_000 / 7
    rows = 5 * users + min(users, 2048)  # HR's reports are one of K = 2048 columns
    structure = 16 * 1024 + rows * (128 + cost.BIT_ROW_BYTES)
    assert megabytes("gibu") - megabytes(None) == pytest.approx(cost.MEMORY_MARGIN * structure / 1e6, abs=200)
    assert cost.job_megabytes(experiment("krr", users=(100,)), "ibu", 10, 0) == cost.MIN_MEGABYTES


def test_a_job_whose_dataset_is_not_written_yet_declares_the_floor(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cost.job_megabytes_of(experiment("sue", users=(10**7,), data="nowhere"), "gibu") == cost.MIN_MEGABYTES


def test_the_dataset_size_is_read_once_per_version_of_its_files(tmp_path, monkeypatch):
    """Snakemake asks for a waiting job's memory every second: the dataset is read again only when a file changes."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "d_alphabet.json").write_text('{"kind": "linear", "k": 7}')
    np.savez(tmp_path / "d.npz", secrets=np.zeros(40, dtype=np.int64))
    reads = []
    monkeypatch.setattr(cost.np, "load", lambda path, real=np.load: reads.append(path) or real(path))
    assert [cost.dataset_size(experiment()) for _ in range(3)] == [(7, 40)] * 3 and len(reads) == 1
    np.savez(tmp_path / "d.npz", secrets=np.zeros(50, dtype=np.int64))  # another size: read again
    assert cost.dataset_size(experiment()) == (7, 50) and len(reads) == 2


@pytest.mark.parametrize("members", [1, 2, 10])
def test_ibu_m_on_shokri_mechanisms_prices_the_union_of_their_outputs(members):
    """One Shokri matrix reports SHOKRI_OUTPUTS of its k outputs; the average of several, the union of theirs."""
    shokri = tuple(Member("shokri", float(q)) for q in range(1, members + 1))
    work = cost.run_work("ibu_m", shokri, 100, 10_000, iterations=50)
    assert work["matrix"] == pytest.approx(50 * 100 * 100 * (1 - (1 - cost.SHOKRI_OUTPUTS) ** members))
    assert work["runs"] == 1.0
    mixed = cost.run_work("ibu_m", (*shokri, Member("krr", 1.0)), 100, 10_000, iterations=50)
    assert mixed["matrix"] == pytest.approx(50 * 100 * 100)  # k-RR reports every output


def test_gibu_joint_prices_round_t_reading_t_rounds_and_a_dense_group_of_a_column_a_user(model):
    """A run of R rounds: each stored run of gibu_joint reads (R + 1) / 2 rounds' reports on average and counts k
    memberships a user a round (closed cells), its group k columns-by-user cells an iteration; the per-round GIBU
    reads one round. More rounds cost gibu_joint more per stored run, gibu the same."""
    def rounds(R: int) -> Experiment:
        base = experiment("l_grr", users=(2_000,), runs=3, families=("gibu",))
        return Experiment.from_dict({**base.to_dict(), "rounds": R, "families": ["gibu", "gibu_joint"]})

    (alone,), (joint,) = (cost.point_work(rounds(5), family, 64, 0) for family in ("gibu", "gibu_joint"))
    assert joint["reading"] == pytest.approx(3 * alone["reading"])  # (5 + 1) / 2 rounds a stored run
    assert joint["closed"] == pytest.approx(3 * 2_000 * 64) and alone["closed"] == 0
    assert joint["matrix"] == pytest.approx(joint["iterations"] * 64 * 2_000) and joint["sets"] == 0
    per_run = {R: {f: (cost.job_seconds(rounds(R), f, 64, 0) - PRICES["startup"]) / rounds(R).slots
                   for f in ("gibu", "gibu_joint")}
               for R in (2, 8)}
    assert per_run[8]["gibu_joint"] > per_run[2]["gibu_joint"]
    assert per_run[8]["gibu"] == pytest.approx(per_run[2]["gibu"])
