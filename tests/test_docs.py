"""The documentation site (docs/site, `make docs`): its API reference lists every public name, and the gallery can
render every example.

The reference is the autosummary lists of docs/site/api/*.rst, one page per module: each list is read here and
compared with ``__all__`` (privest's own, and that of every module it names: the packages estimators, mechanisms and
protocols, and alphabets, counts, ...), so a name added to ``__all__`` without its line fails here, without a build.
When a built site is there and newer than those lists, its objects.inv (Sphinx's inventory of what the site
documents) must hold every name too.
"""

import ast
import re
import types
import zlib
from pathlib import Path

import pytest

import privest

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "docs" / "site"
API = SITE / "api"
INVENTORY = SITE / "_build" / "html" / "objects.inv"
MODULES = [name for name in privest.__all__ if isinstance(getattr(privest, name), types.ModuleType)]


def public_names() -> set[str]:
    """Full names of every public name: privest.X for X in privest.__all__, privest.m.Y for Y in each module's."""
    names = {f"privest.{name}" for name in privest.__all__}
    for name in MODULES:
        names |= {f"privest.{name}.{member}" for member in getattr(privest, name).__all__}
    return names


def listed() -> dict[str, str]:
    """Full name -> the page (api/<page>.rst) that lists it: each page's autosummary entries, under the module of its
    ``currentmodule``, and the module of its ``automodule``."""
    found = {}
    for page in sorted(API.glob("*.rst")):
        module, in_autosummary = None, False
        for line in page.read_text().splitlines():
            if match := re.match(r"\.\. (?:automodule|currentmodule):: (\S+)", line):
                module = match.group(1)
                found.setdefault(module, page.name)
            elif line.startswith(".. autosummary::"):
                in_autosummary = True
            elif in_autosummary and line.strip() and not line.startswith(" "):
                in_autosummary = False
            elif in_autosummary and (entry := line.strip()) and not entry.startswith(":"):
                assert module, f"{page.name}: an autosummary entry before any currentmodule"
                found[f"{module}.{entry}"] = page.name
    return found


def test_the_api_reference_lists_every_public_name():
    missing = sorted(public_names() - set(listed()))
    assert not missing, f"docs/site/api/*.rst lack {missing}: add each to the autosummary list of its module's page"


def test_the_api_reference_lists_nothing_that_is_not_public():
    extra = sorted(name for name in set(listed()) - public_names() if name != "privest")
    assert not extra, f"docs/site/api/*.rst list {extra}, which no __all__ names"


def test_every_module_of_privest_all_has_its_page():
    for name in MODULES:
        page = API / f"{name}.rst"
        assert page.exists() and f".. automodule:: privest.{name}\n" in page.read_text(), f"no api/{name}.rst"


def inventory_names(path: Path) -> set[str]:
    """The Python names of a Sphinx objects.inv (version 2: four header lines, then zlib-compressed
    ``name domain:role priority uri display`` lines)."""
    data = path.read_bytes()
    header_end = 0
    for _ in range(4):
        header_end = data.index(b"\n", header_end) + 1
    assert data.startswith(b"# Sphinx inventory version 2"), f"{path}: not a version 2 inventory"
    lines = zlib.decompress(data[header_end:]).decode().splitlines()
    return {line.split(" ", 1)[0] for line in lines if " py:" in line}


def test_the_built_site_documents_every_public_name():
    if not INVENTORY.exists():
        pytest.skip(f"no built site ({INVENTORY.relative_to(ROOT)}): `make docs` builds it")
    sources = [*API.glob("*.rst"), ROOT / "privest" / "__init__.py"]
    if INVENTORY.stat().st_mtime < max(p.stat().st_mtime for p in sources):
        pytest.skip("the built site is older than the API lists: `make docs` rebuilds it")
    missing = sorted(public_names() - inventory_names(INVENTORY))
    assert not missing, f"the built site does not document {missing}"


@pytest.mark.parametrize("script", sorted((ROOT / "examples").glob("*.py")), ids=lambda p: p.name)
def test_every_example_opens_with_a_gallery_title(script):
    """sphinx-gallery takes an example's title from its docstring's first lines: a title underlined with '='."""
    docstring = ast.get_docstring(ast.parse(script.read_text()), clean=False)
    assert docstring, f"{script.name} has no docstring"
    title, underline, *_ = docstring.lstrip("\n").splitlines()
    assert title.strip() and underline == "=" * len(title), f"{script.name}: no title underlined with '=' on top"
