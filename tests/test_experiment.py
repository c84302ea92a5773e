"""The one experiment chain (privest_studies.experiment): mechanisms stored and read back, reports, every estimator
family against the estimators it wraps, perturb's users and generators, and the tidy scores."""

import re

import numpy as np
import pytest
from papers_ibu import est  # the papers' IBU, as the study families call it

from privest import mechanisms as mech
from privest.alphabets import Alphabet
from privest.sampling import Rappor, population, rng_for, split_users
from privest_studies import cost, experiment
from privest_studies.experiment import Experiment, Member, Point
from privest_studies.free_will import binomial_theta

STOPPING = {"delta": 1e-12, "max_iter": 20_000}


def test_describe_names_the_mechanisms_as_the_papers_do():
    members = [Member("geometric", 0.5), Member("krr", 3.0), Member("krr", 4.0)]
    assert experiment.describe(members) == "1 geometric, ε 0.5 + 2 k-RR, ε 3–4"


def test_gibu_matrix_runs_equals_algorithm_1_on_each_run():
    rng = rng_for(1, "gibu-batch")
    k, m = 6, 6
    matrices = [rng.dirichlet(np.ones(m), size=k) for _ in range(3)]
    counts = np.array([[rng.multinomial(200, rng.dirichlet(np.ones(m))) for _ in matrices] for _ in range(4)])
    batched = est.gibu_matrix_runs(matrices, counts, **STOPPING)
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


def test_built_sets_round_trip_through_arrays():
    alphabet = Alphabet(7)
    members = [Member("geometric", 0.5), Member("krr", 2.0), Member("shokri", 1.0)]
    built = experiment.build_mechanisms(members, alphabet, {1.0: np.eye(7)})
    np.testing.assert_array_equal(built[1], mech.krr(7, 2.0))
    back_members, back = experiment.mechanisms_from_arrays(experiment.mechanisms_to_arrays(members, built))
    assert back_members == members
    for a, b in zip(built, back, strict=True):
        np.testing.assert_array_equal(a, b)
    rappor = [Member("rappor", 1.0), Member("rappor", 2.0)]
    arrays = experiment.mechanisms_to_arrays(rappor, experiment.build_mechanisms(rappor, alphabet))
    assert experiment.mechanisms_from_arrays(arrays)[1] == [Rappor(7, 1.0), Rappor(7, 2.0)]


def test_reports_round_trip_for_matrix_rappor_and_mixed_sets():
    rng = rng_for(1, "reports")
    theta = binomial_theta(5)
    for mechanisms in ([mech.krr(5, 1.0), mech.geometric(5, 0.5)], [Rappor(5, 1.0), Rappor(5, 3.0)],
                       [mech.krr(5, 1.0), Rappor(5, 3.0)]):
        reports = [[population(mechanisms, split_users(n, 2, theta, rng), rng) for _run in range(2)]
                   for n in (10, 40)]
        arrays = experiment.reports_to_arrays(reports) | {"secret_counts": np.zeros((2, 2, 2, 5), dtype=np.int64)}
        back = experiment.reports_from_arrays(arrays)
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
    theta = binomial_theta(mechanisms[0].k if isinstance(mechanisms[0], Rappor) else mechanisms[0].shape[0])
    rngs = [rng_for(1, seed, run) for run in range(runs)]
    return [population(mechanisms, split_users(n, len(mechanisms), theta, rng), rng) for rng in rngs]


def test_combine_results_families_weight_each_mechanisms_own_estimate():
    matrices = [mech.krr(6, 2.0), mech.krr(6, 4.0)]
    reports = reports_of(matrices, 301, 2)
    inv_r = experiment.estimate_family("inv_r", matrices, reports, STOPPING).estimates
    ibu_r = experiment.estimate_family("ibu_r", matrices, reports, STOPPING).estimates
    for run, by_mechanism in enumerate(reports):
        n = [c.sum() for c in by_mechanism]
        expected = sum(w * est.inv(A, c, "projection") for w, A, c in zip(n, matrices, by_mechanism, strict=True))
        np.testing.assert_allclose(inv_r["[INV]_R-P"][run].theta, expected / sum(n), atol=1e-12)
        expected = sum(w * est.ibu(A, c, **STOPPING).theta for w, A, c in zip(n, matrices, by_mechanism, strict=True))
        np.testing.assert_allclose(ibu_r["[IBU]_R"][run].theta, expected / sum(n), atol=1e-8)


def test_rappor_families_match_the_estimators_on_pooled_and_separate_groups():
    mechanisms = [Rappor(6, 1.0), Rappor(6, 4.0)]
    reports = reports_of(mechanisms, 400, 2)
    rap_m = experiment.estimate_family("rap_m", mechanisms, reports, STOPPING).estimates
    rap_r = experiment.estimate_family("rap_r", mechanisms, reports, STOPPING).estimates
    gibu = experiment.estimate_family("gibu", mechanisms, reports, STOPPING).estimates
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
    result = experiment.estimate_family("inv_m", [singular, singular], reports, STOPPING)
    assert "singular" in result.note
    assert all(np.isnan(e.theta).all() for e in result.estimates["[INV]_M-P"])
    result = experiment.estimate_family("rap_m", [singular, singular], reports, STOPPING)
    assert "RAPPOR" in result.note
    assert experiment.estimate_family("ibu_m", [singular, singular], reports, STOPPING).note == ""


NA_NOTES = [
    ("gibu_joint", ("rappor",), "GIBU (rounds 1..t) needs longitudinal protocols, each user's memo kept over the "
                                "rounds (l_grr, l_sue, l_oue, l_osue, l_soue, l_adp, l_blh, l_olh); RAPPOR keeps none"),
    ("gibu_joint", ("grr",), "GIBU (rounds 1..t) needs longitudinal protocols, each user's memo kept over the rounds "
                             "(l_grr, l_sue, l_oue, l_osue, l_soue, l_adp, l_blh, l_olh); GRR keeps none"),
    ("gibu_joint", ("l_grr",), "GIBU (rounds 1..t) estimates round t of a run from its rounds 1..t: it needs every "
                               "round of each run (rounds 2 or more), got 2 runs of rounds None"),
    ("inv", ("krr", "krr"), "family inv needs one mechanism per point, got 2"),
    ("inv", ("rappor",), "INV needs matrix mechanisms; RAPPOR has 2^k observables"),
    ("rap", ("krr",), "RAP needs RAPPOR mechanisms (its estimator works on bit sums)"),
    ("inv_r", ("krr", "rappor"), "[INV]_R needs matrix mechanisms; RAPPOR has 2^k observables"),
    ("ibu_r", ("oue", "rappor"), "[IBU]_R needs matrix mechanisms or protocols; RAPPOR has 2^k observables"),
    ("rap_r", ("rappor", "grr"), "[RAP]_R needs RAPPOR mechanisms (its estimator works on bit sums)"),
    ("inv_m", ("krr", "rappor"), "[INV]_M needs matrix mechanisms; RAPPOR has 2^k observables"),
    ("ibu_m", ("grr", "krr", "olh"),
     "[IBU]_M needs matrix mechanisms with one common set of observables; GRR, OLH report sets"),
    ("rap_m", ("krr", "rappor"), "[RAP]_M needs RAPPOR mechanisms (its estimator works on bit sums)"),
]
"""(family, the point's mechanism kinds, the note): the texts scores.csv has said since the families were written."""


@pytest.mark.parametrize(("family", "kinds", "note"), NA_NOTES)
def test_the_na_notes_are_the_texts_scores_csv_has_always_had(family, kinds, note):
    built = experiment.build_mechanisms([Member(kind, 1.0) for kind in kinds], Alphabet(5))
    result = experiment.estimate_family(family, built, [[None] * len(kinds)] * 2, STOPPING)
    assert result.note == note
    assert list(result.estimates) == list(experiment.FAMILIES[family].methods)
    assert all(np.isnan(e.theta).all() and len(by_run) == 2 for by_run in result.estimates.values() for e in by_run)


def test_every_family_has_a_way_to_run_on_each_kind_of_point_it_accepts():
    for name, family in experiment.FAMILIES.items():
        assert family.needs in ("any", "matrices", "matrices or protocols", "RAPPOR", "numeric", "longitudinal"), name
        assert (family.matrices is not None) == (family.needs not in ("RAPPOR", "numeric", "longitudinal")), name
        assert (family.each_run is not None) == (family.needs not in ("matrices", "numeric", "longitudinal")), name
        # the longitudinal protocols' rounds of one run together: gibu_joint only
        assert (family.rounds is not None) == (family.needs == "longitudinal"), name
        # a numeric mechanism's numbers: IBU (EM on its discretised channel) and EMS only
        assert (family.numeric is not None) == (name in ("ibu", "ems")), name




def small_experiment(**changes) -> Experiment:
    spec = dict(study="s", name="e", axis="eps", members=(Member("krr", 1.0), Member("krr", 2.0)),
                points=(Point(1.0, (0,)), Point(2.0, (1,))), runs=3, families=("inv", "ibu"), data="d",
                labels=(("study", "s"), ("experiment", "e")), score_noisy=True)
    return Experiment(**(spec | changes))


def test_an_experiment_round_trips_through_the_dict_its_jobs_read():
    spec = small_experiment(shokri=("a.npz",))
    assert Experiment.from_dict(spec.to_dict()) == spec


@pytest.mark.parametrize(("change", "message"), [
    ({"members": (Member("bogus", 1.0),), "points": (Point(1.0, (0,)),)}, "unknown mechanism kinds"),
    ({"families": ("inv", "magic")}, "unknown estimator families"),
    ({"axis": "delta"}, "axis must be"),
    ({"points": (Point(1.0, (0,)), Point(2.0, (0, 1)))}, "same number of mechanisms"),
    ({"points": (Point(1.0, (5,)),)}, "names a mechanism it does not have"),
])
def test_a_bad_experiment_fails_naming_it(change, message):
    with pytest.raises(ValueError, match=message):
        small_experiment(**change)


def test_perturb_reports_every_record_of_the_dataset_once_per_run_with_the_generator_of_its_keys():
    spec = small_experiment()
    secrets = rng_for(0, "secrets").integers(0, 4, size=500)
    data = {"theta": np.bincount(secrets, minlength=4) / 500, "secrets": secrets}
    built = experiment.build_mechanisms(spec.members, Alphabet(4))
    arrays = experiment.perturb(spec, built, data, seed=7)
    assert arrays["secret_counts"].shape == (2, 3, 1, 4)
    assert np.all(arrays["secret_counts"] == np.bincount(secrets, minlength=4))
    for p, point in enumerate(spec.points):
        for run in range(3):
            rng = rng_for(7, "s", "e", repr(point.value), run)
            expected = population([built[p]], np.bincount(secrets, minlength=4)[None], rng)[0]
            np.testing.assert_array_equal(arrays["counts"][p, run, 0], expected)


def test_perturb_draws_n_users_from_theta_and_splits_them_over_the_points_mechanisms():
    members = (Member("krr", 1.0), Member("geometric", 0.5))
    spec = small_experiment(axis="n", members=members, points=(Point(10, (0, 1), 10), Point(31, (0, 1), 31)))
    theta = binomial_theta(5)
    arrays = experiment.perturb(spec, experiment.build_mechanisms(members, Alphabet(5)), {"theta": theta}, seed=3)
    for p, n in enumerate((10, 31)):
        for run in range(3):
            expected = split_users(n, 2, theta, rng_for(3, "s", "e", n, run))
            np.testing.assert_array_equal(arrays["secret_counts"][p, run], expected)
            assert arrays["counts"][p, run].sum() == n


def test_the_one_mechanism_families_equal_the_estimators_they_wrap():
    A = mech.geometric(6, 0.8)
    reports = reports_of([A], 500, 3, seed="single")
    inv = experiment.estimate_family("inv", [A], reports, STOPPING).estimates
    ibu = experiment.estimate_family("ibu", [A], reports, STOPPING).estimates
    for run, (counts,) in enumerate(reports):
        np.testing.assert_allclose(inv["INV-P"][run].theta, est.inv(A, counts, "projection"), atol=1e-12)
        np.testing.assert_allclose(inv["INV-N"][run].theta, est.inv(A, counts, "normalization"), atol=1e-12)
        np.testing.assert_allclose(ibu["IBU"][run].theta, est.ibu(A, counts, **STOPPING).theta, atol=1e-9)
    rappor = [Rappor(6, 2.0)]
    reports = reports_of(rappor, 500, 2, seed="single-rappor")
    rap = experiment.estimate_family("rap", rappor, reports, STOPPING).estimates
    ibu = experiment.estimate_family("ibu", rappor, reports, STOPPING).estimates
    for run, (group,) in enumerate(reports):
        np.testing.assert_allclose(rap["INV-P"][run].theta, est.rap_grouped([group], "projection"), atol=1e-12)
        np.testing.assert_allclose(ibu["IBU"][run].theta, est.gibu([est.rappor_group(group)], **STOPPING).theta,
                                   atol=1e-12)
    assert "one mechanism per point" in experiment.estimate_family("inv", [A, A], [[1, 1]], STOPPING).note


def test_score_rows_hold_the_noisy_reports_and_every_method_against_theta_or_the_drawn_users():
    spec = small_experiment(points=(Point(1.0, (0,), 50), Point(2.0, (1,), 50)), runs=2)
    theta = binomial_theta(4)
    built = experiment.build_mechanisms(spec.members, Alphabet(4))
    reports = experiment.perturb(spec, built, {"theta": theta}, seed=1)
    estimates = [experiment.estimate(spec, family, built, reports, STOPPING) for family in spec.families]
    rows, columns = experiment.score(spec, Alphabet(4), theta, reports, estimates)
    assert columns == ["study", "experiment", "eps", "run", "method", "emd", "l2sq", "iterations", "capped", "note"]
    assert len(rows) == 2 * 2 * 4  # points x runs x (noisy, INV-N, INV-P, IBU)
    row = next(r for r in rows if r["eps"] == 2.0 and r["run"] == 1 and r["method"] == "IBU")
    theta_hat = estimates[1]["theta"][0, 1, 1]
    assert row["emd"] == pytest.approx(Alphabet(4).emd(theta, theta_hat), abs=1e-15)
    users = small_experiment(points=spec.points, runs=2, score_against="users")
    row = next(r for r in experiment.score(users, Alphabet(4), theta, reports, estimates)[0]
               if r["eps"] == 2.0 and r["run"] == 1 and r["method"] == "noisy")
    drawn = reports["secret_counts"][1, 1, 0] / 50
    counts = reports["counts"][1, 1, 0]
    assert row["emd"] == pytest.approx(Alphabet(4).emd(drawn, counts / counts.sum()), abs=1e-15)


def test_gibu_runs_on_a_point_that_mixes_rappor_with_matrix_mechanisms_and_the_matrix_families_say_na():
    members = (Member("krr", 2.0), Member("rappor", 3.0))
    spec = small_experiment(axis="n", members=members, points=(Point(400, (0, 1), 400),), families=("gibu", "ibu_m"))
    theta = binomial_theta(5)
    built = experiment.build_mechanisms(members, Alphabet(5))
    reports = experiment.perturb(spec, built, {"theta": theta}, seed=2)
    gibu = experiment.estimate(spec, "gibu", built, reports, STOPPING)
    (by_run,) = experiment.reports_from_arrays(reports)
    for run, (counts, group) in enumerate(by_run):
        direct = est.gibu([est.matrix_group(built[0], counts), est.rappor_group(group)], **STOPPING)
        np.testing.assert_allclose(gibu["theta"][0, 0, run], direct.theta, atol=1e-12)
    ibu_m = experiment.estimate(spec, "ibu_m", built, reports, STOPPING)
    assert np.isnan(ibu_m["theta"]).all() and "RAPPOR" in str(ibu_m["notes"][0])


def test_an_estimate_job_logs_one_progress_line_per_unit_of_work_with_iterations_and_the_time_left(caplog):
    spec = small_experiment(axis="n", members=(Member("rappor", 2.0), Member("krr", 1.0)),
                            points=(Point(300, (0,), 300), Point(200, (1,), 200)), runs=3)
    built = experiment.build_mechanisms(spec.members, Alphabet(5))
    reports = experiment.perturb(spec, built, {"theta": binomial_theta(5)}, seed=4)
    progress = cost.estimate_progress(spec, "ibu", 5, reports)
    with caplog.at_level("INFO", logger="privest_studies.progress"):
        logged = experiment.estimate(spec, "ibu", built, reports, STOPPING, progress)
    lines = [r.getMessage() for r in caplog.records]
    # RAPPOR's point goes run by run, the matrix point's runs are batched: four units, four lines
    assert [line.split(",")[0] for line in lines] == [
        "estimate ibu: point n=300 run 1/3", "estimate ibu: point n=300 run 2/3", "estimate ibu: point n=300 run 3/3",
        "estimate ibu: point n=200 runs 1-3/3"]
    assert f"{logged['iterations'][0, 0, 0]} iterations, elapsed " in lines[0]
    assert "iterations on average, at most" in lines[3]
    assert all("remaining ~" in line and line.endswith("(est.)") for line in lines)
    assert lines[-1].endswith("remaining ~0s (est.)")
    silent = experiment.estimate(spec, "ibu", built, reports, STOPPING)
    for key in ("theta", "iterations", "capped"):
        np.testing.assert_array_equal(silent[key], logged[key])


def split_experiment(**changes) -> Experiment:
    """Points mixing RAPPOR, protocols (each run by run) and a point of matrices, n on the axis, 5 runs."""
    members = (Member("rappor", 2.0), Member("oue", 1.0), Member("grr", 2.0), Member("krr", 1.0), Member("krr", 2.0))
    points = (Point(300, (0, 1), 300), Point(200, (2, 1), 200), Point(100, (3, 4), 100))
    spec = dict(axis="n", members=members, points=points, runs=5, families=("gibu", "ibu_r", "inv_r"))
    return small_experiment(**(spec | changes))


def test_a_scale_splits_only_the_iterative_families_on_run_by_run_points_into_blocks_of_runs():
    spec = split_experiment(points=split_experiment().points[:2])
    assert experiment.parts(spec, "gibu", None) == ()
    assert experiment.parts(spec, "inv_r", 2) == ()  # a closed form: one pass, one job
    assert experiment.parts(split_experiment(), "gibu", 2) == ()  # a matrix point batches its runs: one job
    assert experiment.parts(spec, "ibu_r", 2) == ()  # NA on RAPPOR: one job says so
    parts = experiment.parts(spec, "gibu", 2)
    assert [p.name for p in parts] == ["point0_runs1-2", "point0_runs3-4", "point0_runs5-5",
                                       "point1_runs1-2", "point1_runs3-4", "point1_runs5-5"]
    assert all(experiment.Part.from_name(p.name) == p for p in parts)
    with pytest.raises(ValueError, match="point3_runs11-20"):
        experiment.Part.from_name("../etc")


@pytest.mark.parametrize("family", ["gibu", "ibu_m"])
def test_the_parts_of_a_split_estimate_job_gather_into_the_whole_jobs_archive_byte_for_byte(family, tmp_path):
    from privest_studies import files

    spec = split_experiment(points=split_experiment().points[:2])
    built = experiment.build_mechanisms(spec.members, Alphabet(5))
    reports = experiment.perturb(spec, built, {"theta": binomial_theta(5)}, seed=6)
    whole = experiment.estimate(spec, family, built, reports, STOPPING)
    blocks = [experiment.Part(p, first, min(first + 2, 5)) for p in (1, 0) for first in (4, 0, 2)]  # any order
    files.save_npz(tmp_path / "reports.npz", **reports)
    archives = [files.NpzArrays(tmp_path / "reports.npz") for _ in blocks]  # as rule estimate_part reads them
    gathered = experiment.gather(spec, family, [experiment.estimate_part(spec, family, built, arrays, STOPPING, part)
                                                for part, arrays in zip(blocks, archives, strict=True)])
    if family == "gibu":  # a part reads its own point's reports, not the others'
        assert all(name.startswith(f"p{part.point}_") for part, arrays in zip(blocks, archives, strict=True)
                   for name in arrays.arrays_read if re.match(r"p\d+_", name)) and archives[0].arrays_read
    files.save_npz(tmp_path / "whole.npz", **whole)
    files.save_npz(tmp_path / "gathered.npz", **gathered)
    assert (tmp_path / "whole.npz").read_bytes() == (tmp_path / "gathered.npz").read_bytes()
    assert (family == "ibu_m") == bool(str(gathered["notes"][0]))  # NA (RAPPOR): every run of the point, one note
    with pytest.raises(ValueError, match="runs"):
        experiment.gather(spec, family, [experiment.estimate_part(spec, family, built, reports, STOPPING, part)
                                         for part in blocks[1:]])
