"""The SW+EMS or geometric+IBU study (privest_studies.sw_vs_geometric): its experiments are an own study's numeric
comparison on the study's data, its paired differences equal an independent t interval, its summary's means and
coverage equal direct counts, and its config check names the key."""

import copy
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from scipy import stats

from privest_studies import sw_vs_geometric as svg

ROOT = Path(__file__).resolve().parents[1]
CONFIG = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())


def scores_table(runs: int = 6) -> tuple[pd.DataFrame, dict]:
    """A scores table as rule aggregate writes it for the study: each column's square_wave experiment (EMS, IBU) and
    geometric experiment (IBU, noisy) at two eps; EMDs and means drawn from a fixed generator. Also the EMDs by
    (column, eps, line) as arrays over runs."""
    rng = np.random.default_rng(3)
    rows, emds = [], {}
    for column, true in (("ages", 38.6), ("hours", 40.4)):
        for eps in (1.0, 4.0):
            for kind, methods in (("square_wave", ("EMS", "IBU")), ("geometric", ("IBU", "noisy"))):
                for method in methods:
                    emd = rng.uniform(0.2, 2.0, runs)
                    mean = true + rng.normal(0, 0.3, runs)
                    numbers = kind == "square_wave"
                    for run in range(runs):
                        rows.append({"study": svg.STUDY, "experiment": f"{column}_{kind}", "axis": "eps",
                                     "point": eps, "round": 1, "run": run, "method": method, "emd": emd[run],
                                     "l2sq": 0.0, "iterations": 10, "capped": run == 0 and method == "IBU",
                                     "note": "", "mean": mean[run],
                                     "mean_lower": mean[run] - 0.4 if numbers else np.nan,
                                     "mean_upper": mean[run] + 0.4 if numbers else np.nan,
                                     "mean_of": "reports" if numbers else "histogram", "mean_true": true})
                    emds[column, eps, kind, method] = (emd, mean, true)
    return pd.DataFrame(rows), emds


def test_experiments_are_the_own_study_comparison_of_each_column_on_the_study_data():
    built = svg.experiments(CONFIG)
    sizes = CONFIG["scales"][CONFIG["scale"]]["sw_vs_geometric"]
    assert set(built) == {f"{c}_{k}" for c in CONFIG["sw_vs_geometric"]["columns"] for k in svg.KINDS}
    for name, experiment in built.items():
        column = name.split("_")[0]
        assert experiment.study == svg.STUDY and experiment.data == f"results/sw_vs_geometric/data/{column}"
        # the kinds of a column draw the same persons' reports from one seed name (privest.rng_for's keys)
        assert experiment.seed_name == column
        assert [p.value for p in experiment.points] == [float(e) for e in sizes["eps"]]
        assert experiment.runs == sizes["runs"] and experiment.families == svg.ESTIMATORS
        assert all(p.users is None for p in experiment.points)  # every person once a run
        assert {m.kind for m in experiment.members} == {name.removeprefix(f"{column}_")}


def test_paired_difference_equals_an_independent_t_interval():
    scores, emds = scores_table()
    config = copy.deepcopy(CONFIG)
    rows = svg.paired(scores, config)
    assert len(rows) == 4
    for row in rows:
        first = emds[row["column"], row["eps"], "square_wave", "EMS"][0]
        second = emds[row["column"], row["eps"], "geometric", "IBU"][0]
        d = first - second
        low, high = stats.t.interval(0.95, d.size - 1, loc=d.mean(), scale=stats.sem(d))
        assert row["difference"] == pytest.approx(d.mean()) and row["runs"] == d.size
        assert (row["low"], row["high"]) == pytest.approx((low, high))
        assert row["first_mean"] == pytest.approx(first.mean()) and row["second_mean"] == pytest.approx(second.mean())


def test_summary_means_and_coverage_equal_direct_counts():
    scores, emds = scores_table()
    lines = svg.summary(scores, CONFIG)
    assert len(lines) == 2 * 2 * len(svg.LINES)
    for line in lines:
        kind, method = svg.LINES[line["line"]]
        emd, mean, true = emds[line["column"], line["eps"], kind, method]
        assert line["emd_mean"] == pytest.approx(emd.mean()) and line["emd_sd"] == pytest.approx(emd.std(ddof=1))
        assert line["mean_error_mean"] == pytest.approx(np.abs(mean - true).mean())
        assert line["capped_runs"] == (1 if method == "IBU" else 0)
        if kind == "square_wave":
            assert line["mean_covered"] == pytest.approx(np.mean(np.abs(mean - true) <= 0.4))
        else:
            assert np.isnan(line["mean_covered"]) and line["mean_of"] == "histogram"
    page = svg.summary_markdown(lines, svg.paired(scores, CONFIG), CONFIG)
    assert "LA riots ages" in page and page.count("| 4 |") == 2


@pytest.mark.parametrize(("change", "message"), [
    ({"runs": 1}, "config key scales.quick.sw_vs_geometric.runs: at least 2"),
    ({"eps": [1.0, 1.0]}, "config key scales.quick.sw_vs_geometric.eps: lists a value twice"),
])
def test_check_refuses_what_the_intervals_cannot_use_naming_the_key(change, message):
    config = copy.deepcopy(CONFIG)
    config["scale"] = "quick"
    config["scales"]["quick"]["sw_vs_geometric"].update(change)
    with pytest.raises(ValueError, match=message.replace(".", r"\.")):
        svg.check(config)


@pytest.mark.parametrize(("change", "message"), [
    ({"column": "agee"}, "config key sw_vs_geometric.columns.ages.column: 'agee' is not an Adult column"),
    ({"min": 90, "max": 17}, "config key sw_vs_geometric.columns.ages: min must be below max"),
])
def test_check_refuses_a_column_that_is_not_a_numeric_adult_range(change, message):
    config = copy.deepcopy(CONFIG)
    config["sw_vs_geometric"]["columns"]["ages"].update(change)
    with pytest.raises(ValueError, match=message.replace(".", r"\.").replace("(", r"\(")):
        svg.check(config)


def test_check_refuses_columns_other_than_ages_and_hours():
    # the figures' files (results/sw_vs_geometric/figures/ages.png, hours.png) are written in the rule svg_figures
    config = copy.deepcopy(CONFIG)
    config["sw_vs_geometric"]["columns"]["weeks"] = config["sw_vs_geometric"]["columns"].pop("hours")
    with pytest.raises(ValueError, match=r"^config key sw_vs_geometric\.columns: the study's columns are ages and "
                                         r"hours .*, got ages, weeks$"):
        svg.check(config)
