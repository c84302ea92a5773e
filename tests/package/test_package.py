"""privest as users install it (`make test-package`, after `make test` in .ci/run; not part of `make test`).

`python -m build --no-isolation` (the lock's build and setuptools) makes the sdist, then the wheel from the sdist.
Each goes into a fresh `python -m venv` with nothing but what pip resolves from PyPI for privest's declared
dependencies (no lock: the newest versions the bounds allow, as a user gets them):

- the wheel, built here with a C compiler: the compiled IBU kernel is in it (``COMPILED_KERNEL`` is True);
- the sdist, built by pip in its own isolated build environment with the C compiler hidden (CC, CXX and LDSHARED are
  /bin/false and PATH holds only the venv's bin/, where no compiler is): the optional extension fails, the build goes
  on, and numpy runs the iteration (``COMPILED_KERNEL`` is False).

In both: the installed set holds none of the pipeline's packages (snakemake, pandas, matplotlib, threadpoolctl) and no
privest_studies; ``privest.__version__`` is the installed version; the README's library quickstart (the block between
its quickstart markers) and every script of examples/ that imports nothing beyond the standard library, numpy and
privest run from a directory outside the checkout. What each venv holds (packages, size) and how long each step took
is printed (run with -s).
"""

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PIPELINE = {"snakemake", "pandas", "matplotlib", "threadpoolctl", "jsonschema", "pyyaml"}
LIBRARY = {"privest", "numpy", "scipy", "pot", "highspy"}
HIDDEN_COMPILER = {"CC": "/bin/false", "CXX": "/bin/false", "LDSHARED": "/bin/false", "LDCXXSHARED": "/bin/false"}


def library_examples() -> list[Path]:
    """The scripts of examples/ whose imports are the standard library, numpy and privest only."""
    allowed = {*sys.stdlib_module_names, "numpy", "privest"}
    found = []
    for script in sorted((ROOT / "examples").glob("*.py")):
        tree = ast.parse(script.read_text())
        names = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
        names |= {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level == 0}
        if {name.split(".")[0] for name in names} <= allowed:
            found.append(script)
    return found


def quickstart() -> str:
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"<!-- quickstart -->\s*```python\n(.*?)```\s*<!-- /quickstart -->", readme, re.S)
    assert block, "README.md has no quickstart block between the markers"
    return block.group(1)


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without what would point Python at the checkout or at .venv."""
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME"}}
    return env | extra


def run(args: list, cwd: Path, env: dict[str, str] | None = None, timeout: float = 900) -> str:
    result = subprocess.run([str(a) for a in args], capture_output=True, text=True, cwd=cwd, timeout=timeout,
                            env=env or clean_env())
    assert result.returncode == 0, f"{args}:\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}"
    return result.stdout + result.stderr


def tree_bytes(path: Path) -> int:
    return sum(p.lstat().st_size for p in path.rglob("*") if not p.is_dir())


class Timer(dict):
    def step(self, name: str, start: float) -> None:
        self[name] = time.perf_counter() - start


@pytest.fixture(scope="module")
def timer():
    times = Timer()
    yield times
    print("\n" + "\n".join(f"  {name}: {seconds:.1f} s" for name, seconds in times.items()))


@pytest.fixture(scope="module")
def dists(tmp_path_factory, timer) -> dict[str, Path]:
    """The sdist and the wheel built from it, by the lock's build and setuptools (no isolated build environment)."""
    out = tmp_path_factory.mktemp("dist")
    start = time.perf_counter()
    run([sys.executable, "-m", "build", "--no-isolation", "--sdist", "--wheel", "--outdir", out, ROOT], cwd=ROOT)
    timer.step("build sdist + wheel", start)
    (sdist,), (wheel,) = out.glob("*.tar.gz"), out.glob("*.whl")
    print(f"\n  {sdist.name}: {sdist.stat().st_size / 1e3:.0f} kB, {wheel.name}: {wheel.stat().st_size / 1e3:.0f} kB")
    return {"sdist": sdist, "wheel": wheel}


def test_the_dists_hold_the_library_alone(dists):
    with zipfile.ZipFile(dists["wheel"]) as wheel:
        names = wheel.namelist()
    top = {name.split("/")[0] for name in names}
    assert {t for t in top if not t.endswith(".dist-info")} == {"privest"}, top
    assert any(re.fullmatch(r"privest/_kernel\..*(so|pyd)", name) for name in names), "no compiled kernel in the wheel"
    assert "privest/py.typed" in names
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names), "no LICENSE in the wheel"
    with tarfile.open(dists["sdist"]) as sdist:
        members = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    assert {"pyproject.toml", "setup.py", "README.md", "LICENSE", "privest/__init__.py", "privest/_kernel.c"} <= members
    assert not any(m.startswith(("privest_studies", "scripts/", "workflow/", "tests/")) for m in members), members


def install(kind: str, dists: dict[str, Path], tmp_path_factory, timer) -> tuple[Path, str]:
    """A fresh venv with privest from the wheel (as built) or the sdist (built by pip, the compiler hidden), and
    pip's log of the install."""
    venv = tmp_path_factory.mktemp(kind) / "venv"
    start = time.perf_counter()
    run([sys.executable, "-m", "venv", venv], cwd=venv.parent)
    python = venv / "bin" / "python"
    env = clean_env()
    if kind == "sdist":
        env = clean_env(PATH=str(venv / "bin"), **HIDDEN_COMPILER)
        assert not any(shutil.which(cc, path=env["PATH"]) for cc in ("cc", "gcc", "clang")), env["PATH"]
    log = run([python, "-m", "pip", "install", "-v", "--no-cache-dir", dists[kind]], cwd=venv.parent, env=env)
    timer.step(f"venv + pip install ({kind})", start)
    return python, log


def installed(python: Path) -> dict[str, str]:
    listing = run([python, "-m", "pip", "list", "--format=json"], cwd=python.parents[2])
    return {p["name"].lower().replace("_", "-"): p["version"] for p in json.loads(listing)}


@pytest.mark.parametrize("kind", ["wheel", "sdist"])
def test_installed_as_users_do(kind, dists, tmp_path_factory, timer):
    python, log = install(kind, dists, tmp_path_factory, timer)
    packages = installed(python)
    venv = python.parents[1]
    print(f"\n  {kind} venv: {len(packages)} packages, {tree_bytes(venv) / 1e6:.0f} MB: "
          + ", ".join(f"{name} {version}" for name, version in sorted(packages.items())))
    assert not PIPELINE & set(packages), f"pipeline packages in a library install: {PIPELINE & set(packages)}"
    assert LIBRARY <= set(packages)
    elsewhere = python.parents[2]  # outside the checkout: nothing imports from it
    start = time.perf_counter()
    probe = ("import importlib.metadata, importlib.util, privest; from privest.estimators import COMPILED_KERNEL; "
             "print(privest.__version__, importlib.metadata.version('privest'), COMPILED_KERNEL, privest.__file__, "
             "importlib.util.find_spec('privest._kernel') is not None, importlib.util.find_spec('privest_studies'))")
    version, metadata_version, compiled, where, has_kernel, studies = run([python, "-c", probe], cwd=elsewhere).split()
    assert version == metadata_version == packages["privest"]
    assert Path(where).is_relative_to(venv), where
    assert studies == "None", "privest_studies is installed with the library"
    if kind == "wheel":
        assert compiled == has_kernel == "True", "the wheel built with a C compiler has no compiled kernel"
    else:
        failed = re.search(r'building extension "privest\._kernel" failed.*', log)
        assert failed, log[-4000:]
        print(f"\n  sdist build, compiler hidden: {failed.group(0)}")
        assert compiled == has_kernel == "False", "the sdist built without a C compiler has a compiled kernel"
    output = run([python, "-c", quickstart()], cwd=elsewhere)
    assert re.search(r"^IBU\s+EMD to theta \d\.\d+$", output, re.M), output
    examples = library_examples()
    assert {p.name for p in examples} >= {"quickstart.py"}
    for script in examples:
        assert run([python, script], cwd=elsewhere).strip(), f"{script.name} printed nothing"
    timer.step(f"quickstart + {len(examples)} examples ({kind}, kernel {compiled})", start)
