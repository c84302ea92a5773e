"""The estimator-comparison study (privest_studies.estimator_comparison): its distances against privest's metrics,
one tiny dataset's rows (every method, the MLE's coverage, the geometric mechanism on ordinal data only), the ranks
of the summary and the config check."""

import numpy as np
import pytest

import privest
from privest_studies import estimator_comparison as ec

POSTS = ["base", "base-pos", "base-cut", "norm", "norm-mul", "norm-cut", "norm-sub", "power", "power-ns"]


def _config(protocols=("grr", "geometric"), runs=2):
    return {"seed": 2026, "scale": "quick", "scales": {"quick": {ec.STUDY: {"n": 2000, "runs": runs}}},
            ec.STUDY: {"protocols": list(protocols), "eps": [1.0], "posts": POSTS,
                       "ibu": {"delta": 1e-8, "max_iter": 2000, "accelerate": "squarem"}, "level": 0.95}}


def test_the_distances_are_emd_and_total_variation_on_distributions():
    rng = np.random.default_rng(1)
    theta, estimate = rng.dirichlet(np.ones(7)), rng.dirichlet(np.ones(7))
    assert ec.distance(estimate, theta, ordinal=True) == pytest.approx(privest.emd_1d(theta, estimate), rel=1e-12)
    assert ec.distance(estimate, theta, ordinal=False) == pytest.approx(privest.total_variation(theta, estimate),
                                                                        rel=1e-12)


def _dataset(theta, ordinal, config):
    """The rows of every protocol the study runs on a dataset, as the summary gathers its jobs' tables."""
    kinds = [kind for kind in config[ec.STUDY]["protocols"] if ordinal or kind != "geometric"]
    return [row for kind in kinds for row in ec.run_protocol("tiny", kind, theta, ordinal, config)]


def test_a_dataset_runs_every_method_on_every_protocol_and_eps():
    theta = np.array([0.1, 0.3, 0.3, 0.2, 0.1])
    rows = _dataset(theta, True, _config())
    assert len(rows) == 2 * (len(POSTS) + 2) + 2 * (len(POSTS) + 1)  # GRR has the closed form, geometric not
    assert {r["method"] for r in rows} == {*POSTS, ec.MLE, ec.CLOSED_FORM}
    for row in rows:
        assert np.isfinite(row["distance"]) and row["l2sq"] >= 0
        assert (0 <= row["coverage"] <= 1) if row["method"] == ec.MLE else np.isnan(row["coverage"])
    assert rows == _dataset(theta, True, _config())  # seeded
    assert ec.run_protocol("tiny", "geometric", theta, True, _config()) == rows[-2 * (len(POSTS) + 1):]  # alone
    categorical = _dataset(theta, False, _config())
    assert {r["protocol"] for r in categorical} == {"grr"}
    with pytest.raises(ValueError, match=r"estimator_comparison\.protocols: .*'tiny' is categorical"):
        ec.run_protocol("tiny", "geometric", theta, False, _config())


def test_one_job_per_dataset_and_protocol_and_the_geometric_mechanism_on_ordinal_data_only():
    config = _config(protocols=("geometric", "grr", "hr"))
    assert ec.protocols_of("zipf", config) == ["geometric", "grr", "hr"]
    assert ec.protocols_of("adult", config) == ["grr", "hr"]


def test_the_summary_ranks_each_cell_and_the_grid_stars_its_winner():
    rows = _dataset(np.array([0.1, 0.3, 0.3, 0.2, 0.1]), True, _config(runs=1))
    lines = ec.summary(rows)
    for protocol in ("grr", "geometric"):
        ranks = sorted(line["rank"] for line in lines if line["protocol"] == protocol)
        assert ranks == list(range(1, len(ranks) + 1))
    columns, methods, ratio, coverage = ec.ratio_grid(lines, "tiny", ec.methods(_config()))
    assert columns == [("grr", 1.0), ("geometric", 1.0)] and methods == ec.methods(_config())
    assert np.nanmin(ratio, axis=0).tolist() == [1.0, 1.0] and np.isnan(ratio[-1, 1])
    assert ((0 <= coverage) & (coverage <= 1)).all()
    assert "## tiny" in ec.summary_markdown(lines, _config(runs=1), {"tiny": "five values"})


def test_the_categorical_alphabet_and_the_config_check():
    alphabet, theta = ec.categorical_alphabet(["b", "a", "b", "c"], "letters")
    assert alphabet["categories"] == ["a", "b", "c"] and theta.tolist() == [0.25, 0.5, 0.25]
    with pytest.raises(ValueError, match=r"categorical\.column"):
        ec.categorical_alphabet(["a", "a"], "letters")
    with pytest.raises(ValueError, match=r"estimator_comparison\.eps"):
        ec.check(_config() | {ec.STUDY: _config()[ec.STUDY] | {"eps": [1.0, 1.0]}})


def test_a_notebook_reproduces_the_pipelines_score_of_a_raw_estimate_with_the_library():
    """The study's row for the raw unbiased estimate ("base") is privest.emd_1d(raw, theta, signed=True) (ordinal)
    or privest.total_variation(raw, theta, signed=True) (categorical) of the estimate a notebook draws from the same
    rng, to the last bit, and the sum |F-hat - F| the study computed before the library had it."""
    theta = np.array([0.1, 0.3, 0.3, 0.2, 0.1])
    config = _config(protocols=("oue",), runs=1)
    study = config[ec.STUDY]
    for ordinal in (True, False):
        row = next(r for r in ec.run_protocol("tiny", "oue", theta, ordinal, config) if r["method"] == "base")
        rng = privest.rng_for(2026, ec.STUDY, "tiny", "oue", 1.0, 0)
        raw = next(e for m, e, _, _ in ec._one_run("oue", 1.0, theta, 2000, rng, study["posts"], study["ibu"],
                                                   study["level"]) if m == "base")
        assert abs(raw.sum() - 1) > 1e-6  # OUE's raw estimate is no distribution: emd_1d alone refuses it
        with pytest.raises(ValueError, match="signed=True"):
            (privest.emd_1d if ordinal else privest.total_variation)(raw, theta)
        if ordinal:
            assert row["distance"] == privest.emd_1d(raw, theta, signed=True)
            assert row["distance"] == float(np.abs(np.cumsum(raw - theta)).sum())
        else:
            assert row["distance"] == privest.total_variation(raw, theta, signed=True)
            assert row["distance"] == float(np.abs(raw - theta).sum() / 2)
