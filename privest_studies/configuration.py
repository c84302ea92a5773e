"""The project's config checked once, before any job: every config file read again for keys YAML would silently
merge, every name that becomes part of a path against one pattern (PATH_NAME), then the JSON schema (strings that
stand for the numbers it wants converted, its defaults filled in). Each error is one line naming the key or the file
and line, and `one_line_errors` makes it the only line on the terminal."""

import contextlib
import copy
import logging
import math
import os
import re
import sys
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import jsonschema
import yaml
from jsonschema.exceptions import ValidationError

from privest_studies import files


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


PATH_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
"""Every config key that becomes part of a file path (a study, an experiment, a mechanism set, a figure...): an ASCII
letter, then ASCII letters, digits or _. No separator, dot, space, shell character or look-alike letter can reach a
path. The schema's definition path_name says the same; a mapping whose keys become paths has ``propertyNames: {$ref:
"#/definitions/path_name"}``."""
PATH_NAME_REF = "#/definitions/path_name"


def _resolved(schema: Mapping[str, Any], root: Mapping[str, Any]) -> Mapping[str, Any]:
    """``schema`` with a local ``$ref`` (#/definitions/...) followed, its sibling keywords kept."""
    if "$ref" not in schema or not schema["$ref"].startswith("#/"):
        return schema
    target = root
    for part in schema["$ref"][2:].split("/"):
        target = target[part]
    return {**_resolved(target, root), **{k: v for k, v in schema.items() if k != "$ref"}}


def path_name_mappings(schema: Mapping[str, Any]) -> list[tuple[str, ...]]:
    """The config mappings whose keys must be path names: their key paths in the config (``*`` for any key), found
    through properties, additionalProperties and $ref (not oneOf, anyOf or allOf)."""
    found = []

    def walk(node: Mapping[str, Any], path: tuple[str, ...]) -> None:
        node = _resolved(node, schema)
        if node.get("propertyNames", {}).get("$ref") == PATH_NAME_REF:
            found.append(path)
        for key, child in node.get("properties", {}).items():
            walk(child, (*path, key))
        if isinstance(node.get("additionalProperties"), Mapping):
            walk(node["additionalProperties"], (*path, "*"))

    walk(schema, ())
    return found


def _mappings_at(config: Any, path: tuple[str, ...], prefix: str = "") -> Iterator[tuple[str, Mapping]]:
    """The mappings of ``config`` at the key path ``path`` (``*`` for any key), each with its dotted key."""
    if not path:
        if isinstance(config, Mapping):
            yield prefix, config
        return
    if not isinstance(config, Mapping):
        return
    keys = config if path[0] == "*" else [path[0]] if path[0] in config else []
    for key in keys:
        yield from _mappings_at(config[key], path[1:], f"{prefix}.{key}" if prefix else str(key))


def check_path_names(config: Mapping[str, Any], schema: Mapping[str, Any]) -> None:
    """Raise ValueError naming the key when a config key that becomes part of a path is not a PATH_NAME (the whole
    key: a trailing newline is refused too). !a shows a look-alike letter as its code point."""
    for path in path_name_mappings(schema):
        for key, mapping in _mappings_at(config, path):
            for name in mapping:
                if not (isinstance(name, str) and PATH_NAME.fullmatch(name)):
                    raise ValueError(
                        f"config key {key}: {name!a} cannot name a file: a name here is an ASCII letter, then "
                        "ASCII letters, digits or _"
                    )


class UniqueKeyLoader(yaml.SafeLoader):
    """YAML's safe loader that refuses a key given twice in one mapping (plain YAML keeps the last silently). Merge
    keys (<<) may still be overridden."""

    def compose_document(self):
        """The document's nodes, each mapping's key path noted for messages: every node walked once, however many
        aliases point to it (a few hundred bytes of nested aliases name 10^9 nodes)."""
        node = super().compose_document()
        self.key_paths, walked = {}, set()
        pending = [(node, "")]
        while pending:
            current, path = pending.pop()
            if id(current) in walked:
                continue
            walked.add(id(current))
            if isinstance(current, yaml.MappingNode):
                self.key_paths[id(current)] = path
                for key, value in current.value:
                    pending.append((value, f"{path}.{key.value}" if path else str(key.value)))
            elif isinstance(current, yaml.SequenceNode):
                pending += [(item, f"{path}[{i}]") for i, item in enumerate(current.value)]
        return node

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            parent = self.key_paths.get(id(node), "")
            seen = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                line = key_node.start_mark.line + 1
                if key in seen:
                    name = f"{parent}.{key}" if parent else str(key)
                    raise ValueError(
                        f"{key_node.start_mark.name} lines {seen[key]} and {line}: config key {name} is given twice "
                        "(YAML would keep only the last); remove or rename one"
                    )
                seen[key] = line
        return super().construct_mapping(node, deep)


def check_files(paths: Iterable[str]) -> None:
    """Read every config file again with UniqueKeyLoader: ValueError naming the key and both lines when a mapping
    gives a key twice. A file YAML cannot read (Snakemake read it as JSON) is left to Snakemake."""
    for path in paths:
        with open(path, encoding="utf-8") as f:
            try:
                yaml.load(f, Loader=UniqueKeyLoader)
            except yaml.YAMLError:
                continue


@contextlib.contextmanager
def one_line_errors(held: "HeldLog | None" = None) -> Iterator[None]:
    """Turn a ValueError of the checks inside into its message alone, one line on stderr, and exit 1: no traceback of
    Snakemake's under it. Snakemake lets SystemExit through and prints nothing more. Any other error (a file of the
    workflow's own that cannot be read) goes on to Snakemake with the log ``held`` released first, so that Snakemake's
    report of it is printed rather than held."""
    try:
        yield
    except ValueError as error:
        print(" ".join(str(error).splitlines()), file=sys.stderr)
        raise SystemExit(1) from None
    except Exception:
        if held is not None:
            held.release()
        raise


class HeldLog(logging.Filter):
    """Holds the records of ``logger`` (Snakemake's) while the config is read and checked: on an error nothing of
    Snakemake's is printed before its one line; after the checks, `release` prints what was held."""

    def __init__(self, logger: logging.Logger):
        super().__init__()
        self.logger = logger
        self.records: list[logging.LogRecord] = []
        logger.addFilter(self)

    def filter(self, record: logging.LogRecord) -> bool:
        self.records.append(record)
        return False

    def release(self) -> None:
        self.logger.removeFilter(self)
        for record in self.records:
            self.logger.handle(record)
        self.records = []


def check(config: dict[str, Any], schema_path: str) -> None:
    """Validate ``config`` against the schema at ``schema_path`` and fill in its defaults; raise ValueError with one
    line naming the first bad key: a name that becomes part of a path and is not a PATH_NAME first, then jsonschema's
    best match. Strings that read as the integer, number or boolean the schema wants become that value first (nested
    ``--config`` overrides arrive as strings)."""
    check_size(config)
    schema = files.load_yaml(schema_path)
    check_path_names(config, schema)
    validator = _filling_defaults(jsonschema.Draft202012Validator)(schema)
    _coerce_strings(validator, config)
    check_finite(config)
    error = jsonschema.exceptions.best_match(validator.iter_errors(config))
    if error is not None:
        key = ".".join(map(str, error.absolute_path)) or "(top level)"
        raise ValueError(f"config key {key}: {error.message}")


WRITTEN = ("results", "logs", "benchmarks", ".snakemake")
"""The folders of the working directory a run writes into."""


def check_writable(folders: Iterable[str] = WRITTEN) -> None:
    """One line naming the first of ``folders`` that exists and cannot be written (a read-only results folder crashed
    Snakemake's scheduler with a 30-line traceback)."""
    for folder in folders:
        if os.path.isdir(folder) and not os.access(folder, os.W_OK | os.X_OK):
            raise ValueError(f"{folder}/: cannot be written (permissions or a read-only file system); the run writes "
                             "its results there")


MOST_VALUES = 10**6
"""The most values a config may hold once its YAML aliases are expanded: a few hundred bytes of nested aliases name
10^9 values, and every walk of the config (the schema's, ours, Snakemake's) would take hours."""


def check_size(config: Any) -> None:
    """Refuse a config that holds more than ``MOST_VALUES`` values with its aliases expanded, counted in time linear
    in its distinct containers (a container that aliases name many times is counted once and weighed by its size)."""
    sizes: dict[int, int] = {}

    def size(node: Any) -> int:
        if not isinstance(node, (Mapping, list)):
            return 1
        if id(node) not in sizes:
            sizes[id(node)] = 0  # a cycle counts as nothing more
            children = node.values() if isinstance(node, Mapping) else node
            sizes[id(node)] = min(1 + sum(size(child) for child in children), 10 * MOST_VALUES)
        return sizes[id(node)]

    if (total := size(config)) > MOST_VALUES:
        shown = f"{total:,}" if total < 10 * MOST_VALUES else f"over {10 * MOST_VALUES:,}"
        raise ValueError(f"config: {shown} values once its YAML aliases (*name) are expanded, more than the "
                         f"{MOST_VALUES:,} a config may hold; write the lists out or shorten them")


def check_finite(config: Any, key: str = "") -> None:
    """Refuse an infinite or NaN number anywhere in the config, naming its key: YAML reads .inf, .nan and 1e400 as
    floats, and the schema's bounds let NaN through (every comparison with it is false); a job would fail on it."""
    if isinstance(config, float) and not math.isfinite(config):
        raise ValueError(f"config key {key or '(top level)'}: {config!r} is not a finite number")
    children = config.items() if isinstance(config, Mapping) else enumerate(config) if isinstance(config, list) else ()
    for name, value in children:
        check_finite(value, f"{key}.{name}" if key else str(name))


# --- a study's part of the checked config -----------------------------------------------------------------------------


def study_config(config: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    """The study's own keys, ``config[name]``: what the paper defines (its mechanisms, experiments, figures)."""
    return config[name]


def scale_config(config: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    """The study's keys at the chosen scale, ``config["scales"][config["scale"]][name]``: how much of it runs (grids,
    runs, users)."""
    return config["scales"][config["scale"]][name]
