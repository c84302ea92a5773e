"""Configuration checked before any job runs, the active scale, and helpers shared by the rule files."""

import os

import jsonschema
import yaml
from snakemake.utils import validate


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


def eps_tag(eps: float) -> str:
    """The wildcard text of an eps value: the shortest repr that reads back exactly."""
    return repr(float(eps))
