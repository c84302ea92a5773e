"""The locked environment (docs/site/guide/environment.md): the lock in requirements/ answers pyproject.toml, the
venv that make builds holds exactly the lock's versions (pip freeze against the lock), and envs/privest.yaml pins the
same versions as the lock."""

import json
import re
import site
import subprocess
import sys
import tomllib
from importlib.metadata import distributions
from pathlib import Path

import pytest
import yaml
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements"
# The install sets of the Makefile: the stamp each leaves in the venv, its lock file, and the extras it installs.
SETS = {
    ".installed": ("test.txt", ["test"]),
    ".installed-peers": ("peers.txt", ["test", "peers"]),
    ".installed-cluster": ("cluster.txt", ["test", "cluster"]),
    ".installed-docs": ("docs.txt", ["test", "docs"]),
}
# envs/privest.yaml's conda names whose PyPI names differ.
CONDA_TO_PYPI = {"matplotlib-base": "matplotlib", "python-tzdata": "tzdata", "snakemake-minimal": "snakemake"}
PIN = re.compile(r"^([A-Za-z0-9][\w.-]*)==(\S+?)(?:\s*;\s*([^\\]+?))?\s*\\?\s*$")


def read_lock(name: str) -> dict[str, tuple[Version, Marker | None]]:
    """Package (canonical name) -> (version, marker) of one lock file; every pin of it carries hashes."""
    pins, hashes, package = {}, {}, None
    for line in (LOCK / name).read_text().splitlines():
        if line.strip().startswith("--hash=sha256:"):
            hashes[package] += 1
        elif line and line[0] not in "# ":
            match = PIN.match(line)
            assert match, f"{name}: not a pin: {line!r}"
            package, version, marker = match.groups()
            package = canonicalize_name(package)
            pins[package], hashes[package] = (Version(version), Marker(marker) if marker else None), 0
    assert pins and all(hashes.values()), f"{name}: pins without a hash: {[p for p, n in hashes.items() if not n]}"
    return pins


def applies(marker: Marker | None) -> bool:
    return marker is None or marker.evaluate()


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def requirements(project: dict, extras: list[str]) -> list[Requirement]:
    """The dependencies and those of the extras, an extra that names privest's own (``privest[workflow]``) unfolded."""
    wanted, seen, todo = [*map(Requirement, project["dependencies"])], set(), list(extras)
    while todo:
        if (extra := todo.pop()) not in seen:
            seen.add(extra)
            for requirement in map(Requirement, project["optional-dependencies"][extra]):
                if canonicalize_name(requirement.name) == "privest":
                    todo.extend(requirement.extras)
                else:
                    wanted.append(requirement)
    return wanted


def test_lock_answers_pyproject():
    """Each install set's lock holds every dependency that pyproject.toml asks of it at a version the bound allows,
    and the same version as requirements/all.txt (the one resolution of every extra): after a change of pyproject.toml,
    `make lock` refreshes the lock."""
    project = pyproject()
    every = read_lock("all.txt")
    sets = {"all.txt": list(project["optional-dependencies"])} | dict(SETS.values())
    for name, extras in sets.items():
        pins = read_lock(name)
        for requirement in requirements(project, extras):
            package = canonicalize_name(requirement.name)
            assert package in pins, f"{name} lacks {requirement}: run `make lock`"
            assert requirement.specifier.contains(pins[package][0], prereleases=True), (
                f"{name} pins {package}=={pins[package][0]}, outside {requirement}: run `make lock`"
            )
        for package, (version, _) in pins.items():
            assert every[package][0] == version, f"{name} pins {package}=={version}, all.txt {every[package][0]}"


def test_venv_is_the_lock():
    """pip freeze of the venv that make built equals the union of the lock files of the install sets it holds (their
    pins whose markers hold here): no version off, nothing missing, nothing extra; privest is installed editable from
    this checkout."""
    venv = Path(sys.prefix)
    if not (venv / ".installed").exists():
        pytest.skip(f"not the venv that make builds ({venv} has no .installed stamp)")
    installed_sets = [lock for stamp, (lock, _) in SETS.items() if (venv / stamp).exists()]
    expected = {}
    for name in installed_sets:
        expected |= {package: version for package, (version, marker) in read_lock(name).items() if applies(marker)}
    freeze = subprocess.run(
        [sys.executable, "-m", "pip", "freeze", "--all", "--exclude-editable"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    got = {}
    for line in freeze.splitlines():
        if line and not line.startswith("#"):
            assert "==" in line, f"pip freeze: not a pinned release: {line}"
            package, version = line.split("==")
            got[canonicalize_name(package)] = Version(version)
    missing = sorted(set(expected) - set(got))
    extra = sorted(set(got) - set(expected))
    off = sorted(f"{p} {got[p]} (lock {expected[p]})" for p in set(got) & set(expected) if got[p] != expected[p])
    assert not (missing or extra or off), (
        f"sets {installed_sets}: missing {missing}, extra {extra}, other versions {off}"
    )
    (privest,) = distributions(name="privest", path=site.getsitepackages())  # not the checkout's privest.egg-info
    direct = json.loads(privest.read_text("direct_url.json"))
    assert direct["dir_info"].get("editable") and direct["url"] == ROOT.as_uri()


def test_editable_install_maps_the_study_layer():
    """The wheel holds privest alone; the editable install of the checkout (setup.py) also maps privest_studies, which
    the Snakefile and scripts/ import from any working directory: here from /, beside privest's own checkout."""
    code = "import privest, privest_studies; print(privest.__file__); print(*privest_studies.__path__, sep='\\n')"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd="/", check=True)
    privest_file, *studies = result.stdout.splitlines()
    checkout = Path(privest_file).parents[1]
    assert Path(studies[0]) == checkout / "privest_studies", result.stdout


def conda_pins() -> dict[str, str]:
    """conda name (without its channel) -> the spec after the name, of envs/privest.yaml's conda dependencies."""
    env = yaml.safe_load((ROOT / "envs" / "privest.yaml").read_text())
    pins = {}
    for spec in env["dependencies"]:
        if isinstance(spec, str):
            name, version = re.fullmatch(r"(?:[\w-]+::)?([\w.-]+)(.*)", spec).groups()
            pins[name] = version
    return pins


def test_conda_env_pins_the_lock():
    """envs/privest.yaml pins every package exactly (==), each named in the lock at the lock's version, Python at the
    minor version the lock resolves for; it holds every dependency privest and its `workflow` extra declare (the rules
    run the pipeline), so that pip installs privest alone into it."""
    lock = read_lock("all.txt")
    pins = conda_pins()
    assert pins.pop("python") == "=3.11"
    assert "--python-version 3.11" in (ROOT / "Makefile").read_text()
    for name, spec in pins.items():
        package = CONDA_TO_PYPI.get(name, name)
        assert spec.startswith("=="), f"envs/privest.yaml: {name}{spec} is not an exact pin"
        assert package in lock, f"envs/privest.yaml: {name} is not in the lock (a conda name to map in CONDA_TO_PYPI?)"
        assert Version(spec[2:]) == lock[package][0], f"envs/privest.yaml: {name}{spec}, the lock {lock[package][0]}"
    named = {CONDA_TO_PYPI.get(name, name) for name in pins}
    for requirement in requirements(pyproject(), ["workflow"]):
        assert canonicalize_name(requirement.name) in named, f"envs/privest.yaml lacks {requirement.name}"
