"""A seeded fuzz test of the config check of a researcher's own study (issue 46): a valid study with one to three
random changes (a value replaced by a plausible one of its type, another type, an edge number, NaN or infinity, a
path, an empty list; a key deleted or added) goes through the whole check the workflow runs before any job (the
schema, then ``own_study.check``). Each config is either refused with a ValueError of one line that names a config
key or the data file, or admitted; an admitted one must build everything the workflow builds from it before a job
runs (its experiments, figures, the cost model's sizes and seconds) without any other error. And YAML text cut and
spliced at random goes through the repeated-key loader, which must end with a value or a YAML or ValueError, quickly.

A failure prints the seed; ``mutated(seed, csv)`` rebuilds that config."""

import copy
import math
from pathlib import Path

import numpy as np
import pytest
import yaml

from privest_studies import configuration, cost, own_study

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = str(ROOT / "workflow" / "schemas" / "config.schema.yaml")
BASE = yaml.safe_load((ROOT / "config.yaml").read_text())
STUDY = {
    "data": {"csv": "ages.csv", "column": "age", "missing": "drop"},
    "alphabet": {"kind": "binned", "min": 0, "max": 100, "bins": 10, "unit": "years"},
    "runs": 2,
    "experiments": {
        "by_eps": {"mechanisms": ["krr", "oue"], "eps": [0.5, 1.0], "estimators": ["gibu", "inv_r"]},
        "by_n": {"mechanisms": [{"kind": "geometric", "eps": 1.0}, {"kind": "rappor", "eps": 2.0}],
                 "n": [100, 1000], "estimators": ["gibu"]},
        "side": {"compare": ["grr", {"kind": "olh", "hashes": 64}], "eps": [1.0], "estimators": ["inv", "ibu"]},
    },
}
VALUES = [None, True, False, -1, 0, 1, 2, 0.5, 10**30, float("inf"), float("nan"), "x", "", "1e3", "../x", "\u00b2",
          [], [1.0, 1.0], [0.0], {}, {"kind": "krr"}, "krr", "categorical", "planar", 1e-300, -0.0]

NUMBERS = [1, 2, 3, 7, 0.1, 0.5, 5.0, 20, 100, 1000]
NAMES = ["krr", "oue", "grr", "sue", "olh", "blh", "ss", "hr", "geometric", "laplace", "exponential", "rappor", "gibu",
         "ibu", "inv", "inv_r", "ibu_r", "rap", "rap_r", "inv_m", "ibu_m", "rap_m", "drop", "error", "linear",
         "categorical", "sex", "gibu_joint", "l_grr"]


def _paths(node, prefix=()):
    """Every path to a value or container of a nested config."""
    yield prefix
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, value in items:
        yield from _paths(value, (*prefix, key))


def mutated(seed: int, csv: str) -> dict:
    """The study of ``seed``: STUDY (its CSV at ``csv``) with one to three random changes."""
    rng = np.random.default_rng([20261127, seed])
    study = copy.deepcopy(STUDY)
    study["data"]["csv"] = csv
    for _ in range(int(rng.choice([1, 1, 1, 2, 3]))):
        paths = [p for p in _paths(study) if p]
        path = paths[int(rng.integers(len(paths)))]
        parent = study
        for key in path[:-1]:
            parent = parent[key]
        action = rng.random()
        if action < 0.15 and isinstance(parent, dict):
            del parent[path[-1]]
        elif action < 0.25 and isinstance(parent, dict):
            parent[str(rng.choice(["extra", "k", "eps", "n", "users", "hashes", "kind"]))] = VALUES[
                int(rng.integers(len(VALUES)))]
        elif action < 0.6 and isinstance(parent[path[-1]], (int, float, str)):  # a plausible value of its type
            pool = NAMES if isinstance(parent[path[-1]], str) else NUMBERS
            parent[path[-1]] = pool[int(rng.integers(len(pool)))]
        else:
            parent[path[-1]] = copy.deepcopy(VALUES[int(rng.integers(len(VALUES)))])
    return study


def _one_line_naming_a_key_or_file(message: str, csv: str) -> bool:
    """One line that names a config key, the config, or the study's data file (whatever the changes made it)."""
    return "\n" not in message and ("config key" in message or message.startswith((csv, "config:")))


@pytest.mark.parametrize("seed", range(400))
def test_fuzz_an_own_study_config_is_refused_in_one_line_or_builds(tmp_path, monkeypatch, seed):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ages.csv").write_text("age,sex\n" + "".join(f"{a},F\n" for a in range(0, 100, 7)))
    csv = str(tmp_path / "ages.csv")
    config = {**copy.deepcopy(BASE), "studies": {"mine": mutated(seed, csv)}}
    try:
        configuration.check(config, SCHEMA)
        sizes = own_study.check(config)
    except ValueError as error:
        named = config["studies"]["mine"].get("data", {})
        named = named.get("csv") if isinstance(named, dict) and isinstance(named.get("csv"), str) else csv
        assert _one_line_naming_a_key_or_file(str(error), named or csv), f"seed {seed}: {error}"
        return
    experiments = own_study.experiments(config)
    assert set(experiments) == {"mine"} and own_study.figures(config) and own_study.figure_files(config)
    prior = own_study.prior_sizes(config)
    assert sizes == prior  # what check returns, from the headers it read
    for family_cost in cost.estimate_jobs(experiments, prior=prior):
        assert family_cost.seconds >= 0 and math.isfinite(family_cost.seconds)
    for experiment in experiments["mine"].values():
        assert experiment.runs >= 1 and experiment.points


@pytest.mark.parametrize("seed", range(200))
def test_fuzz_yaml_cut_and_spliced_loads_or_fails_as_yaml(tmp_path, seed):
    rng = np.random.default_rng([20261127, 1, seed])
    text = (ROOT / "examples" / "own_study" / "config.yaml").read_text()
    pieces = [text[a:b] for a, b in np.sort(rng.integers(0, len(text), (int(rng.integers(1, 6)), 2)), axis=1)]
    tail = rng.choice(["", "&a [1]\nb: *a\n", "a: 1\na: 2\n"])
    spliced = text[: int(rng.integers(len(text)))] + "".join(pieces) + tail
    path = tmp_path / "fuzz.yaml"
    path.write_text(spliced)
    try:
        configuration.check_files([str(path)])
    except ValueError as error:
        assert "\n" not in str(error) and "given twice" in str(error), f"seed {seed}: {error}"
