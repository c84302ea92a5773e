"""The project's config checked against its JSON schema, once, before any job: the schema's defaults filled in, and
the first error as one line naming the key."""

import copy
from collections.abc import Mapping
from typing import Any

import jsonschema
import yaml


def _filling_defaults(validator_class: type) -> type:
    """A validator that also sets every missing property that has a default in the schema (jsonschema's FAQ recipe)."""
    validate_properties = validator_class.VALIDATORS["properties"]

    def set_defaults(validator, properties, instance, schema):
        if isinstance(instance, dict):
            for name, subschema in properties.items():
                if isinstance(subschema, Mapping) and "default" in subschema:
                    instance.setdefault(name, copy.deepcopy(subschema["default"]))
        yield from validate_properties(validator, properties, instance, schema)

    return jsonschema.validators.extend(validator_class, {"properties": set_defaults})


def check(config: dict[str, Any], schema_path: str) -> None:
    """Validate ``config`` against the schema at ``schema_path`` and fill in its defaults; raise ValueError with one
    line naming the first bad key (jsonschema's best match)."""
    with open(schema_path) as f:
        schema = yaml.safe_load(f)
    validator = _filling_defaults(jsonschema.Draft202012Validator)(schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(config))
    if error is not None:
        key = ".".join(map(str, error.absolute_path)) or "(top level)"
        raise ValueError(f"config key {key}: {error.message}")
