"""The README quickstart and every script of examples/ run as a user runs them, and print what they claim; importing
privest loads none of the heavy dependencies; the library's docstring examples hold."""

import doctest
import importlib
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

import privest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))


def run(code: str | None = None, script: Path | None = None) -> str:
    args = [sys.executable, "-c", code] if code is not None else [sys.executable, str(script)]
    result = subprocess.run(args, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    return result.stdout


def emd(output: str, name: str) -> list[float]:
    """The EMDs printed on the lines that start with ``name``."""
    return [float(x) for line in output.splitlines() if line.split()[:1] == [name] for x in re.findall(r"\d+\.\d+",
                                                                                                           line)]


def test_the_readme_quickstart_runs_and_ibu_beats_the_noisy_reports():
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"<!-- quickstart -->\s*```python\n(.*?)```\s*<!-- /quickstart -->", readme, re.S)
    assert block, "README.md has no quickstart block between the markers"
    assert len(block.group(1).strip().splitlines()) <= 12
    output = run(code=block.group(1))
    assert emd(output, "IBU")[0] < emd(output, "noisy")[0]


def test_there_are_examples():
    assert {p.name for p in EXAMPLES} >= {"quickstart.py", "free_will_mixture.py", "locations.py", "protocols.py"}


@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.name)
def test_every_example_runs_and_prints_what_it_claims(script):
    output = run(script=script)
    lines = output.splitlines()
    if script.name == "free_will_mixture.py":
        assert emd(output, "GIBU")[0] < emd(output, "[IBU]_R")[0]
    elif script.name == "quickstart.py":
        noisy, _inv_n, _inv_p, ibu = (float(x) for x in lines[2].split()[1:5])  # eps 0.05
        assert ibu < noisy / 5
    elif script.name == "protocols.py":
        assert emd(output, "GIBU")[0] < min(emd(output, "[INV-P]_R")[0], emd(output, "[IBU]_R")[0])
        assert float(lines[-1].split()[-1]) < 1e-5  # the k-RR MLE is IBU run to convergence
    elif script.name == "locations.py":
        noisy, _inv_p, ibu = (float(x) for x in lines[2].split()[1:4])  # eps 0.5 per km
        assert ibu < noisy
    assert "Traceback" not in output


def test_importing_privest_loads_no_heavy_dependency():
    result = subprocess.run([sys.executable, "-X", "importtime", "-c", "import privest"], capture_output=True,
                            text=True, timeout=60, cwd=ROOT)
    loaded = {line.split("|")[-1].strip() for line in result.stderr.splitlines() if "|" in line}
    heavy = {"highspy", "matplotlib", "pandas", "snakemake", "ot", "scipy", "privest_studies"}
    assert not {name.split(".")[0] for name in loaded} & heavy


def test_the_library_docstring_examples_hold():
    failures, tried = doctest.testmod(privest, raise_on_error=False)[:2]
    assert tried > 0 and failures == 0


@pytest.mark.parametrize("name", sorted(info.name for info in pkgutil.walk_packages(privest.__path__, "privest.")))
def test_every_module_docstring_example_holds(name):
    failures, tried = doctest.testmod(importlib.import_module(name), optionflags=doctest.NORMALIZE_WHITESPACE)
    assert failures == 0, f"{failures} of {tried} doctests failed in {name}"


def test_the_central_functions_show_an_example():
    finder = doctest.DocTestFinder()
    for function in (privest.krr, privest.sample_counts, privest.ibu, privest.gibu, privest.emd_1d,
                     privest.project_simplex):
        assert any(test.examples for test in finder.find(function)), function.__name__
