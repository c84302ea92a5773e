"""The IBU consistency study's experiments and checks (privest_studies.ibu_consistency), on the project's config."""

import copy
from pathlib import Path

import numpy as np
import pytest
import yaml

from privest_studies import ibu_consistency as ibu

CONFIG = yaml.safe_load((Path(__file__).resolve().parents[1] / "config.yaml").read_text())
BOXPLOTS = [f"results/ibu_consistency/figures/{name}.{ext}" for name in CONFIG["ibu_consistency"]["boxplots"]
            for ext in ("pdf", "png")]


def changed(**study) -> dict:
    config = copy.deepcopy(CONFIG)
    config["ibu_consistency"] |= study
    return config


def test_every_experiment_has_one_mechanism_per_eps_of_its_grid():
    experiments = ibu.experiments(CONFIG)
    assert list(experiments) == list(CONFIG["ibu_consistency"]["experiments"])
    ages = experiments["ages_geometric"]
    grid = CONFIG["scales"]["quick"]["ibu_consistency"]["eps_linear"]
    assert [p.value for p in ages.points] == grid and [m.parameter for m in ages.members] == grid
    assert all(p.users is None for p in ages.points) and ages.score_against == "theta" and ages.score_noisy
    assert ages.data == "results/data/ages" and ages.families == ("inv", "ibu")
    rappor = experiments["rappor_binomial"]
    assert {p.users for p in rappor.points} == {CONFIG["scales"]["quick"]["ibu_consistency"]["synthetic_users"]}
    assert rappor.score_against == "users" and rappor.data == "results/ibu_consistency/data/binomial10"


@pytest.mark.parametrize(("config", "key"), [
    (changed(experiments=CONFIG["ibu_consistency"]["experiments"] | {
        "ages_krr": {"data": "nope", "mechanism": "krr", "eps_grid": "eps_krr", "families": ["inv"]}}),
     "ibu_consistency.experiments.ages_krr.data"),
    (changed(experiments=CONFIG["ibu_consistency"]["experiments"] | {
        "ages_krr": {"data": "ages", "mechanism": "krr", "eps_grid": "eps_krr", "families": ["rap"]}}),
     "ibu_consistency.experiments.ages_krr.families"),
    (changed(fig11={"experiments": ["rappor_binomial"], "eps": 0.5}), "ibu_consistency.fig11.experiments"),
    (changed(fig01={"experiment": "ages_geometric", "eps": 0.07}), "ibu_consistency.fig01.eps"),
])
def test_check_names_the_key_that_is_wrong(config, key):
    with pytest.raises(ValueError, match=f"config key {key}"):
        ibu.check(config)


def test_boxplot_panels_follow_the_rules_outputs_and_name_the_key_when_they_disagree():
    panels = ibu.boxplot_panels(CONFIG, BOXPLOTS)
    assert [p["figure"] for p in panels] == list(CONFIG["ibu_consistency"]["boxplots"])
    assert panels[1]["alphabet"] == "results/data/checkins_planar_alphabet.json"
    with pytest.raises(ValueError, match=r"config key ibu_consistency\.boxplots: .*missing \['fig13a'\]"):
        ibu.boxplot_panels(CONFIG, [*BOXPLOTS, "results/ibu_consistency/figures/fig13a.pdf", "fig13a.png"])


def test_synthetic_thetas_are_the_binomial_and_the_uniform_distributions():
    np.testing.assert_allclose(ibu.synthetic_theta({"k": 5, "binomial_p": 0.5}), np.array([1, 4, 6, 4, 1]) / 16,
                               atol=1e-16)
    np.testing.assert_array_equal(ibu.synthetic_theta({"k": 6, "uniform": [1, 2]}), [0, 0.5, 0.5, 0, 0, 0])
    assert ibu.synthetic_alphabet({"k": 10, "uniform": [3, 6]}) == {"kind": "linear", "k": 10,
                                                                    "label": "uniform on {3..6}"}
    with pytest.raises(ValueError, match="uniform must be"):
        ibu.synthetic_theta({"k": 4, "uniform": [2, 9]})
