"""A multi-column own study (privest_studies.own_columns): the config check naming every key, the joint read of several
columns refusing a bad value in any of them by file, line and column, and each attribute's scores reproduced by an
independent computation from the library."""

import copy
from pathlib import Path

import numpy as np
import pytest
import yaml
from scipy import stats

from privest import gibu, protocols, rng_for
from privest.alphabets import Alphabet
from privest_studies import own_columns, own_study

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = yaml.safe_load((ROOT / "examples" / "own_study" / "columns.yaml").read_text())
CSV = "age,sex,town\n30,F,a\n45,M,b\n30,M,c\n61,F,a\n22,M,b\n45,F,a\n"


def config_with(tmp_path, csv: str = CSV, data: dict | None = None, **changes) -> dict:
    study = copy.deepcopy(EXAMPLE["studies"]["ages_and_sex"])
    (tmp_path / "people.csv").write_text(csv)
    study["data"] = {"csv": str(tmp_path / "people.csv"), **(data or {})}
    study["experiments"]["age_and_sex"].update(changes)
    return {"studies": {"mine": study}}


KEY = "config key studies.mine.experiments.age_and_sex"


def test_the_example_passes_the_check_and_is_left_out_of_the_chain(monkeypatch):
    monkeypatch.chdir(ROOT)
    own_study.check(EXAMPLE)
    assert own_study.experiments(EXAMPLE) == {"ages_and_sex": {}}
    assert own_study.figures(EXAMPLE) == {"ages_and_sex": {}}
    assert list(own_study.column_experiments(EXAMPLE)["ages_and_sex"]) == ["age_and_sex"]
    assert own_study.figure_files(EXAMPLE) == ["results/ages_and_sex/figures/age_and_sex.pdf",
                                               "results/ages_and_sex/figures/age_and_sex.png"]


@pytest.mark.parametrize(("changes", "data", "message"), [
    ({"solution": "spread"}, None, f"{KEY}.solution: unknown 'spread'; known: spl, smp, rsfd"),
    ({"solution": "rsfd", "protocol": "olh"}, None, f"{KEY}.protocol: rsfd with 'olh' at eps = 0.5: protocol must be"),
    ({"protocol": "grrr"}, None, f"{KEY}.protocol: spl with 'grrr' at eps = 0.5: protocol must be"),
    ({"estimators": ["inv", "gibu_r"]}, None, f"{KEY}.estimators: each attribute is estimated from its column alone"),
    ({"columns": {"age": {"kind": "linear", "k": 100}}}, None, f"{KEY}.columns: a mapping of at least two"),
    ({"columns": {"age": {"kind": "linear", "k": 100}, "sexx": {"kind": "categorical"}}}, None,
     "people.csv: no column 'sexx' (columns: age, sex, town)"),
    ({"columns": {"age": {"kind": "linear"}, "sex": {"kind": "categorical"}}}, None,
     f"{KEY}.columns.age: a linear alphabet needs alphabet.k"),
    ({"columns": {"age": {"kind": "planar"}, "sex": {"kind": "categorical"}}}, None,
     f"{KEY}.columns.age: an alphabet with kind one of linear, binned, numeric, categorical"),
    ({"eps": [1.0, 1.0]}, None, f"{KEY}.eps: a level listed twice"),
    ({"rounds": 3}, None, f"{KEY}.rounds: a multi-column experiment reports each tuple once a run"),
    ({"mechanisms": ["krr"]}, None, f"{KEY}.mechanisms: a multi-column experiment takes only"),
    ({"columns": None, "mechanisms": ["krr"]}, None, f"{KEY}.solution: only a multi-column experiment"),
])
def test_a_bad_multi_column_config_fails_the_check_in_one_line_naming_the_key(tmp_path, changes, data, message):
    config = config_with(tmp_path, data=data, **changes)
    if changes.get("columns", {}) is None:  # a single-column experiment given a multi-column key
        del config["studies"]["mine"]["experiments"]["age_and_sex"]["columns"]
        config["studies"]["mine"] |= {"alphabet": {"kind": "linear", "k": 100}}
        config["studies"]["mine"]["data"]["column"] = "age"
    with pytest.raises(ValueError) as error:
        own_study.check(config)
    assert str(error.value).startswith(message.replace("people.csv", str(tmp_path / "people.csv"))), str(error.value)
    assert "\n" not in str(error.value)


def test_the_columns_are_read_jointly_in_file_order_each_on_its_alphabet(tmp_path):
    config = config_with(tmp_path, columns={"age": {"kind": "binned", "min": 20, "max": 70, "bins": 5},
                                            "town": {"kind": "categorical"}})
    study = config["studies"]["mine"]
    own_study.check(config)
    secrets, alphabets, provenance = own_columns.load(study["data"], study["experiments"]["age_and_sex"]["columns"])
    assert provenance["records"] == provenance["kept"] == 6 and provenance["columns"] == ["age", "town"]
    assert set(provenance["dropped"].values()) == {0} and provenance["sha256"]
    np.testing.assert_array_equal(secrets, [[1, 0], [2, 1], [1, 2], [4, 0], [0, 1], [2, 0]])
    assert [a["k"] for a in alphabets] == [5, 3] and alphabets[1]["categories"] == ["a", "b", "c"]


@pytest.mark.parametrize(("csv", "said"), [
    (CSV.replace("\n22,M,b", "\n22,X,b"), "line 6: sex 'X' is not one of the 2 given categories"),
    (CSV.replace("\n22,M,b", "\n,M,b"), "line 6: age '' is blank"),
    (CSV.replace("\n22,M,b", "\n122,M,b"), "line 6: age '122' is outside the alphabet 0..99 (1 such record; set "
                                             "columns.age.outside: drop to drop them)"),
    # the first refused record in file order, whichever column holds it
    (CSV.replace("\n22,M,b", "\n122,M,b").replace("45,F,a", "45,X,a"), "line 6: age '122' is outside"),
    (CSV.replace("\n22,M,b", "\n22,X,b").replace("45,F,a", "145,F,a"), "line 6: sex 'X' is not one of the 2 given"),
])
def test_a_bad_value_in_any_column_is_refused_naming_the_file_line_and_column(tmp_path, csv, said):
    config = config_with(tmp_path, csv, columns={"age": {"kind": "linear", "k": 100},
                                                 "sex": {"kind": "categorical", "categories": ["F", "M"]}})
    study = config["studies"]["mine"]
    own_study.check(config)  # the header is fine: the records are the job's
    with pytest.raises(ValueError) as error:
        own_columns.load(study["data"], study["experiments"]["age_and_sex"]["columns"])
    assert str(error.value).startswith(f"{tmp_path / 'people.csv'} {said}"), str(error.value)
    assert "\n" not in str(error.value)


def test_a_categorical_column_of_one_category_is_refused_naming_the_file_and_column(tmp_path):
    config = config_with(tmp_path, CSV.replace(",M,", ",F,"))
    study = config["studies"]["mine"]
    with pytest.raises(ValueError) as error:
        own_columns.load(study["data"], study["experiments"]["age_and_sex"]["columns"])
    assert str(error.value) == (f"{tmp_path / 'people.csv'}: column sex holds one category only ('F'); a column to "
                                "estimate needs at least two")


@pytest.mark.parametrize(("solution", "protocol"), [("spl", "grr"), ("smp", "oue"), ("rsfd", "sue_rnd")])
def test_each_row_is_the_library_s_estimate_scored_against_the_column(solution, protocol):
    rng = np.random.default_rng(4)
    secrets = np.stack([rng.integers(0, 8, 400), rng.integers(0, 3, 400)], axis=1)
    alphabets = [{"kind": "linear", "k": 8, "spacing": 2.5, "unit": "years"},
                 {"kind": "categorical", "k": 3, "categories": ["a", "b", "c"]}]
    spec = {"columns": {"age": {}, "town": {}}, "solution": solution, "protocol": protocol, "eps": [1.0, 3.0],
            "estimators": ["inv", "ibu"]}
    stopping = {"delta": 1e-9, "max_iter": 3000}
    rows = own_columns.scores("mine", "pair", spec, secrets, alphabets, 2, 2026, stopping)
    assert rows == own_columns.scores("mine", "pair", spec, secrets, alphabets, 2, 2026, stopping)  # reruns alike
    assert len(rows) == 2 * 2 * 2 * 3 and {r["metric"] for r in rows if r["column"] == "town"} == {"tv"}
    # an independent computation of eps 3, run 1: the solution's reports, each column's estimate, the EMD by hand
    m = {"spl": protocols.spl, "smp": protocols.smp, "rsfd": protocols.rsfd}[solution]([8, 3], 3.0, protocol)
    reports = m.sample(secrets, rng_for(2026, "mine", "pair", 3.0, 1))
    theta = [np.bincount(secrets[:, j], minlength=k) / 400 for j, k in enumerate((8, 3))]
    for j, column in enumerate(("age", "town")):
        mine = {r["method"]: r for r in rows if r["eps"] == 3.0 and r["run"] == 1 and r["column"] == column}
        normalised = m.marginal(j).estimate(reports.columns[j], "normalization")
        mle = gibu([m.groups(reports)[j]], delta=1e-9, max_iter=3000).theta
        if j == 0:  # the EMD on a line: the l1 distance of the cumulative sums, times the spacing
            expected = [2.5 * np.abs(np.cumsum(e - theta[0]))[:-1].sum() for e in (normalised, mle)]
        else:
            expected = [0.5 * np.abs(e - theta[1]).sum() for e in (normalised, mle)]
        np.testing.assert_allclose([mine["INV-N"]["error"], mine["IBU"]["error"]], expected, rtol=1e-9, atol=1e-12)
        assert mine["IBU"]["iterations"] > 0 and mine["INV-P"]["error"] >= 0
    assert Alphabet.from_dict(alphabets[1]).kind == "categorical"


def test_an_smp_attribute_no_user_drew_is_na_with_its_reason():
    secrets = np.array([[1, 0]])  # one user: one attribute drawn, the other nobody's
    spec = {"columns": {"a": {}, "b": {}}, "solution": "smp", "protocol": "grr", "eps": [1.0], "estimators": ["inv"]}
    alphabets = [{"kind": "linear", "k": 3}, {"kind": "linear", "k": 2}]
    rows = own_columns.scores("s", "e", spec, secrets, alphabets, 1, 1, {"delta": 1e-8, "max_iter": 10})
    na = [r for r in rows if np.isnan(r["error"])]
    assert len(na) == 2 and all(r["note"] == "NA: no user drew this attribute" for r in na)
    assert all(np.isfinite(r["error"]) for r in rows if r not in na)


def test_a_study_of_multi_column_experiments_only_goes_without_data_column_and_alphabet(tmp_path):
    config = config_with(tmp_path)
    assert "column" not in config["studies"]["mine"]["data"] and "alphabet" not in config["studies"]["mine"]
    assert own_study.check(config) == {}  # no data job: no size for the cost model
    assert own_study.experiments(config) == {"mine": {}} and own_study.prior_size(config["studies"]["mine"]) is None


SINGLE = {"mechanisms": ["krr"], "eps": [1.0], "estimators": ["inv"]}


@pytest.mark.parametrize(("study_changes", "data", "message"), [
    ({"alphabet": {"kind": "linear", "k": 100}, "experiments": {"one": SINGLE}}, None,
     "config key studies.mine.data.column: the single-column experiment one reads its secrets from one column"),
    ({"experiments": {"one": SINGLE}}, {"column": "age"},
     "config key studies.mine.alphabet: the single-column experiment one needs the study's alphabet"),
    ({"alphabet": {"kind": "linear", "k": 100}}, None,
     "config key studies.mine.alphabet: no experiment of this study reads it: each is multi-column"),
    ({}, {"column": "age"}, "config key studies.mine.data.column: no experiment of this study reads it"),
])
def test_data_column_and_alphabet_are_asked_for_by_single_column_experiments_only(tmp_path, study_changes, data,
                                                                                   message):
    config = config_with(tmp_path, data=data)
    study = config["studies"]["mine"]
    study |= {key: value for key, value in study_changes.items() if key != "experiments"}
    study["experiments"] |= study_changes.get("experiments", {})
    with pytest.raises(ValueError) as error:
        own_study.check(config)
    assert str(error.value).startswith(message), str(error.value)
    assert "\n" not in str(error.value)


DROPPING = "age,sex,town\n30,F,a\n,M,b\n30,M,c\n161,F,a\n22,,z\n45,F,a\n130,M,\n51,M,b\n"
"""Line 3: age blank; line 5: age outside 0..99; line 6: sex blank and town z (only there) outside; line 8: age
outside and town blank."""


@pytest.mark.parametrize(("missing", "outside", "message"), [
    ("error", "drop", "line 3: age '' is blank (1 such record; set data.missing: drop to drop them)"),
    ("drop", "error", "line 5: age '161' is outside the alphabet 0..99 (2 such records; set columns.age.outside: "
                      "drop to drop them)"),
])
def test_a_record_is_dropped_whole_or_refused_as_each_column_s_policy_says(tmp_path, missing, outside, message):
    columns = {"age": {"kind": "linear", "k": 100, "outside": outside}, "sex": {"kind": "categorical"},
               "town": {"kind": "categorical", "categories": ["a", "b", "c"], "outside": "drop"}}
    config = config_with(tmp_path, DROPPING, data={"missing": missing}, columns=columns)
    study = config["studies"]["mine"]
    own_study.check(config)  # drop is a policy of a multi-column experiment too
    with pytest.raises(ValueError) as error:
        own_columns.load(study["data"], columns)
    assert str(error.value) == f"{tmp_path / 'people.csv'} {message}"


def test_the_records_dropped_are_counted_once_each_under_their_first_reason_and_per_column(tmp_path):
    columns = {"age": {"kind": "linear", "k": 100, "outside": "drop"}, "sex": {"kind": "categorical"},
               "town": {"kind": "categorical", "outside": "drop", "categories": ["a", "b", "c"]}}
    config = config_with(tmp_path, DROPPING, data={"missing": "drop"}, columns=columns)
    secrets, alphabets, provenance = own_columns.load(config["studies"]["mine"]["data"], columns)
    # kept: lines 2, 4, 7, 9 (30 F a; 30 M c; 45 F a; 51 M b), in file order
    np.testing.assert_array_equal(secrets, [[30, 0, 0], [30, 1, 2], [45, 0, 0], [51, 1, 1]])
    assert alphabets[1]["categories"] == ["F", "M"] and alphabets[2]["categories"] == ["a", "b", "c"]
    assert (provenance["records"], provenance["kept"]) == (8, 4)
    assert provenance["dropped"] == {"blank": 3, "not_a_number": 0, "outside": 1}  # line 6: blank before outside
    assert provenance["dropped_by_column"] == {"age": {"blank": 1, "not_a_number": 0, "outside": 2},
                                               "sex": {"blank": 1, "not_a_number": 0, "outside": 0},
                                               "town": {"blank": 1, "not_a_number": 0, "outside": 1}}
    rows = own_columns.table_rows(provenance)
    assert rows[:5] == [{"what": "records read", "records": 8, "column": "all"},
                        {"what": "kept", "records": 4, "column": "all"},
                        {"what": "dropped: blank cell", "records": 3, "column": "all"},
                        {"what": "dropped: not a number", "records": 0, "column": "all"},
                        {"what": "dropped: outside the alphabet", "records": 1, "column": "all"}]
    assert {(r["column"], r["what"]): r["records"] for r in rows[5:]}[("age", "dropped: outside the alphabet")] == 2
    assert len(rows) == 5 + 3 * 3
    assert own_columns.kept_text(provenance) == "4 of 8 records kept (4 dropped: 3 blank, 1 outside the alphabet)"


def test_a_category_only_dropped_records_hold_is_not_in_the_column_s_alphabet(tmp_path):
    columns = {"age": {"kind": "linear", "k": 100, "outside": "drop"}, "town": {"kind": "categorical"}}
    config = config_with(tmp_path, CSV.replace("61,F,a", "161,F,q"), columns=columns)
    secrets, alphabets, provenance = own_columns.load(config["studies"]["mine"]["data"], columns)
    assert alphabets[1]["categories"] == ["a", "b", "c"] and provenance["kept"] == 5
    np.testing.assert_array_equal(secrets[:, 1], [0, 1, 2, 1, 0])


def test_a_read_that_keeps_no_record_is_refused_in_one_line(tmp_path):
    columns = {"age": {"kind": "linear", "k": 10, "outside": "drop"}, "sex": {"kind": "categorical"}}
    config = config_with(tmp_path, columns=columns)
    with pytest.raises(ValueError) as error:
        own_columns.load(config["studies"]["mine"]["data"], columns)
    assert str(error.value).startswith(f"{tmp_path / 'people.csv'}: no records kept (6 read, dropped ")


def test_the_summary_is_the_mean_over_runs_with_its_t_interval_per_experiment_eps_column_and_method():
    rng = np.random.default_rng(5)
    secrets = np.stack([rng.integers(0, 6, 300), rng.integers(0, 3, 300)], axis=1)
    alphabets = [{"kind": "linear", "k": 6, "spacing": 1.0, "unit": "years"},
                 {"kind": "categorical", "k": 3, "categories": ["a", "b", "c"]}]
    spec = {"columns": {"age": {}, "town": {}}, "solution": "smp", "protocol": "grr", "eps": [4.0, 1.0],
            "estimators": ["inv", "ibu"]}
    rows = own_columns.scores("mine", "pair", spec, secrets, alphabets, 4, 3, {"delta": 1e-9, "max_iter": 5})
    rows += [{**row, "experiment": "later"} for row in rows if row["eps"] == 1.0]
    lines = own_columns.summary(rows, 0.9)
    assert [(x["experiment"], x["column"], x["eps"], x["method"]) for x in lines][:4] == [
        ("pair", "age", 1.0, "INV-N"), ("pair", "age", 1.0, "INV-P"), ("pair", "age", 1.0, "IBU"),
        ("pair", "age", 4.0, "INV-N")]
    assert len(lines) == 2 * 2 * 3 + 2 * 3 and list(lines[0]) == own_columns.SUMMARY_COLUMNS
    for line in lines:  # an independent computation: scipy's t interval over the runs' errors
        errors = [r["error"] for r in rows if (r["experiment"], r["column"], r["eps"], r["method"]) == (
            line["experiment"], line["column"], line["eps"], line["method"])]
        low, high = stats.t.interval(0.9, len(errors) - 1, loc=np.mean(errors), scale=stats.sem(errors))
        assert line["runs"] == 4 and line["level"] == 0.9 and line["unit"] == ("years" if line["column"] == "age"
                                                                                 else "")
        np.testing.assert_allclose([line["error_mean"], line["error_low"], line["error_high"], line["error_sd"]],
                                   [np.mean(errors), max(low, 0.0), high, np.std(errors, ddof=1)], rtol=1e-12)
        assert line["capped_runs"] == sum(r["capped"] for r in rows if r["experiment"] == line["experiment"]
                                          and r["column"] == line["column"] and r["eps"] == line["eps"]
                                          and r["method"] == line["method"])
    assert any(line["capped_runs"] for line in lines if line["method"] == "IBU")  # max_iter 5
    markdown = own_columns.summary_markdown(lines, "mine")
    assert "## pair: SMP with grr, 4 runs" in markdown and "## later: SMP with grr, 4 runs" in markdown
    first = lines[0]
    assert f"| age | EMD (years) | INV-N | {first['error_mean']:.3g} [{first['error_low']:.3g}, " in markdown


def test_a_summary_cell_no_run_could_estimate_is_na_with_the_rows_reason():
    secrets = np.array([[1, 0]])  # SMP with one user: one attribute drawn, the other nobody's
    spec = {"columns": {"a": {}, "b": {}}, "solution": "smp", "protocol": "grr", "eps": [1.0], "estimators": ["inv"]}
    rows = own_columns.scores("s", "e", spec, secrets, [{"kind": "linear", "k": 3}, {"kind": "linear", "k": 2}], 1, 1,
                              {"delta": 1e-8, "max_iter": 10})
    lines = own_columns.summary(rows, 0.95)
    na = [line for line in lines if line["runs"] == 0]
    assert len(na) == 2 and all(np.isnan(line["error_mean"]) and line["note"] == "NA: no user drew this attribute"
                                for line in na)
    ran = [line for line in lines if line["runs"] == 1]  # one run: nothing bounds the mean
    assert all(line["error_high"] == np.inf and line["error_sd"] == 0.0 for line in ran)
    assert "| NA |" in own_columns.summary_markdown(lines, "s")
