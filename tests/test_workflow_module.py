"""privest as other workflows use it (docs/site/guide/own-workflow.md): declared as a Snakemake module from another
directory, and deployed by snakedeploy. Each runs, in a temporary directory, a tiny study of the user's own (on a CSV
the test writes) and one paper target that reads the workflow's own files (the count paper's printed numbers, from
workflow/report/papers.yaml): a dry run plans it, a real run builds it, every output lands in that directory and the
checkout is left as it was. The module snippet and the snakedeploy command are read from the docs page, so the page
shows what is tested."""

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import yaml

from privest.sampling import rng_for

sys.path.insert(0, str(Path(__file__).parents[1] / "benchmarks"))
from time_examples import fresh_clone  # the checkout as a clone holds it (one definition)

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "site" / "guide" / "own-workflow.md"
TARGETS = ["results/tiny/tables/summary.csv", "results/constrained_counts/tables/published.csv"]
STUDY_JOBS = ["own_study_data", "mechanisms", "perturb", "estimate", "score", "aggregate", "own_study_summary"]
# What the checkout may gain while a workflow runs from elsewhere: Python's byte-code caches of the modules it imports.
CACHES = ("__pycache__/", ".pyc")


def run(command: list[str], cwd: Path) -> subprocess.CompletedProcess:
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600,
                            env={**os.environ, "PYTHONHASHSEED": "0"})
    assert result.returncode == 0, f"{' '.join(command)} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result


def snakemake(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return run([sys.executable, "-m", "snakemake", *args], cwd)


def guide_block(language: str, holding: str) -> str:
    """The fenced block of the docs page in `language` that holds `holding`."""
    blocks = re.findall(rf"^```{language}\n(.*?)^```", GUIDE.read_text(), re.M | re.S)
    (block,) = [b for b in blocks if holding in b]
    return block


def tiny_study(directory: Path) -> dict:
    """The docs page's tiny study, and its CSV: 300 made-up ages (18..90) at data/ages.csv under `directory`."""
    ages = np.clip(rng_for(0, "module-test").normal(40, 12, size=300).round().astype(int), 18, 90)
    (directory / "data").mkdir(parents=True, exist_ok=True)
    (directory / "data" / "ages.csv").write_text("age\n" + "".join(f"{age}\n" for age in ages))
    return yaml.safe_load(guide_block("yaml", "tiny:"))


def checkout_status() -> str:
    """git status of the checkout, ignored files included (results/, logs/, data/raw/ are ignored there)."""
    status = subprocess.run(["git", "status", "--porcelain", "--ignored"], cwd=ROOT, capture_output=True, text=True,
                            check=True).stdout
    return "\n".join(line for line in status.splitlines() if not line.endswith(CACHES))


def files_changed_since(start: float, root: Path = ROOT) -> list[str]:
    """Every file under `root`, the checkout by default (outside .git, .venv and the caches), changed since `start`."""
    changed = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d not in {".git", ".venv", "__pycache__", ".pytest_cache", ".ruff_cache"}]
        changed += [os.path.join(folder, n) for n in names
                    if not n.endswith(".pyc") and os.lstat(os.path.join(folder, n)).st_mtime >= start]
    return changed


def assert_built_here(directory: Path, start: float, status_before: str) -> None:
    """The targets and the study's logs are under `directory`; the checkout is as it was."""
    for target in TARGETS:
        assert (directory / target).stat().st_size > 0, target
    assert (directory / "logs" / "tiny" / "data.log").exists()
    assert (directory / "results" / "tiny" / "krr" / "scores.csv").exists()
    assert checkout_status() == status_before
    assert files_changed_since(start) == []


def test_privest_as_a_module_of_another_workflow_builds_everything_in_its_directory(tmp_path):
    """The docs page's Snakefile (privest declared as a module with the prefix privest_) and config (privest's
    defaults plus the tiny study): the dry run plans the study's chain and the paper target under the prefix, the
    real run builds them in the temporary directory and writes nothing into the checkout."""
    status_before, start = checkout_status(), time.time() - 2
    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text()) | tiny_study(tmp_path)
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "config.yaml").write_text(yaml.safe_dump(config))
    snakefile = guide_block("text", "module privest:")
    (tmp_path / "Snakefile").write_text(snakefile.replace("/path/to/privest", str(ROOT)))
    plan = snakemake("--dry-run", "--cores", "2", cwd=tmp_path).stdout
    for rule in [*STUDY_JOBS, "counts_published"]:
        assert f"rule privest_{rule}:" in plan, rule
    assert "privest_fetch" not in plan  # the targets need no dataset
    snakemake("--cores", "2", cwd=tmp_path)
    assert_built_here(tmp_path, start, status_before)
    # The page's report command, of what was built: privest's captions of the count paper's table included.
    assert "snakemake --report report.html" in " ".join(GUIDE.read_text().split())
    snakemake("--report", "report.html", cwd=tmp_path)
    assert (tmp_path / "report.html").stat().st_size > 10_000
    assert checkout_status() == status_before and files_changed_since(start) == []


SNAKEDEPLOY = shutil.which("snakedeploy", path=str(Path(sys.executable).parent))
SNAKEDEPLOY_WARNINGS = ["Snakefile path not found in traditional path", "No config directory found"]


@pytest.mark.skipif(SNAKEDEPLOY is None, reason="snakedeploy is not installed (the lock has it for Python < 3.13)")
def test_snakedeploy_deploys_the_checkout_with_its_config_and_licence_and_the_deployment_runs(tmp_path):
    """`snakedeploy deploy-workflow` and the `sed` line after it, as the docs page writes them, from a directory
    beside a fresh clone: no warning about the Snakefile's path, the config directory or the licence (its one
    warning: no top-level profiles/); the deployed config is privest's own and the schema accepts it (a dry run of
    everything); the deployed Snakefile, its one path line pointed by sed at the clone's workflow/Snakefile
    (snakedeploy writes a local source's path relative to it), builds the tiny study and the paper target in the
    deployment, and neither the clone nor the checkout changes."""
    status_before, start = checkout_status(), time.time() - 2
    deploy, point = guide_block("sh", "snakedeploy").strip().splitlines()
    source = fresh_clone(tmp_path / "privest")
    source_start = time.time() - 2
    assert deploy.startswith("snakedeploy ") and point.startswith("sed ")
    result = run([SNAKEDEPLOY, *shlex.split(deploy.replace("/path/to/privest", str(source)))[1:]], tmp_path)
    output = result.stdout + result.stderr
    for warning in SNAKEDEPLOY_WARNINGS:  # what snakedeploy's deploy.py warns of (it prints no level)
        assert warning not in output, output
    assert "Writing license" in output and "No profile directory found" in output, output
    deployed = tmp_path / "my-analysis"
    assert (deployed / "config" / "config.yaml").read_bytes() == (ROOT / "config" / "config.yaml").read_bytes()
    assert (deployed / "LICENSE").read_text() == (ROOT / "LICENSE").read_text()
    snakefile = (deployed / "workflow" / "Snakefile").read_text()
    assert snakefile.count('"workflow/Snakefile"') == 1 and "use rule * from privest" in snakefile, snakefile
    run(shlex.split(point.replace("/path/to/privest", str(source))), tmp_path)
    pointed = (deployed / "workflow" / "Snakefile").read_text()
    assert pointed == snakefile.replace('"workflow/Snakefile"', f'"{source / "workflow" / "Snakefile"}"'), pointed
    plan = snakemake("--dry-run", "--cores", "2", cwd=deployed).stdout  # privest's rule all: every paper's target
    assert "rule reproduction:" in plan and "rule fetch:" in plan
    (deployed / "config" / "tiny.yaml").write_text(yaml.safe_dump(tiny_study(deployed)))
    (run_line,) = [line for line in guide_block("sh", "tiny.yaml").splitlines() if line.startswith("snakemake")]
    snakemake(*run_line.split()[1:], cwd=deployed)
    assert_built_here(deployed, start, status_before)
    assert files_changed_since(source_start, source) == []


def test_the_catalog_file_states_a_deployment_and_the_report():
    """.snakemake-workflow-catalog.yml: the usage the Snakemake workflow catalog shows."""
    usage = yaml.safe_load((ROOT / ".snakemake-workflow-catalog.yml").read_text())["usage"]
    assert usage["software-stack-deployment"]["conda"] is True and usage["report"] is True
    assert (ROOT / "workflow" / "Snakefile").exists() and (ROOT / "config" / "README.md").exists()


def test_without_the_study_layer_the_workflow_says_how_to_install_it(tmp_path):
    """privest_studies comes from privest installed from its checkout (the wheel holds the library alone): where it
    cannot be imported (here shadowed by a package that cannot), the workflow stops before any job and says how."""
    shadow = tmp_path / "shadow" / "privest_studies"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ModuleNotFoundError(\"No module named 'privest_studies'\")\n")
    path = os.pathsep.join(filter(None, [str(shadow.parent), os.environ.get("PYTHONPATH")]))
    result = subprocess.run([sys.executable, "-m", "snakemake", "--dry-run", "--snakefile",
                             str(ROOT / "workflow" / "Snakefile")], cwd=tmp_path, capture_output=True, text=True,
                            timeout=300, env={**os.environ, "PYTHONPATH": path})
    output = result.stdout + result.stderr
    assert result.returncode == 1
    assert "privest's study layer cannot be imported (No module named 'privest_studies')" in output
    assert "pip install -e '<checkout>[workflow]'" in output
