"""A researcher's own study from config (privest_studies.own_study): experiments built from the config, and every bad
input failing in one line that names the config key or the file and line."""

import copy
from pathlib import Path

import numpy as np
import pytest
import yaml

from privest_studies import cost, own_csv, own_data, own_figures, own_study

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = yaml.safe_load((ROOT / "examples" / "own_study" / "config.yaml").read_text())


def config_with(tmp_path, csv: str | None = "age,sex\n30,F\n45,M\n30,M\n", **changes) -> dict:
    study = copy.deepcopy(EXAMPLE["studies"]["ages_mixture"])
    if csv is not None:
        (tmp_path / "ages.csv").write_text(csv)
        study["data"] = {"csv": str(tmp_path / "ages.csv"), "column": "age"}
    for key, value in changes.items():
        study[key] = value
    return {"studies": {"mine": study}}


def test_the_example_builds_one_experiment_per_entry_with_its_grid(monkeypatch):
    monkeypatch.chdir(ROOT)
    own_study.check(EXAMPLE)
    experiments = own_study.experiments(EXAMPLE)["ages_mixture"]
    by_eps, by_n = experiments["krr_by_eps"], experiments["mixture_by_n"]
    assert by_eps.axis == "eps" and [p.value for p in by_eps.points] == [1.0, 2.0, 4.0]
    assert [p.mechanisms for p in by_eps.points] == [(0,), (1,), (2,)] and by_eps.points[0].users is None
    assert by_n.axis == "n" and [p.users for p in by_n.points] == [1000, 3000, 10000]
    assert [(m.kind, m.parameter) for m in by_n.members] == [("krr", 3.0), ("geometric", 0.3)]
    assert by_n.data == "results/ages_mixture/data" and by_n.stopping_rule == {"delta": 1e-8, "max_iter": 5000}
    assert by_n.point_column == "point" and ("axis", "n") in by_n.labels


def test_a_csv_column_becomes_the_secrets_and_their_distribution(tmp_path):
    config = config_with(tmp_path)
    study = config["studies"]["mine"]
    secrets, alphabet, provenance = own_data.load(study["data"], study["alphabet"])
    np.testing.assert_array_equal(secrets, [30, 45, 30])
    assert alphabet["k"] == 100 and provenance["records"] == provenance["kept"] == 3
    data = own_data.empirical_data(secrets, 100)
    assert data["theta"][30] == pytest.approx(2 / 3) and data["theta"].sum() == pytest.approx(1)


@pytest.mark.parametrize(("csv", "changes", "message"), [
    ("age,sex\n30,F\n", {"data": None}, "no column 'agee' \\(columns: age, sex\\)"),
    ("age\n30\n", {"experiments": {"e": {"mechanisms": ["kkr"], "eps": [1.0], "estimators": ["ibu"]}}},
     "config key studies.mine.experiments.e.mechanisms\\[0\\]: unknown mechanism 'kkr'"),
    ("age\n30\n", {"experiments": {"e": {"mechanisms": [{"kind": "krr", "hashes": 64}], "eps": [1.0],
                                        "estimators": ["ibu"]}}},
     "mechanisms\\[0\\].hashes: krr takes no hashes \\(a hash family size\\); only blh, olh, l_blh, l_olh do"),
    ("age\n30\n", {"experiments": {"e": {"mechanisms": [{"kind": "l_oue", "eps1": 2.0}], "eps": [1.0, 4.0],
                                        "estimators": ["ibu"]}}},
     "mechanisms\\[0\\].eps1: 2 must be below eps \\(the memo's level, .*\\), and l_oue runs at eps = 1$"),
    ("age\n30\n", {"experiments": {"e": {"mechanisms": [{"kind": "l_grr", "eps": 2.0, "eps1": 2.0}], "n": [10],
                                        "estimators": ["ibu"]}}},
     "mechanisms\\[0\\].eps1: 2 must be below eps .* and l_grr runs at eps = 2$"),
    ("age\n30\n", {"experiments": {"e": {"compare": [{"kind": "l_sue", "eps1": -0.5}], "eps": [1.0],
                                        "estimators": ["ibu"]}}},
     "compare\\[0\\].eps1: one report's level must be a number above 0, got -0.5"),
    ("age\n30\n", {"experiments": {"e": {"mechanisms": [{"kind": "l_grr", "calibration": "pear"}], "eps": [1.0],
                                        "estimators": ["ibu"]}}},
     "mechanisms\\[0\\].calibration: unknown 'pear'; known: exact, peer"),
    ("age\n30\n", {"experiments": {"e": {"mechanisms": [{"kind": "l_oue", "calibration": "peer"}], "eps": [1.0],
                                        "estimators": ["ibu"]}}},
     "mechanisms\\[0\\].calibration: l_oue takes no calibration .*; only l_grr, l_adp, l_blh, l_olh do"),
    ("age\n30\n", {"experiments": {"e": {"mechanisms": [{"kind": "oue", "eps1": 0.5}], "eps": [1.0],
                                        "estimators": ["ibu"]}}},
     "mechanisms\\[0\\].eps1: oue takes no eps1 .*; only l_grr, l_sue, l_oue, l_osue, l_soue, l_adp, l_blh, l_olh"),
    ("age\n30\n", {"experiments": {"e": {"mechanisms": [{"kind": "l_oue", "eps1": 0.9}], "eps": [1.0],
                                        "estimators": ["ibu"]}}},
     "mechanisms\\[0\\].eps1: l_oue at eps = 1: eps1 must be below 0.763"),
    ("age\n30\n", {"experiments": {"e": {"mechanisms": [{"kind": "olh", "hashes": 2.5}], "eps": [1.0],
                                        "estimators": ["ibu"]}}},
     "mechanisms\\[0\\].hashes: a hash family size must be an integer in 1..2\\^32, got 2.5"),
    ("age\n30\n", {"experiments": {"e": {"mechanisms": ["krr"], "eps": [1.0], "estimators": ["magic"]}}},
     "config key studies.mine.experiments.e.estimators: unknown \\['magic'\\]"),
    ("age\n30\n", {"experiments": {"e": {"mechanisms": [{"kind": "krr", "eps": 1}, {"kind": "geometric", "eps": 1}],
                                        "n": [100], "estimators": ["ibu"]}}},
     "config key studies.mine.experiments.e.estimators: \\['ibu'\\] take one mechanism per point"),
    ("age\n30\n", {"experiments": {"e": {"mechanisms": ["krr"], "eps": [1.0], "n": [10], "estimators": ["ibu"]}}},
     "config key studies.mine.experiments.e: give either eps"),
    ("age\n30\n", {"experiments": {"e": {"mechanisms": ["krr"], "eps": [1.0, 1, 2.0], "estimators": ["ibu"]}}},
     "config key studies.mine.experiments.e.eps: 1 listed twice"),  # issue 46: one seed, identical rows, 6 "runs"
    ("age\n30\n", {"experiments": {"e": {"mechanisms": [{"kind": "krr", "eps": 1}], "n": [10, 20, 10],
                                        "estimators": ["ibu"]}}},
     "config key studies.mine.experiments.e.n: 10 listed twice"),
])
def test_bad_input_fails_in_one_line_naming_the_key_or_the_file_and_line(tmp_path, csv, changes, message):
    config = config_with(tmp_path, csv, **{k: v for k, v in changes.items() if v is not None})
    if "data" in changes:
        config["studies"]["mine"]["data"]["column"] = "agee"
    with pytest.raises(ValueError, match=message) as error:
        own_study.check(config)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize(("csv", "message"), [
    ("age,sex\n30,F\n140,M\n", "ages.csv line 3: age '140' is outside the alphabet 0..99 \\(1 such record;"),
    ("age,sex\n30,F\nold,M\n", "ages.csv line 3: age 'old' is not a number \\(1 such record;"),
    ("age\n", "ages.csv: no records"),
])
def test_a_bad_record_passes_the_check_and_fails_the_load_in_one_line(tmp_path, csv, message):
    config = config_with(tmp_path, csv)
    own_study.check(config)  # the header is fine: records are the data job's
    study = config["studies"]["mine"]
    with pytest.raises(ValueError, match=message) as error:
        own_data.load(study["data"], study["alphabet"])
    assert "\n" not in str(error.value)


def test_a_missing_file_and_a_reserved_name_are_named(tmp_path):
    config = config_with(tmp_path)
    config["studies"]["mine"]["data"]["csv"] = str(tmp_path / "nowhere.csv")
    with pytest.raises(ValueError, match=r"nowhere\.csv: no such file"):
        own_study.check(config)
    with pytest.raises(ValueError, match=r"config key studies\.free_will: 'free_will' is taken"):
        own_study.check({"studies": {"free_will": config["studies"]["mine"]}})


def test_latitude_and_longitude_become_cells_of_the_grid(tmp_path):
    (tmp_path / "places.csv").write_text("lat,lon\n0.001,0.001\n0.009,0.013\n0.02,0.0\n")
    alphabet = {"kind": "planar", "box": {"lat_min": 0.0, "lat_max": 0.01, "lon_min": 0.0, "lon_max": 0.02},
                "columns": 2, "rows": 1, "cell_km": 1.2, "latitude": "lat", "longitude": "lon"}
    data = {"csv": str(tmp_path / "places.csv")}
    with pytest.raises(ValueError, match=r"places\.csv line 4: lat, lon \('0\.02', '0'\) is outside the box"):
        own_data.load(data, alphabet)
    (tmp_path / "places.csv").write_text("lat,lon\n0.001,0.001\n0.009,0.013\n")
    np.testing.assert_array_equal(own_data.load(data, alphabet)[0], [0, 1])


def test_the_summary_is_the_mean_and_sd_over_runs():
    rows = [{"experiment": "e", "axis": "eps", "point": "1.0", "method": "IBU", "emd": str(x)} for x in (1.0, 3.0)]
    rows.append({"experiment": "e", "axis": "eps", "point": "1.0", "method": "INV-N", "emd": "nan"})
    (row,) = own_study.summary(rows)
    assert row["emd_mean"] == 2.0 and row["emd_sd"] == pytest.approx(np.sqrt(2)) and row["runs"] == 2
    assert row["rank"] == 1 and row["best"] == "IBU"


def scores_table(means: dict, error: str = "emd", runs: int = 2) -> list[dict]:
    """Tidy score rows as read from scores.csv (strings): (experiment, point, method) -> the mean error, each run
    +-0.5 around it."""
    return [{"study": "s", "experiment": e, "axis": "eps", "point": str(point), "run": str(run), "method": method,
             error: str(mean + (run - (runs - 1) / 2)), "capped": "False", "iterations": "0", "note": ""}
            for (e, point, method), mean in means.items() for run in range(runs)]


def test_the_summary_names_its_metric_and_ranks_the_methods_at_each_point_of_a_figure():
    """Issue 48: summary.csv had no rank or best, and named a total variation distance emd_mean. Hand-made means:
    at eps 1 IBU < INV-P < INV-N; at eps 2 INV-N = INV-P < IBU (a tie shares rank 1); the noisy reports unranked;
    a comparison's two experiments ranked together, its best named with its experiment."""
    means = {("e", 1.0, "IBU"): 2.0, ("e", 1.0, "INV-N"): 5.0, ("e", 1.0, "INV-P"): 3.0, ("e", 1.0, "noisy"): 1.0,
             ("e", 2.0, "IBU"): 4.0, ("e", 2.0, "INV-N"): 1.5, ("e", 2.0, "INV-P"): 1.5,
             ("cmp_krr", 1.0, "IBU"): 3.0, ("cmp_oue", 1.0, "IBU"): 2.5, ("cmp_oue", 1.0, "INV-N"): 9.0}
    rows = own_study.summary(scores_table(means, "tv"), {"e": ["e"], "cmp": ["cmp_krr", "cmp_oue"]})
    assert list(rows[0]) == own_study.summary_columns("tv") and "tv_mean" in rows[0] and "emd_mean" not in rows[0]
    by = {(r["experiment"], r["point"], r["method"]): r for r in rows}
    assert {k: by[k]["tv_mean"] for k in means} == pytest.approx(means)
    assert [by[("e", 1.0, m)]["rank"] for m in ("IBU", "INV-P", "INV-N")] == [1, 2, 3]
    assert {by[("e", 1.0, m)]["best"] for m in ("IBU", "INV-P", "INV-N")} == {"IBU"}
    assert by[("e", 1.0, "noisy")]["rank"] == "" and by[("e", 1.0, "noisy")]["best"] == ""
    assert [by[("e", 2.0, m)]["rank"] for m in ("INV-N", "INV-P", "IBU")] == [1, 1, 3]
    assert by[("e", 2.0, "IBU")]["best"] == "INV-N, INV-P (tied)"
    comparison = [by[("cmp_krr", 1.0, "IBU")], by[("cmp_oue", 1.0, "IBU")], by[("cmp_oue", 1.0, "INV-N")]]
    assert [r["rank"] for r in comparison] == [2, 1, 3] and {r["figure"] for r in comparison} == {"cmp"}
    assert {r["best"] for r in comparison} == {"IBU (cmp_oue)"}
    with pytest.raises(ValueError, match="no error column"):
        own_study.error_of(["experiment", "l2sq"])


def test_the_capped_estimates_are_listed_with_their_runs_and_cap():
    rows = scores_table({("e", 0.5, "IBU"): 2.0, ("e", 1.0, "IBU"): 1.0, ("e", 0.5, "INV-N"): 3.0}, runs=3)
    for row in rows:
        if row["method"] == "IBU" and row["point"] == "0.5" and row["run"] != "1":
            row.update(capped="True", iterations="5000")
    listed = own_study.capped(rows)
    assert listed == [{"experiment": "e", "axis": "eps", "point": 0.5, "method": "IBU", "capped_runs": 2, "runs": 3,
                       "iterations": 5000, "rounds": 1}]
    assert own_study.capped_lines("s", listed) == [
        "s/e: IBU at eps=0.5 stopped at the cap (5,000 iterations) in 2 of 3 runs"]
    assert own_study.capped([r | {"capped": "False"} for r in rows]) == []
    # an experiment of rounds: a run is one round of one run (3 runs x 2 rounds here)
    rounds = [r | {"round": str(t)} for r in rows for t in (1, 2)]
    (listed,) = own_study.capped(rounds)
    assert (listed["capped_runs"], listed["runs"], listed["rounds"]) == (4, 6, 2)
    assert own_study.capped_lines("s", [listed]) == [
        "s/e: IBU at eps=0.5 stopped at the cap (5,000 iterations) in 4 of 6 rounds of runs (2 rounds a run)"]


def test_the_run_lists_at_its_end_the_capped_estimates_it_wrote(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "results" / "s" / "tables").mkdir(parents=True)
    path = tmp_path / "results" / "s" / "tables" / "capped.csv"
    path.write_text("experiment,axis,point,method,capped_runs,runs,iterations\ne,eps,0.5,IBU,2,3,5000\n")
    assert own_study.capped_report(["s", "other"], since=path.stat().st_mtime) == [
        "s: the iteration cap stopped 1 estimate(s) (listed in results/s/tables/capped.csv):",
        "  s/e: IBU at eps=0.5 stopped at the cap (5,000 iterations) in 2 of 3 runs"]
    assert own_study.capped_report(["s"], since=path.stat().st_mtime + 1) == []  # an earlier run's list


def test_a_panel_draws_at_most_six_lines_and_more_go_to_further_panels():
    """Issue 48: six protocols compared under three estimators drew 18 overlapping lines in one panel."""
    kinds, methods = ["grr", "sue", "oue", "olh", "ss", "hr"], ["INV-N", "INV-P", "IBU"]
    assert own_figures.comparison_panels(kinds[:2], methods) == [[(k, m) for m in methods for k in kinds[:2]]]
    panels = own_figures.comparison_panels(kinds, methods)
    assert [len(p) for p in panels] == [6, 6, 6] and [{m for _, m in p} for p in panels] == [{m} for m in methods]
    assert [len(p) for p in own_figures.comparison_panels([*kinds, "blh"], ["IBU"])] == [6, 1]
    mixture = ["GIBU", "[INV]_R-N", "[INV]_R-P", "[IBU]_R", "[RAP]_R-N", "[RAP]_R-P", "[INV]_M-N", "[INV]_M-P",
               "[IBU]_M", "[RAP]_M-N", "[RAP]_M-P"]
    assert own_figures.method_panels(mixture) == [mixture[:6], mixture[6:]]  # a family's methods stay together
    assert own_figures.method_panels(["INV-N", "INV-P", "IBU"]) == [["INV-N", "INV-P", "IBU"]]


def test_a_six_protocol_comparison_is_drawn_in_three_panels_of_six_lines_with_its_band_and_cap_explained(tmp_path):
    import pandas as pd

    from privest_studies import plotting

    config = config_with(tmp_path, experiments={"six": {"compare": ["grr", "sue", "oue", "olh", "ss", "hr"],
                                                        "eps": [0.5, 1.0, 2.0], "estimators": ["inv", "ibu"]}})
    specs = list(own_study.experiments(config)["mine"].values())
    means = {(spec.name, eps, method): (1 + i) * (1 + j) / eps / 100 for i, spec in enumerate(specs)
             for eps in (0.5, 1.0, 2.0) for j, method in enumerate(["INV-N", "INV-P", "IBU"])}
    scores = pd.DataFrame(scores_table(means, "tv", runs=3)).astype({"point": float, "tv": float})
    scores.loc[(scores["experiment"] == "six_grr") & (scores["method"] == "IBU") & (scores["point"] == 0.5)
               & (scores["run"] == "0"), "capped"] = "True"
    fig = own_figures.draw(specs, {"kind": "categorical", "k": 3}, scores, "six")
    axes = [ax for ax in fig.axes if ax.get_visible()]
    drawn = [[line for line in ax.get_lines() if line.get_linestyle() != "None"] for ax in axes]
    assert [len(lines) for lines in drawn] == [6, 6, 6]
    assert [ax.get_title() for ax in axes] == ["INV-N", "INV-P", "IBU"]
    legend = [text.get_text() for text in fig.legends[0].get_texts()]
    assert "shaded: ± 1 s.d. over runs" in legend and "ringed: a run stopped\nat the cap (5,000)" in legend
    rings = [line for ax in axes for line in ax.get_lines() if line.get_marker() == "o" and line.get_linestyle()
             == "None" and len(line.get_xdata())]
    assert len(rings) == 1 and list(rings[0].get_xdata()) == [0.5]
    assert "total variation distance" in axes[0].get_ylabel()
    plotting.save(fig, tmp_path / "six.png")


def test_tick_labels_that_would_overprint_are_dropped():
    """Issue 48: on a log axis of about a decade the minor labels ran into the major ones ('0.009' into '0.01')."""
    from privest_studies import plotting

    def overlaps(fig) -> int:
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        boxes = [label.get_window_extent(renderer) for ax in fig.axes for minor in (False, True)
                 for tick in (ax.yaxis.get_minor_ticks() if minor else ax.yaxis.get_major_ticks())
                 if (label := tick.label1).get_visible() and label.get_text()
                 and ax.get_ylim()[0] <= tick.get_loc() <= ax.get_ylim()[1]]
        return sum(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])

    fig, ax = plotting.figure(figsize=(3, 2.5))
    ax.plot([1, 2], [0.0015, 0.07])
    plotting.log_scale_if_wide(ax, [0.0015, 0.07])
    assert overlaps(fig) > 0  # as drawn before the issue
    limits = ax.get_ylim()
    plotting.drop_overlapping_tick_labels(fig)
    assert overlaps(fig) == 0 and ax.get_ylim() == limits
    kept = [t.label1.get_text() for t in ax.yaxis.get_major_ticks() if t.label1.get_text()]
    assert "0.01" in kept
    plotting.save(fig)


def test_the_standard_protocols_are_mechanisms_of_a_study_and_run_through_the_chain(tmp_path):
    from privest.alphabets import Alphabet
    from privest_studies import experiment

    config = config_with(tmp_path, experiments={
        "protocols_by_eps": {"mechanisms": ["oue", {"kind": "olh", "hashes": 64}], "eps": [1.0, 2.0],
                             "estimators": ["inv_r", "gibu"]},
        "mixture_by_n": {"mechanisms": [{"kind": "krr", "eps": 2}, {"kind": "hr", "eps": 1}], "n": [300],
                         "estimators": ["ibu_r", "gibu"]}})
    own_study.check(config)
    by_eps, by_n = own_study.experiments(config)["mine"].values()
    assert [(m.kind, m.parameter, m.hashes) for m in by_eps.members] == [
        ("oue", 1.0, None), ("olh", 1.0, 64), ("oue", 2.0, None), ("olh", 2.0, 64)]
    alphabet = Alphabet.from_dict(own_data.alphabet_of({"kind": "linear", "k": 100}))
    data = own_data.empirical_data(np.array([30, 45, 30, 60] * 20), 100)
    for spec, methods in ((by_eps, {"[INV]_R-P", "GIBU"}), (by_n, {"[IBU]_R", "GIBU"})):
        built = experiment.build_mechanisms(spec.members, alphabet)
        reports = experiment.perturb(spec, built, data, seed=2026)
        for family in spec.families:
            estimates = experiment.estimate(spec, family, built, reports, spec.stopping_rule)
            for method, theta in zip(estimates["methods"], estimates["theta"], strict=True):
                if method in methods:
                    assert np.isfinite(theta).all() and np.allclose(theta.sum(axis=-1), 1.0)


@pytest.mark.parametrize("unit", ["$\\frac{a}$ years", "US$ per 1000 $", "a \\$ b", "years"])
def test_a_unit_and_a_label_are_drawn_literally_with_their_dollars(unit):
    """Issue 46: a TeX-like unit killed the figure job after the whole chain ran, and 'US$ per 1000 $' lost its
    dollars (matplotlib read the text between two $ as mathtext)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.text import Text

    from privest_studies import plotting

    alphabet = {"kind": "binned", "unit": unit, "label": f"income ({unit}): 10 bins"}
    labels = [plotting.error_label(alphabet), plotting.eps_label(alphabet, ["geometric"]),
              plotting.alphabet_label(alphabet)]
    fig, ax = plt.subplots()
    ax.set_ylabel(labels[0])
    ax.set_xlabel(labels[1])
    ax.set_title(labels[2])
    fig.canvas.draw()  # mathtext would raise on \frac{a}
    plt.close(fig)
    for label in labels:
        shown, math = Text()._preprocess_math(label)
        assert not math and unit in shown


def test_fewer_users_than_mixed_mechanisms_are_refused_in_the_config_check(tmp_path):
    """n = 1 over two mechanisms passed the check and failed in perturb, after the data job."""
    mixture = [{"kind": "krr", "eps": 1.0}, {"kind": "rappor", "eps": 2.0}]
    config = config_with(tmp_path, experiments={"e": {"mechanisms": mixture, "n": [1, 100], "estimators": ["gibu"]}})
    with pytest.raises(ValueError, match=r"^config key studies\.mine\.experiments\.e\.n: 1 users cannot be split "
                                         r"over the 2 mechanisms"):
        own_study.check(config)
    by_eps = {"mechanisms": ["krr", "oue", "grr"], "eps": [1.0], "users": 2, "estimators": ["gibu"]}
    with pytest.raises(ValueError, match=r"experiments\.e\.users: 2 users cannot be split over the 3 mechanisms"):
        own_study.check(config_with(tmp_path, experiments={"e": by_eps}))
    own_study.check(config_with(tmp_path, experiments={"e": {**by_eps, "users": 3}}))


@pytest.mark.parametrize(("alphabet", "experiment", "says"), [
    ({"kind": "linear", "k": 10**7}, {"mechanisms": ["krr"], "eps": [1.0], "estimators": ["inv"]},
     r"experiments\.e: its mechanisms job needs about 3,600,000 GB \(k = 10,000,000, about 3 records, 1 runs\)"),
    ({"kind": "linear", "k": 100}, {"mechanisms": [{"kind": "oue", "eps": 1.0}], "n": [10**13], "estimators": ["inv"]},
     r"experiments\.e: its perturb job needs about"),
    ({"kind": "linear", "k": 100}, {"mechanisms": ["oue"], "eps": [1.0], "users": 10**12, "estimators": ["ibu"]},
     r"experiments\.e: its (perturb|estimate ibu) job needs about"),
])
def test_a_study_that_cannot_fit_this_machine_is_refused_before_any_job(tmp_path, alphabet, experiment, says):
    """k = 10^7 failed in the mechanisms job with a 728 TiB MemoryError; OUE with n = 10^13 started a job modelled
    at 1.7 PB. The memory model now runs on the config and the CSV's header before any job."""
    config = config_with(tmp_path, alphabet=alphabet, runs=1, experiments={"e": experiment})
    with pytest.raises(ValueError, match=r"^config key studies\.mine\." + says):
        own_study.check(config)
    fits = config_with(tmp_path, alphabet={"kind": "linear", "k": 100}, runs=1,
                       experiments={"e": {"mechanisms": ["krr"], "eps": [1.0], "estimators": ["inv"]}})
    own_study.check(fits)


def test_a_comparison_too_large_for_this_machine_is_named_by_its_config_key(tmp_path):
    """The message named experiments.cmp_krr, the comparison's expanded experiment, which is no config key: it names
    the key the user wrote (cmp), and which kind's job is too large."""
    config = config_with(tmp_path, alphabet={"kind": "linear", "k": 10**7}, runs=1,
                         experiments={"cmp": {"compare": ["oue", "krr"], "eps": [1.0], "estimators": ["inv"]}})
    with pytest.raises(ValueError, match=r"^config key studies\.mine\.experiments\.cmp: its mechanisms job of cmp_krr "
                                         r"needs about 3,600,000 GB \(k = 10,000,000,"):
        own_study.check(config)
    assert [own_study.config_label(e) for e in own_study.experiments(config)["mine"].values()] == ["cmp", "cmp"]


def test_the_size_before_the_data_job_comes_from_the_config_and_the_files_size(tmp_path):
    (tmp_path / "big.csv").write_text("age,sex\n" + "30,F\n" * 10_000)
    study = {"data": {"csv": str(tmp_path / "big.csv"), "column": "age"}, "alphabet": {"kind": "binned", "min": 0,
             "max": 100, "bins": 20}}
    assert own_study.prior_size(study) == (20, 10_000.0)
    assert own_study.prior_size({**study, "data": {"builtin": "adult", "column": "age"}}) == (20, 48_842.0)
    assert own_study.prior_size({**study, "alphabet": {"kind": "categorical"}})[0] == 2
    assert own_study.prior_size({"data": {"builtin": "planar"}, "alphabet": {"kind": "planar"}}) is None
    assert own_study.data_megabytes(study) == cost.MIN_MEGABYTES  # the data job's mem_mb
    assert cost.data_megabytes(4e7) == 1700  # 948 MB measured on 4*10^7 records


def test_check_reads_each_header_once_and_passes_on_the_sizes(tmp_path, monkeypatch):
    """check read a CSV's header twice (check_header, then prior_size in check_resources) and built the experiments
    twice; the workflow read the headers again for the cost model and for each evaluation of the data job's mem_mb,
    and the data job read it twice (check_header, then its tally). Now check returns the sizes it read."""
    config = config_with(tmp_path)
    study = config["studies"]["mine"]
    inspected, built = [], []
    inspect, experiments = own_csv.inspect, own_study.experiments
    monkeypatch.setattr(own_csv, "inspect", lambda *args: inspected.append(args[0]) or inspect(*args))
    monkeypatch.setattr(own_study, "experiments", lambda *args: built.append(args) or experiments(*args))
    sizes = own_study.check(config)
    assert inspected == [study["data"]["csv"]] and len(built) == 1
    assert sizes == {"mine": own_study.prior_size(study)} == own_study.prior_sizes(config)
    inspected.clear()
    assert own_study.data_megabytes(study, sizes["mine"]) == cost.MIN_MEGABYTES and inspected == []
    own_data.load(study["data"], study["alphabet"])
    assert inspected == [study["data"]["csv"]]


def test_a_first_run_of_a_huge_study_is_warned_over_budget(tmp_path):
    """runs: 10^9 got no warning on a first run: the cost model skipped studies whose data did not exist yet."""
    config = config_with(tmp_path, runs=10**9, experiments={"e": {"mechanisms": ["krr"], "eps": [1.0],
                                                                 "estimators": ["ibu"]}})
    costs = cost.estimate_jobs(own_study.experiments(config), prior=own_study.prior_sizes(config))
    assert [line for line in cost.over_budget(costs, 60) if "study=mine, experiment=e, family=ibu" in line]
    assert cost.estimate_jobs(own_study.experiments(config)) == []  # without the prior: nothing, as before


def test_a_hash_family_size_written_as_a_whole_float_builds_the_protocol_as_an_int(tmp_path):
    # the schema's integer admits 64.0; the protocol takes an int (before, the perturb job failed on it)
    config = config_with(tmp_path, experiments={"e": {"mechanisms": [{"kind": "l_olh", "hashes": 64.0}], "eps": [1.0],
                                                      "users": 30, "estimators": ["ibu"]}})
    own_study.check(config)
    (spec,) = own_study.experiments(config)["mine"].values()
    assert spec.members[0].hashes == 64 and type(spec.members[0].hashes) is int
