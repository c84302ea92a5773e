"""The project's config checked against its JSON schema, once, before any job: strings that stand for the numbers the
schema wants converted (nested ``--config`` overrides), the schema's defaults filled in, and the first error as one
line naming the key."""

import copy
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import jsonschema
import yaml
from jsonschema.exceptions import ValidationError


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


_INTEGER = re.compile(r"[+-]?[0-9]+")
_BOOLEANS = {"true": True, "false": False}


def _typed(text: str, expected: str | list[str]) -> int | float | bool | None:
    """The value of the string ``text`` as the first of the schema's ``expected`` types it reads as exactly (an
    integer, a number, a boolean), or None."""
    for kind in [expected] if isinstance(expected, str) else expected:
        if kind == "integer" and _INTEGER.fullmatch(text.strip()):
            return int(text)
        if kind == "number":
            try:
                return int(text) if _INTEGER.fullmatch(text.strip()) else float(text)
            except ValueError:
                continue
        if kind == "boolean" and text.strip().lower() in _BOOLEANS:
            return _BOOLEANS[text.strip().lower()]
    return None


def _type_errors(errors: Iterable[ValidationError]) -> Iterator[ValidationError]:
    """Every error of the keyword ``type`` among ``errors`` and their sub-errors (the branches of anyOf, oneOf)."""
    for error in errors:
        if error.validator == "type":
            yield error
        yield from _type_errors(error.context)


def _coerce_strings(validator: jsonschema.protocols.Validator, config: dict[str, Any]) -> None:
    """Turn every string of ``config`` that stands where the schema wants an integer, a number or a boolean, and reads
    as one, into that value. Snakemake passes nested ``--config`` values as strings (``--config 'ibu_consistency={"ibu":
    {"max_iter": 5000}}'`` gives "5000"); its top-level values it converts itself."""
    while True:
        coerced = False
        for error in _type_errors(validator.iter_errors(config)):
            path = list(error.absolute_path)
            if not path or not isinstance(error.instance, str):
                continue
            value = _typed(error.instance, error.validator_value)
            if value is None:
                continue
            parent = config
            for key in path[:-1]:
                parent = parent[key]
            if parent[path[-1]] is error.instance:
                parent[path[-1]] = value
                coerced = True
        if not coerced:
            return


def check(config: dict[str, Any], schema_path: str) -> None:
    """Validate ``config`` against the schema at ``schema_path`` and fill in its defaults; raise ValueError with one
    line naming the first bad key (jsonschema's best match). Strings that read as the integer, number or boolean the
    schema wants become that value first (nested ``--config`` overrides arrive as strings)."""
    with open(schema_path) as f:
        schema = yaml.safe_load(f)
    validator = _filling_defaults(jsonschema.Draft202012Validator)(schema)
    _coerce_strings(validator, config)
    error = jsonschema.exceptions.best_match(validator.iter_errors(config))
    if error is not None:
        key = ".".join(map(str, error.absolute_path)) or "(top level)"
        raise ValueError(f"config key {key}: {error.message}")
