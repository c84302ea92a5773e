"""The standard-protocols study (privest_studies.standard_protocols) and the protocol members of the one chain
(privest_studies.experiment): config and schema defaults, mechanisms and reports stored and read back, the families
against the library calls they wrap and against the matrix path (GRR is k-RR), GIBU's likelihood, the summary."""

import copy
from pathlib import Path

import numpy as np
import pytest
import yaml
from papers_ibu import est  # the papers' IBU, as the study families call it

from privest import mechanisms as mech
from privest import protocols
from privest.alphabets import Alphabet
from privest.sampling import rng_for, split_users
from privest_studies import configuration, experiment, standard_protocols
from privest_studies.experiment import Experiment, Member, Point
from privest_studies.free_will import binomial_theta

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = str(ROOT / "workflow" / "schemas" / "config.schema.yaml")
STOPPING = {"delta": 1e-12, "max_iter": 20_000}
K = 8
THETA = binomial_theta(K, 0.3)
EVERY = tuple(Member(kind, eps, 16 if kind in experiment.HASHED_KINDS else None)
              for kind in protocols.NAMES for eps in (1.0, 3.0))


def project_config(**changes) -> dict:
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    for key, value in changes.items():
        config[key] = value
    configuration.check(config, SCHEMA)
    return config


def protocol_experiment(members=EVERY, ns=(40, 300), runs=2, families=("inv_r", "ibu_r", "gibu"), **changes):
    spec = dict(study="s", name="e", axis="n", members=tuple(members),
                points=tuple(Point(n, tuple(range(len(members))), n) for n in ns), runs=runs, families=families,
                data="d", labels=(("study", "s"), ("dataset", "e")))
    return Experiment(**(spec | changes))


def reports_and_built(spec: Experiment, seed: int = 5):
    built = experiment.build_mechanisms(spec.members, Alphabet(K))
    arrays = experiment.perturb(spec, built, {"theta": THETA}, seed)
    return built, arrays


# --- config ---------------------------------------------------------------------------------------------------------


def test_the_config_gives_every_protocol_at_every_eps_on_both_datasets():
    config = project_config()
    found = standard_protocols.experiments(config)
    study = config["standard_protocols"]
    assert set(found) == {"ages", "zipf"}
    for spec in found.values():
        assert len(spec.members) == len(study["protocols"]) * len(study["eps"])
        assert {(m.kind, m.parameter) for m in spec.members} == {(p, float(e)) for p in study["protocols"]
                                                                for e in study["eps"]}
        assert all(m.hashes == study["hashes"] for m in spec.members if m.kind in ("blh", "olh"))
        assert all(m.hashes is None for m in spec.members if m.kind not in ("blh", "olh"))
        assert [p.value for p in spec.points] == config["scales"]["quick"]["standard_protocols"]["n"]
        assert all(p.users == p.value and len(p.mechanisms) == len(spec.members) for p in spec.points)
        assert spec.families == ("inv_r", "ibu_r", "gibu")
        assert dict(spec.stopping)["accelerate"] == study["ibu"]["accelerate"]
        assert Experiment.from_dict(spec.to_dict()) == spec
    assert found["ages"].data_file == "results/data/ages.npz"
    assert found["zipf"].data_file == "results/standard_protocols/data/zipf.npz"


def test_the_schema_fills_every_key_of_the_study_when_the_config_omits_it():
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    given = copy.deepcopy(config["standard_protocols"])
    del config["standard_protocols"]
    for scale in ("quick", "paper"):
        del config["scales"][scale]["standard_protocols"]
    configuration.check(config, SCHEMA)
    assert config["standard_protocols"] == given  # config.yaml writes the defaults out
    assert config["scales"]["paper"]["standard_protocols"]["runs"] == 20
    standard_protocols.check(config)
    with pytest.raises(ValueError, match=r"config key standard_protocols\.hashes"):
        project_config(standard_protocols={"hashes": 0})
    with pytest.raises(ValueError, match=r"config key standard_protocols\.protocols"):
        project_config(standard_protocols={"protocols": ["grr", "krr"]})


@pytest.mark.parametrize(("change", "message"), [
    ({"scales": {"n": [20, 1000], "runs": 2}}, "scales.quick.standard_protocols.n: every n must be at least the 21"),
    ({"standard_protocols": {"methods": ["[IBU]_M"]}}, "standard_protocols.methods"),
    ({"standard_protocols": {"eps": [1.0, 1.0]}}, "standard_protocols.eps: lists a value twice"),
])
def test_a_bad_study_config_fails_naming_the_key(change, message):
    config = project_config()
    if "scales" in change:
        config["scales"]["quick"]["standard_protocols"] = change["scales"]
    else:
        config["standard_protocols"].update(change["standard_protocols"])
    with pytest.raises(ValueError, match=message):
        standard_protocols.check(config)


@pytest.mark.parametrize(("change", "message"), [
    ({"members": (Member("grr", 1.0, 8),)}, "hashes is a positive hash family size"),
    ({"members": (Member("olh", 1.0, 0),)}, "hashes is a positive hash family size"),
    ({"members": (Member("krr", 1.0),), "stopping": (("delta", 1e-8), ("max_iter", 10), ("accelerate", "squarem"))},
     "accelerate"),
])
def test_a_bad_protocol_experiment_fails_naming_it(change, message):
    with pytest.raises(ValueError, match=message):
        protocol_experiment(ns=(10,), **change)


def test_the_other_studies_dicts_carry_no_hash_family():
    spec = protocol_experiment(members=(Member("krr", 1.0), Member("olh", 2.0, 64)), ns=(10,))
    members = spec.to_dict()["members"]
    assert members[0] == {"kind": "krr", "parameter": 1.0} and members[1]["hashes"] == 64
    assert Experiment.from_dict(spec.to_dict()) == spec


def test_zipf_theta_falls_as_a_power_of_the_rank():
    theta = standard_protocols.zipf_theta(1024, 1.1)
    assert theta.shape == (1024,) and theta.sum() == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(theta[:-1] / theta[1:], (np.arange(2, 1025) / np.arange(1, 1024)) ** 1.1, rtol=1e-12)
    alphabet, _ = standard_protocols.zipf_alphabet({"k": 16, "exponent": 2.0})
    assert Alphabet.from_dict(alphabet).k == 16


# --- the chain on protocols -----------------------------------------------------------------------------------------


def test_protocol_members_round_trip_through_the_mechanisms_archive():
    built = experiment.build_mechanisms(EVERY, Alphabet(K))
    assert [m.name for m in built[::2]] == ["GRR", "SUE", "OUE", "BLH", "OLH", "SS", "HR"]
    arrays = experiment.mechanisms_to_arrays(EVERY, built)
    assert "A" not in arrays and list(arrays["hashes"]).count(16) == 4
    members, back = experiment.mechanisms_from_arrays(arrays)
    assert tuple(members) == EVERY and back == built


def test_perturb_splits_the_users_over_every_protocol_and_the_reports_read_back():
    spec = protocol_experiment()
    built, arrays = reports_and_built(spec)
    assert arrays["protocol_reports"] and "counts" not in arrays
    with pytest.raises(ValueError, match="give the mechanisms"):
        experiment.reports_from_arrays(arrays)
    reports = experiment.reports_from_arrays(arrays, [built] * 2)
    for p, n in enumerate((40, 300)):
        for run in range(2):
            expected = split_users(n, len(built), THETA, rng_for(5, "s", "e", n, run))
            np.testing.assert_array_equal(arrays["secret_counts"][p, run], expected)
            for m, counts, group in zip(built, expected, reports[p][run], strict=True):
                assert m.count(group) == counts.sum()
    again = experiment.perturb(spec, built, {"theta": THETA}, 5)
    assert all(np.array_equal(again[key], arrays[key]) for key in arrays)  # the same keys, the same reports


def test_perturb_packs_each_run_as_drawn_into_the_arrays_of_all_runs_drawn_at_once():
    spec = protocol_experiment()
    built, arrays = reports_and_built(spec)
    drawn = []
    for point in spec.points:
        by_run = []
        for run in range(spec.runs):
            rng = rng_for(5, *spec.seed_keys(point, run))
            counts = split_users(point.users, len(built), THETA, rng)
            by_run.append(experiment.population_reports(built, counts, rng))
        drawn.append(by_run)
    at_once = experiment.reports_to_arrays(drawn, [built] * len(spec.points))
    assert set(at_once) == set(arrays) - {"points", "runs", "secret_counts"}
    assert all(np.array_equal(at_once[key], arrays[key]) for key in at_once)


def test_a_points_runs_are_read_one_run_at_a_time_and_index_like_a_list():
    spec = protocol_experiment()
    built, arrays = reports_and_built(spec)
    first, _ = experiment.reports_from_arrays(arrays, [built] * 2)
    assert isinstance(first, experiment.PointRuns) and len(first) == 2
    eager = [[m.from_arrays(arrays, f"p0_r{r}_m{j}_") for j, m in enumerate(built)] for r in range(2)]
    for got in (list(first), first[0:2], [first[-2], first[-1]]):
        for run, expected in zip(got, eager, strict=True):
            for m, a, b in zip(built, run, expected, strict=True):
                assert m.count(a) == m.count(b)
                np.testing.assert_array_equal(m.support(a), m.support(b))
    with pytest.raises(IndexError):
        first[2]


def test_the_families_on_protocols_equal_the_library_calls_they_wrap():
    spec = protocol_experiment(ns=(300,))
    built, arrays = reports_and_built(spec)
    stopping = STOPPING | {"accelerate": "squarem"}
    (by_run,) = experiment.reports_from_arrays(arrays, [built])
    out = {family: experiment.estimate_family(family, built, by_run, stopping) for family in spec.families}
    assert all(result.note == "" for result in out.values())
    for run, reports in enumerate(by_run):
        n = [m.count(r) for m, r in zip(built, reports, strict=True)]
        for method, post in (("[INV]_R-P", "projection"), ("[INV]_R-N", "normalization")):
            expected = est.combine_results([m.estimate(r, post=post) for m, r in zip(built, reports, strict=True)], n)
            np.testing.assert_allclose(out["inv_r"].estimates[method][run].theta, expected, atol=1e-12)
        alone = [est.gibu([(m, r)], **stopping) for m, r in zip(built, reports, strict=True)]
        np.testing.assert_allclose(out["ibu_r"].estimates["[IBU]_R"][run].theta,
                                   est.combine_results([a.theta for a in alone], n), atol=1e-12)
        assert out["ibu_r"].estimates["[IBU]_R"][run].iterations == max(a.iterations for a in alone)
        mixture = est.gibu([(m, r) for m, r in zip(built, reports, strict=True)], **stopping)
        np.testing.assert_allclose(out["gibu"].estimates["GIBU"][run].theta, mixture.theta, atol=1e-12)


def test_gibu_and_inv_r_on_grr_protocols_equal_the_matrix_path_on_k_rr():
    """GRR is k-RR: the set-valued path (protocols' reports, SetGroup) and the matrix path (report counts, k-RR
    matrices, batched IBU) are two implementations of the same estimators."""
    eps = (0.5, 2.0, 4.0)
    spec = protocol_experiment(members=tuple(Member("grr", e) for e in eps), ns=(2000,), runs=3)
    built, arrays = reports_and_built(spec, seed=11)
    (by_run,) = experiment.reports_from_arrays(arrays, [built])
    matrices = [mech.krr(K, e) for e in eps]
    counts = [[np.bincount(r, minlength=K) for r in reports] for reports in by_run]
    for family, method, tolerance in (("gibu", "GIBU", 1e-6), ("inv_r", "[INV]_R-P", 1e-9),
                                      ("inv_r", "[INV]_R-N", 1e-9), ("ibu_r", "[IBU]_R", 1e-6)):
        sets = experiment.estimate_family(family, built, by_run, STOPPING).estimates[method]
        matrix = experiment.estimate_family(family, matrices, counts, STOPPING).estimates[method]
        for a, b in zip(sets, matrix, strict=True):
            np.testing.assert_allclose(a.theta, b.theta, atol=tolerance)


def test_gibu_over_the_mixture_is_at_least_as_likely_as_the_per_protocol_estimates():
    """GIBU is the MLE of the whole mixture: on every run, the log-likelihood of every report of every protocol is
    at least that of the [e]_R estimates (up to the stopping rule)."""
    spec = protocol_experiment(ns=(400,), runs=3)
    built, arrays = reports_and_built(spec, seed=13)
    (by_run,) = experiment.reports_from_arrays(arrays, [built])
    out = {family: experiment.estimate_family(family, built, by_run, STOPPING).estimates for family in spec.families}
    for run, reports in enumerate(by_run):
        groups = [m.group(r) for m, r in zip(built, reports, strict=True)]
        best = est.log_likelihood(out["gibu"]["GIBU"][run].theta, groups)
        for method in ("[INV]_R-P", "[IBU]_R"):
            family = "inv_r" if method.startswith("[INV]") else "ibu_r"
            theta = np.clip(out[family][method][run].theta, 1e-300, None)
            assert est.log_likelihood(theta / theta.sum(), groups) <= best + 1e-9, (run, method)


def test_the_matrix_families_say_na_on_protocols_and_one_protocol_families_wrap_its_estimators():
    spec = protocol_experiment(members=(Member("oue", 2.0), Member("hr", 2.0)), ns=(200,),
                               families=("inv_m", "ibu_m"))
    built, arrays = reports_and_built(spec)
    for family in ("inv_m", "ibu_m"):
        result = experiment.estimate(spec, family, built, arrays, STOPPING)
        assert np.isnan(result["theta"]).all() and "OUE, HR report sets" in str(result["notes"][0])
    single = protocol_experiment(members=(Member("ss", 1.5),), ns=(500,), families=("inv", "ibu"))
    built, arrays = reports_and_built(single)
    (by_run,) = experiment.reports_from_arrays(arrays, [built])
    inv = experiment.estimate_family("inv", built, by_run, STOPPING).estimates
    ibu = experiment.estimate_family("ibu", built, by_run, STOPPING).estimates
    for run, (reports,) in enumerate(by_run):
        np.testing.assert_allclose(inv["INV-P"][run].theta, built[0].estimate(reports, post="projection"), atol=0)
        np.testing.assert_allclose(ibu["IBU"][run].theta, est.gibu([(built[0], reports)], **STOPPING).theta, atol=0)


def test_score_rows_of_a_protocol_experiment_cover_every_point_run_and_method():
    # 300 users, about 40 a protocol: with 60 (8 a protocol) a protocol's raw estimate may have no positive entry,
    # and [INV]_R-N is then rightly NA for that run (it was for one run once issue 26's samplers changed the draws)
    spec = protocol_experiment(ns=(300,))
    built, arrays = reports_and_built(spec)
    estimates = [experiment.estimate(spec, family, built, arrays, STOPPING) for family in spec.families]
    rows, columns = experiment.score(spec, Alphabet(K), THETA, arrays, estimates)
    assert columns[:3] == ["study", "dataset", "n"]
    assert len(rows) == 1 * 2 * 4 and all(r["note"] == "" and np.isfinite(r["emd"]) for r in rows)


# --- summary --------------------------------------------------------------------------------------------------------


def test_the_summary_averages_each_method_over_runs_and_the_page_gives_gibus_ratio():
    rows = [{"dataset": "zipf", "n": 100, "method": m, "run": r, "emd": e, "l2sq": e / 100, "iterations": 10 * r,
             "capped": r == 1}
            for m, values in (("GIBU", (1.0, 3.0)), ("[IBU]_R", (4.0, 6.0)), ("[INV]_R-P", (8.0, 8.0)),
                              ("[INV]_R-N", (0.0, 0.0)))
            for r, e in enumerate(values)]
    lines = standard_protocols.summary(rows, ["[INV]_R-P", "[IBU]_R", "GIBU"])
    assert [line["method"] for line in lines] == ["[INV]_R-P", "[IBU]_R", "GIBU"]
    gibu = lines[2]
    assert gibu["emd_mean"] == 2.0 and gibu["emd_sd"] == pytest.approx(np.sqrt(2.0))
    assert gibu["l2sq_mean"] == pytest.approx(0.02) and gibu["capped_runs"] == 1 and gibu["iterations_mean"] == 5
    config = project_config()
    page = standard_protocols.summary_markdown(lines, config, {"zipf": "X = {0..1023}"})
    assert "| GIBU ÷ best other | 0.400 |" in page  # 2 / 5 on both metrics
    assert standard_protocols.panel_title("emd", lines, "zipf").endswith("n = 100: 0.40")
