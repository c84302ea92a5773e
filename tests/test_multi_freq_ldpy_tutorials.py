"""The multi-freq-ldpy tutorials study (privest_studies.multi_freq_ldpy_tutorials): the config check, the experiments
and jobs it defines (every protocol of every grid run once, through the chain or a job of its own), the tiny data's
rows against independent computations, the summary, and the figure script on tiny data."""

import copy
import runpy
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

import privest
from privest_studies import configuration, files, plotting
from privest_studies import multi_freq_ldpy_tutorials as mt

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "workflow" / "schemas" / "config.schema.yaml"


def _config(runs: int = 2) -> dict:
    """The repository's config, validated (defaults filled), with this many runs at the quick scale."""
    config = files.load_yaml(ROOT / "config.yaml")
    configuration.check(config, str(SCHEMA))
    config["scales"]["quick"][mt.STUDY] = {"runs": runs}
    return config


class _Names(SimpleNamespace):
    """A Snakemake namespace: attributes, and iteration over the values in order (as snakemake.output)."""

    def __iter__(self):
        return iter(self.__dict__.values())


# --- the config -------------------------------------------------------------------------------------------------------


def test_the_repository_config_passes_and_holds_the_tutorials_grids():
    config = _config()
    mt.check(config)
    study = config[mt.STUDY]
    assert study["single"]["protocols"] == ["grr", "sue", "oue", "blh", "olh", "ss", "she", "the"]
    assert study["longitudinal"]["protocols"] == ["l_grr", "l_oue", "l_osue", "l_sue", "l_soue", "dbitflip"]
    expected_eps = np.arange(0.5, 5.1, 0.5).tolist()  # the notebooks' np.arange(0.5, 5.1, 0.5)
    for grid in mt.GRIDS:
        assert study[grid]["eps"] == pytest.approx(expected_eps, abs=1e-15)
    assert study["multidim"]["synthetic"]["ks"] == [3, 8, 12, 3, 37, 11]
    assert study["multidim"]["synthetic"]["users"] == 88_935
    assert config["scales"]["paper"][mt.STUDY]["runs"] == 30


@pytest.mark.parametrize(("where", "value", "message"), [
    (("single", "protocols"), ["grr", "grr"], r"single\.protocols: lists a value twice"),
    (("longitudinal", "eps"), [1.0, 1.0], r"longitudinal\.eps: lists a value twice"),
    (("multidim", "solutions"), ["spl", "spl"], r"multidim\.solutions: lists a value twice"),
    (("multidim", "adult_columns"), ["sex", "nationality"],
     r"multidim\.adult_columns: \[.nationality.\] are not Adult"),
    (("longitudinal", "dbitflip"), {"buckets": 8, "bits": None}, r"longitudinal\.dbitflip: buckets must be null"),
])
def test_the_check_refuses_in_one_line_naming_the_key(where, value, message):
    config = _config()
    config[mt.STUDY][where[0]][where[1]] = value
    with pytest.raises(ValueError, match=rf"config key {mt.STUDY}\.{message}"):
        mt.check(config)


def test_the_schema_refuses_a_protocol_of_the_wrong_grid():
    config = files.load_yaml(ROOT / "config.yaml")
    config[mt.STUDY]["single"]["protocols"] = ["l_grr"]
    with pytest.raises(ValueError, match="l_grr"):
        configuration.check(config, str(SCHEMA))


# --- the experiments and jobs it defines ------------------------------------------------------------------------------


def test_every_protocol_runs_once_through_the_chain_or_a_job_of_its_own():
    config = _config(runs=3)
    experiments, jobs = mt.experiments(config), mt.own_jobs(config)
    multidim = [f"multidim_{d}_{s}" for d in ("adult", "synthetic") for s in ("spl", "smp", "rsfd")]
    assert sorted(jobs) == sorted(["single_she", "longitudinal_dbitflip", *multidim])
    for grid in ("single", "longitudinal"):
        ran = [name.removeprefix(f"{grid}_") for name in [*experiments, *jobs] if name.startswith(f"{grid}_")]
        assert sorted(ran) == sorted(config[mt.STUDY][grid]["protocols"])
    for name, experiment in experiments.items():
        grid, _, kind = name.partition("_")
        eps = config[mt.STUDY][grid]["eps"]
        assert experiment.axis == "eps" and experiment.runs == 3 and experiment.families == ("inv", "ibu")
        assert [p.value for p in experiment.points] == eps and all(p.users is None for p in experiment.points)
        assert [experiment.members[p.mechanisms[0]] for p in experiment.points] == [
            mt.Member(kind, e) for e in eps] and all(len(p.mechanisms) == 1 for p in experiment.points)
        assert experiment.data_file == f"{mt.AGES}.npz"
        assert dict(experiment.labels) == {"study": mt.STUDY, "grid": grid, "dataset": "ages", "protocol": kind}
        assert experiment.stopping_rule == {"delta": 1e-8, "max_iter": 2000, "accelerate": "squarem"}
    assert mt.own_data("single_she") == f"{mt.AGES}.npz"
    assert mt.own_data("multidim_synthetic_rsfd") == mt.MULTIDIM_DATA["synthetic"]


# --- data -------------------------------------------------------------------------------------------------------------


def _persons() -> pd.DataFrame:
    """Six persons as datasets.read_adult gives them; the fourth has a missing field."""
    rows = {column: ["a", "b", "a", "b", "c", "a"] for column in mt.ADULT_COLUMNS}
    rows["age"] = pd.array([30, 17, 90, 40, 30, 17], dtype="Int64")
    rows["sex"] = ["Male", "Female", "Male", "Female", "Female", "Female"]
    rows["workclass"] = ["x", "x", "x", pd.NA, "x", "x"]
    return pd.DataFrame(rows)


def test_the_ages_are_the_complete_persons_label_encoded():
    data, alphabet = mt.ages_data(_persons())
    assert data["secrets"].tolist() == [1, 0, 2, 1, 0]  # 30, 17, 90, 30, 17 among {17, 30, 90}; 40 is incomplete
    assert data["theta"] == pytest.approx([0.4, 0.4, 0.2])
    assert alphabet["k"] == 3 and alphabet["ages"] == [17, 30, 90]
    secrets, ks = mt.adult_tuples(_persons(), ["sex", "education"])
    assert ks == [2, 3] and secrets.tolist() == [[1, 0], [0, 1], [1, 0], [0, 2], [0, 0]]
    with pytest.raises(ValueError, match=r"adult_columns: \['workclass'\] hold fewer than 2 values"):
        mt.adult_tuples(_persons(), ["sex", "workclass"])


def test_the_synthetic_tuples_have_the_shape_and_zipf_marginals():
    spec = {"ks": [3, 8], "users": 40_000, "exponent": 1.1}
    tuples = mt.synthetic_tuples(spec, np.random.default_rng(5))
    assert tuples.shape == (40_000, 2) and tuples[:, 0].max() == 2 and tuples[:, 1].max() == 7
    zipf = np.arange(1, 9) ** -1.1 / (np.arange(1, 9) ** -1.1).sum()
    assert np.bincount(tuples[:, 1], minlength=8) / 40_000 == pytest.approx(zipf, abs=0.01)


# --- the jobs outside the chain ---------------------------------------------------------------------------------------


def _tiny(config: dict) -> dict:
    config = copy.deepcopy(config)
    config[mt.STUDY]["single"]["eps"] = [1.0, 4.0]
    config[mt.STUDY]["longitudinal"]["eps"] = [2.0]
    config[mt.STUDY]["multidim"]["eps"] = [3.0]
    return config


def test_a_job_scores_both_estimators_on_every_eps_and_run_and_is_seeded():
    config = _tiny(_config(runs=2))
    secrets = np.random.default_rng(0).choice(6, size=3000, p=[0.4, 0.2, 0.15, 0.1, 0.1, 0.05])
    data = {"secrets": secrets, "theta": np.bincount(secrets, minlength=6) / secrets.size}
    rows = mt.run_job("single_she", data, config)
    assert [(r["eps"], r["run"], r["method"]) for r in rows] == [
        (e, run, m) for e in (1.0, 4.0) for run in (0, 1) for m in mt.METHODS]
    assert rows == mt.run_job("single_she", data, config)
    # the first run's scores, recomputed from the same draws
    rng = privest.rng_for(int(config["seed"]), mt.STUDY, "single_she", repr(1.0), 0)
    she = privest.protocols.by_name("she", 6, 1.0)
    reports = she.sample(secrets, rng)
    unbiased = she.estimate(reports, post="normalization")
    assert rows[0]["mse"] == pytest.approx(np.mean((unbiased - data["theta"]) ** 2), rel=1e-12)
    assert rows[0]["emd"] == pytest.approx(privest.emd_1d(unbiased, data["theta"]), rel=1e-12)
    mle = privest.gibu([she.group(reports)], **{**privest.estimators.PLAIN_IBU, **mt.stopping(config)})
    assert rows[1]["mse"] == pytest.approx(np.mean((mle.theta - data["theta"]) ** 2), rel=1e-9)
    assert rows[1]["iterations"] == mle.iterations > 0
    bitflip = mt.run_job("longitudinal_dbitflip", data, config)
    assert {r["protocol"] for r in bitflip} == {"dbitflip"} and len(bitflip) == 4
    assert all(0 < r["mse"] < 0.05 for r in bitflip)


def test_a_multidimensional_job_averages_mse_and_total_variation_over_the_attributes():
    config = _tiny(_config(runs=1))
    secrets = mt.synthetic_tuples({"ks": [3, 5], "users": 4000, "exponent": 1.0}, np.random.default_rng(2))
    data = {"secrets": secrets, "ks": np.array([3, 5])}
    rows = mt.run_job("multidim_synthetic_rsfd", data, config)
    assert [(r["protocol"], r["method"]) for r in rows] == [("RS+FD", "norm-mul"), ("RS+FD", "GIBU")]
    rng = privest.rng_for(int(config["seed"]), mt.STUDY, "multidim_synthetic_rsfd", repr(3.0), 0)
    solution = privest.protocols.rsfd([3, 5], 3.0, "adp")
    estimates = solution.estimate(solution.sample(secrets, rng, packed=True), post="normalization")
    thetas = [np.bincount(secrets[:, j], minlength=k) / 4000 for j, k in enumerate((3, 5))]
    pairs = list(zip(estimates, thetas, strict=True))
    assert rows[0]["mse"] == pytest.approx(np.mean([np.mean((e - t) ** 2) for e, t in pairs]), rel=1e-12)
    assert rows[0]["emd"] == pytest.approx(np.mean([0.5 * np.abs(e - t).sum() for e, t in pairs]), rel=1e-12)


# --- the table, the summary and the figure ----------------------------------------------------------------------------


def test_the_chain_rows_keep_its_two_methods_with_the_mse_over_k():
    scores = pd.DataFrame([
        {"study": mt.STUDY, "grid": "single", "dataset": "ages", "protocol": "grr", "eps": 1.0, "run": 0,
         "method": method, "emd": 0.5, "l2sq": 0.74, "iterations": 9, "capped": False, "note": ""}
        for method in ("INV-N", "INV-P", "IBU")])
    rows = mt.chain_rows(scores, 74)
    assert [r["method"] for r in rows] == ["norm-mul", "GIBU"]
    assert all(r["mse"] == pytest.approx(0.01) and r["emd"] == 0.5 for r in rows)


def _rows(config: dict) -> list[dict]:
    rng = np.random.default_rng(3)
    return [{"grid": grid, "dataset": dataset, "protocol": protocol, "eps": eps, "run": run, "method": method,
             "mse": float(rng.uniform(1e-6, 1e-4) / eps), "emd": float(rng.uniform(0.1, 3) / eps),
             "iterations": 0 if method == "norm-mul" else 40, "capped": False}
            for grid, dataset, protocols in (("single", "ages", ["grr", "she"]),
                                             ("longitudinal", "ages", ["l_grr", "dbitflip"]),
                                             ("multidim", "adult", ["SPL", "RS+FD"]),
                                             ("multidim", "synthetic", ["SMP"]))
            for protocol in protocols for eps in (0.5, 5.0) for run in range(3) for method in reversed(mt.METHODS)]


def test_the_summary_means_each_cell_over_its_runs_in_study_order():
    config = _config()
    rows = _rows(config)
    lines = mt.summary(rows, config)
    assert len(lines) == 7 * 2 * 2
    assert [(line["grid"], line["protocol"]) for line in lines[::4]] == [
        ("single", "grr"), ("single", "she"), ("longitudinal", "l_grr"), ("longitudinal", "dbitflip"),
        ("multidim", "SPL"), ("multidim", "RS+FD"), ("multidim", "SMP")]
    first = [r for r in rows if (r["protocol"], r["eps"], r["method"]) == ("grr", 0.5, "norm-mul")]
    assert lines[0]["method"] == "norm-mul" and lines[0]["runs"] == 3
    assert lines[0]["mse_mean"] == pytest.approx(np.mean([r["mse"] for r in first]))
    assert lines[0]["emd_sd"] == pytest.approx(np.std([r["emd"] for r in first], ddof=1))
    page = mt.summary_markdown(lines, config)
    assert "## single attribute (notebook 1), ages" in page and "| dBitFlipPM |" in page and "| L-GRR |" in page


def test_the_figure_script_draws_every_grid_with_both_estimators(tmp_path, monkeypatch):
    config = _config(runs=3)
    summary = tmp_path / "summary.csv"
    files.save_rows(mt.summary(_rows(config), config), mt.SUMMARY_COLUMNS, summary)
    files.save_json(tmp_path / "ages_alphabet.json", {"kind": "linear", "k": 74, "label": "X = the ages"})
    names = ["single", "longitudinal", "multidim_adult", "multidim_synthetic"]
    outputs = {f"{name}_{ext}": str(tmp_path / f"{name}.{ext}") for name in names for ext in ("pdf", "png")}
    fake = SimpleNamespace(input=_Names(summary=str(summary), alphabet=str(tmp_path / "ages_alphabet.json")),
                           output=_Names(**outputs), params=_Names(config=config), log=[str(tmp_path / "f.log")])
    drawn, save = [], plotting.save

    def spy(fig, *paths):
        drawn.append([(ax.get_yscale(), ax.get_xlabel(), ax.get_ylabel(), len(ax.get_lines())) for ax in fig.axes])
        save(fig, *paths)

    monkeypatch.setattr(plotting, "save", spy)
    runpy.run_path(str(ROOT / "scripts" / "mt_figures.py"), init_globals={"snakemake": fake})
    assert all(Path(path).stat().st_size > 0 for path in outputs.values())
    lines_per_panel = [2 * 2, 2 * 2, 2 * 2, 1 * 2]  # protocols x the two estimators
    for panels, lines in zip(drawn, lines_per_panel, strict=True):
        assert [(scale, n) for scale, _, _, n in panels] == [("log", lines), ("log", lines)]
    assert drawn[1][0][1].startswith("ε_perm") and "MSE_avg" in drawn[2][0][2] and "years" in drawn[0][1][2]
