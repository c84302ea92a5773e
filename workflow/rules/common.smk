"""Configuration checked before any job runs, the active scale, and helpers shared by the rule files."""

import os

import time

import jsonschema
import numpy as np
import yaml
from snakemake.utils import validate

import privest.io
import privest.registry


def _check_config(config: dict, schema_path: str) -> None:
    """Fail before any job runs, with one line naming the first bad key (jsonschema's own message otherwise)."""
    with open(schema_path) as f:
        schema = yaml.safe_load(f)
    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(schema).iter_errors(config))
    if error is not None:
        key = ".".join(map(str, error.absolute_path)) or "(top level)"
        raise ValueError(f"config key {key}: {error.message}")


_check_config(config, os.path.join(workflow.basedir, "workflow", "schemas", "config.schema.yaml"))
validate(config, "../schemas/config.schema.yaml")

SCALE = config["scales"][config["scale"]]
SEED = config["seed"]


def run_in_process(log, fn, *args) -> None:
    """Run a light step inside Snakemake's own process (no interpreter start-up, nothing to import), logging its
    seconds like privest.cli does for scripts: start-up 0."""
    started = time.perf_counter()
    fn(*args)
    privest.io.write_text(log[0], f"startup_seconds 0.000\nwork_seconds {time.perf_counter() - started:.3f}\n")


def build_mechanisms(alphabet_path: str, kind: str, eps: list[float], target: str) -> None:
    """The matrices of one mechanism on an alphabet, one per eps, into an npz with arrays A (eps, k, m) and eps."""
    alphabet = privest.registry.Alphabet.from_dict(privest.io.load_json(alphabet_path))
    A = np.stack([privest.registry.mechanism(kind, alphabet, e) for e in eps])
    privest.io.save_npz(target, A=A, eps=np.array(eps, dtype=np.float64))


# The IBU consistency study (workflow/rules/ibu_consistency.smk).

IBU = config["ibu_consistency"]
IBU_SCALE = SCALE["ibu_consistency"]
IBU_EXPERIMENTS = IBU["experiments"]
IBU_DIR = "results/ibu_consistency"
DATASET = {"ages": "results/data/ages", "planar": "results/data/checkins_planar"}


def ibu_eps(experiment: str) -> list[float]:
    """The eps grid of an experiment at the active scale."""
    return [float(e) for e in IBU_SCALE[IBU_EXPERIMENTS[experiment]["eps_grid"]]]


def ibu_dataset(wildcards) -> str:
    return DATASET[IBU_EXPERIMENTS[wildcards.experiment]["data"]]


def ibu_consistency_targets() -> list[str]:
    """Every output of the study at the active scale."""
    figures = [f"fig01{panel}" for panel in "abc"] + list(IBU["boxplots"])
    return [f"{IBU_DIR}/figures/{name}.{ext}" for name in figures for ext in ("pdf", "png")] + [
        f"{IBU_DIR}/tables/scores.csv"
    ]
