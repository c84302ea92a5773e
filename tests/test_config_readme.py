"""config/README.md, the Snakemake workflow catalog's page of the config, documents every key of the schema
(workflow/schemas/config.schema.yaml) and no other: a key added to one and not the other fails here. A key is written
as its path, `<name>` for a name of the user's (a mapping's key), `[]` for the entries of a list and `<scale>` for
each of the scales (quick, paper), which take the same keys."""

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
SCALES = ("quick", "paper")


def schema_keys(schema: dict) -> dict[str, str | None]:
    """Every key path of the config schema -> its description (the first found), in the schema's order."""
    definitions = schema["definitions"]
    keys: dict[str, str | None] = {}

    def resolved(node: dict) -> dict:
        while "$ref" in node:
            node = {**definitions[node["$ref"].split("/")[-1]], **{k: v for k, v in node.items() if k != "$ref"}}
        return node

    def add(path: str, node: dict) -> None:
        description = node.get("description") or resolved(node).get("description")
        if not keys.get(path):
            keys[path] = description
        walk(node, path)

    def walk(node: dict, prefix: str) -> None:
        node = resolved(node)
        for name, sub in node.get("properties", {}).items():
            if prefix == "scales" and name in SCALES:
                name = "<scale>"
            add(f"{prefix}.{name}" if prefix else name, sub)
        for sub in [*node.get("patternProperties", {}).values(), node.get("additionalProperties")]:
            if isinstance(sub, dict):
                add(f"{prefix}.<name>", sub)
        if isinstance(node.get("items"), dict):
            walk(node["items"], f"{prefix}[]")
        for branch in [*node.get("anyOf", []), *node.get("oneOf", []), *node.get("allOf", [])]:
            walk(branch, prefix)

    walk(schema, "")
    return keys


def documented_keys(readme: str) -> list[str]:
    """The keys of config/README.md's tables: the first cell of each row, in backticks."""
    return re.findall(r"^\| `([^`]+)` \|", readme, re.M)


def test_the_config_readme_documents_every_key_of_the_schema_and_no_other():
    schema = yaml.safe_load((ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())
    documented = documented_keys((ROOT / "config" / "README.md").read_text())
    keys = schema_keys(schema)
    assert len(keys) > 300
    assert sorted(set(keys) - set(documented)) == [], "keys of the schema that config/README.md does not document"
    assert sorted(set(documented) - set(keys)) == [], "keys config/README.md documents that the schema does not have"
    assert len(documented) == len(set(documented)), "a key documented twice"


def test_the_scales_take_the_same_keys():
    """`<scale>` stands for every scale: the schema gives each the same definitions (their defaults may differ)."""
    scales = yaml.safe_load((ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())["properties"]["scales"]
    assert set(scales["properties"]) == set(SCALES)
    quick, paper = ({name: sub["$ref"] for name, sub in scales["properties"][scale]["properties"].items()}
                    for scale in SCALES)
    assert quick == paper


def test_a_key_missing_from_the_readme_is_found():
    """The comparison can fail: a schema with one more key has one undocumented key, named by its path."""
    schema = yaml.safe_load((ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())
    schema["properties"]["data"]["properties"]["proxy"] = {"type": "string"}
    documented = documented_keys((ROOT / "config" / "README.md").read_text())
    assert sorted(set(schema_keys(schema)) - set(documented)) == ["data.proxy"]
