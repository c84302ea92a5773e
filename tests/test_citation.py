"""How privest is cited and licensed: CITATION.cff is valid Citation File Format 1.2.0 (its JSON schema, vendored in
tests/schemas/) and agrees with the project (pyproject's licence, privest.__version__, LICENSE); its references are the
three papers, each title as printed on the paper's first page; README.md's "How to cite" points at it."""

import json
import re
import tomllib
from pathlib import Path

import jsonschema
import pytest
import yaml

import privest

ROOT = Path(__file__).resolve().parents[1]
PAPERS = ROOT.parent / "shared" / "papers"
CITATION = yaml.safe_load((ROOT / "CITATION.cff").read_text())


def test_citation_cff_is_valid_citation_file_format():
    schema = json.loads((ROOT / "tests" / "schemas" / "citation-file-format-1.2.0.json").read_text())
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    errors = [f"{'.'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(CITATION)]
    assert errors == []
    assert CITATION["cff-version"] == "1.2.0"


def test_a_citation_missing_its_authors_is_refused():
    """The validation can fail: a reference without authors is not Citation File Format."""
    schema = json.loads((ROOT / "tests" / "schemas" / "citation-file-format-1.2.0.json").read_text())
    broken = json.loads(json.dumps(CITATION))
    del broken["references"][0]["authors"]
    with pytest.raises(jsonschema.ValidationError, match="'authors' is a required property"):
        jsonschema.validate(broken, schema, cls=jsonschema.Draft7Validator)


def test_citation_licence_and_version_are_the_projects():
    """The licence is the one pyproject.toml declares and LICENSE holds (MIT, the privest authors); the version is
    privest.__version__."""
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["license"]
    assert CITATION["license"] == declared == "MIT"
    licence = (ROOT / "LICENSE").read_text()
    assert licence.startswith("MIT License\n\nCopyright (c) 2026 the privest authors\n")
    assert "THE SOFTWARE IS PROVIDED \"AS IS\", WITHOUT WARRANTY OF ANY KIND" in licence
    assert CITATION["version"] == privest.__version__


@pytest.mark.skipif(not PAPERS.is_dir(), reason=f"the papers are not beside the checkout ({PAPERS})")
def test_the_references_are_the_three_papers_by_their_printed_titles():
    first_lines = {path.name: next(line for line in path.read_text().splitlines() if line.strip("# ").strip())
                   for path in sorted(PAPERS.glob("*.txt"))}
    assert len(first_lines) == 3
    titles = [reference["title"] for reference in CITATION["references"]]
    for name, line in first_lines.items():
        assert line.strip() in titles, f"{name}: {line!r} is not a reference's title"


def test_the_readme_says_how_to_cite():
    readme = (ROOT / "README.md").read_text()
    section = re.search(r"^## How to cite\n(.*?)(?=^## |\Z)", readme, re.M | re.S)
    assert section and "CITATION.cff" in section.group(1) and "LICENSE" in section.group(1)
