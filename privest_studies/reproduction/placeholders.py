"""The placeholders of the catalogue's text (workflow/report/papers.yaml): {config.a.b}, {scale.a.b} and
{published.a.b} filled from the config, the active scale and the paper's printed numbers."""

import re
from collections.abc import Mapping, Sequence
from typing import Any

# Placeholders of the catalogue's text: {config.a.b} is config["a"]["b"], {scale.a.b} the active scale's.
_PLACEHOLDER = re.compile(r"\{((?:config|scale|published)(?:\.[A-Za-z0-9_\-]+)+)\}")


def lookup(config: Mapping[str, Any], dotted: str, published: Mapping[str, Any] | None = None) -> Any:
    """The value of a placeholder: config.a.b -> config[a][b]; scale.a.b -> config[scales][config[scale]][a][b];
    published.a.b -> the paper's printed number published[a][b]."""
    root, *keys = dotted.split(".")
    roots = {"config": config, "published": published or {}}
    value: Any = roots[root] if root in roots else config["scales"][config["scale"]]
    for key in keys:
        if not isinstance(value, Mapping) or key not in value:
            raise KeyError(f"{dotted}: no key {key!r}")
        value = value[key]
    return value


def show(value: Any) -> str:
    """A config value as prose: lists joined with commas, numbers in short form."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, Sequence) and not isinstance(value, str):
        return ", ".join(map(show, value))
    if isinstance(value, Mapping):
        return "; ".join(f"{key}: {show(v)}" for key, v in value.items())
    return str(value)


def fill(value: Any, config: Mapping[str, Any], published: Mapping[str, Any] | None = None) -> Any:
    """Resolve the placeholders of a catalogue value (strings, lists and mappings of them). A string that is one
    placeholder alone becomes the config value (or the paper's number) itself; inside text it is shown as prose."""
    if isinstance(value, str):
        whole = _PLACEHOLDER.fullmatch(value)
        if whole:
            return lookup(config, whole.group(1), published)
        return _PLACEHOLDER.sub(lambda m: show(lookup(config, m.group(1), published)), value)
    if isinstance(value, Mapping):
        return {key: fill(v, config, published) for key, v in value.items()}
    if isinstance(value, list):
        return [fill(v, config, published) for v in value]
    return value
