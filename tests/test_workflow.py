"""The Snakemake workflow: lint, dry runs at both scales, and a real run of the spine on tiny generated data.

The real run works in a temporary directory with a tiny mirror (an Adult-format pair and a check-in file) and
unreachable official URLs, so it also proves the mirror fallback, the checksum pins, failure without partial outputs,
config validation before any job, and byte-identical regeneration of a deleted intermediate.
"""

import copy
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

from privest.perturb import rng_for

ROOT = Path(__file__).resolve().parents[1]
SNAKEMAKE = [sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile")]
UNREACHABLE = "http://127.0.0.1:9/unreachable"


def snakemake(*args: str, cwd: Path = ROOT, check: bool = True) -> subprocess.CompletedProcess:
    result = subprocess.run([*SNAKEMAKE, *args], cwd=cwd, capture_output=True, text=True, timeout=900,
                            env={**os.environ, "PYTHONHASHSEED": "0"})
    if check and result.returncode != 0:
        raise AssertionError(f"snakemake {' '.join(args)} failed:\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}")
    return result


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def adult_line(age: int, income: str, sex: str) -> str:
    return (f"{age}, Private, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, {sex}, 0, 0, 40,"
            f" United-States, {income}")


def write_tiny_mirror(directory: Path) -> None:
    """A tiny Adult pair (300 + 100 persons) and 500 check-ins inside the San Francisco box."""
    rng = rng_for(0, "tiny-mirror")
    directory.mkdir(parents=True)
    ages = np.clip(rng.normal(38, 13, size=400).round().astype(int), 17, 90)
    lines = [adult_line(a, ">50K" if a % 3 == 0 else "<=50K", "Male" if a % 2 else "Female") for a in ages]
    (directory / "adult.data").write_text("\n".join(lines[:300]) + "\n\n")
    (directory / "adult.test").write_text("|1x3 Cross validator\n" + "\n".join(f"{x}." for x in lines[300:]) + "\n\n")
    lat = rng.uniform(37.7228, 37.7946, size=500)
    lon = rng.uniform(-122.5153, -122.3789, size=500)
    lines = "".join(f"{a:.10f},{b:.10f}\n" for a, b in zip(lat, lon, strict=True))
    (directory / "gowalla_sf_box_latlon.csv").write_text(lines)


def deep_update(base: dict, update: dict) -> dict:
    for key, value in update.items():
        base[key] = deep_update(base.get(key, {}), value) if isinstance(value, dict) else value
    return base


def tiny_config(mirror: Path, **changes) -> dict:
    """The project's config with the tiny mirror's checksums, unreachable URLs and small sizes."""
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    config = copy.deepcopy(config)
    data = config["data"]
    data.update(mirror=str(mirror), timeout_seconds=1, retries=1)
    for name, entry in data["adult"]["files"].items():
        entry.update(url=f"{UNREACHABLE}/{name}", sha256=sha256(mirror / name))
    data["gowalla"]["url"] = f"{UNREACHABLE}/gowalla"
    box = mirror / "gowalla_sf_box_latlon.csv"
    data["gowalla"]["accepted"] = [{"name": box.name, "kind": "sf_box", "sha256": sha256(box),
                                    "size": box.stat().st_size}]
    config["ibu_consistency"]["ibu"]["max_iter"] = 300
    config["scales"]["quick"]["ibu_consistency"].update(runs=2, eps_linear=[0.05, 0.3])
    return deep_update(config, changes)


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory) -> Path:
    """A working directory in which the quick spine has run to completion on tiny data."""
    work = tmp_path_factory.mktemp("spine")
    write_tiny_mirror(work / "mirror")
    (work / "config.yaml").write_text(yaml.safe_dump(tiny_config(work / "mirror")))
    snakemake("--cores", "2", "--directory", str(work), cwd=work)
    return work


def test_lint_is_clean():
    result = snakemake("--lint", check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Lints for" not in result.stdout + result.stderr


@pytest.mark.parametrize("scale", ["quick", "paper"])
def test_dry_run_of_the_whole_dag(scale, tmp_path):
    (tmp_path / "config.yaml").write_text((ROOT / "config.yaml").read_text())
    result = snakemake("--dry-run", "--cores", "2", "--directory", str(tmp_path), "--config", f"scale={scale}",
                       cwd=tmp_path)
    for rule in ("fetch_adult", "discretise_adult", "ibu_mechanism", "ibu_perturb", "ibu_estimate", "ibu_score",
                 "ibu_aggregate", "ibu_fig01", "ibu_boxplot"):
        assert f"rule {rule}:" in result.stdout


def test_spine_builds_the_ibu_figures_from_the_mirror(tiny_run):
    figures = tiny_run / "results" / "ibu_consistency" / "figures"
    for name in ("fig01a", "fig01b", "fig01c", "fig09a"):
        for ext in ("pdf", "png"):
            assert (figures / f"{name}.{ext}").stat().st_size > 1000
    provenance = yaml.safe_load((tiny_run / "data" / "raw" / "adult.data.provenance.json").read_text())
    assert provenance["source"] == "mirror"
    table = (tiny_run / "results" / "ibu_consistency" / "tables" / "scores.csv").read_text().splitlines()
    assert table[0] == "study,experiment,mechanism,eps,run,method,emd,iterations,capped"
    assert len(table) == 1 + 2 * 2 * 4  # eps x runs x (noisy, INV-N, INV-P, IBU)


def test_deleting_an_intermediate_regenerates_it_and_its_dependents_byte_identically(tiny_run):
    results = sorted(p for p in (tiny_run / "results").rglob("*") if p.is_file())
    before = {p: (sha256(p), p.stat().st_mtime_ns) for p in results}
    point = "ibu_consistency/ages_geometric"
    dependents = {
        f"{point}/scores.csv",
        "ibu_consistency/tables/scores.csv",
        *(f"ibu_consistency/figures/{name}.{ext}" for name in ("fig01a", "fig01b", "fig01c", "fig09a")
          for ext in ("pdf", "png")),
    }
    target = tiny_run / "results" / point / "estimates_ibu.npz"
    # Alone: Snakemake rebuilds it when asked, and its dependents stay as they are since its content is unchanged.
    target.unlink()
    snakemake("--cores", "2", "--directory", str(tiny_run), str(target.relative_to(tiny_run)), cwd=tiny_run)
    snakemake("--cores", "2", "--directory", str(tiny_run), cwd=tiny_run)
    # With its dependents: the default target rebuilds exactly these.
    for path in {f"{point}/estimates_ibu.npz", *dependents}:
        (tiny_run / "results" / path).unlink()
    snakemake("--cores", "2", "--directory", str(tiny_run), cwd=tiny_run)
    after = {p: (sha256(p), p.stat().st_mtime_ns) for p in results}
    assert all(after[p][0] == before[p][0] for p in results), "a regenerated file differs"
    rewritten = {p.relative_to(tiny_run / "results").as_posix() for p in results if after[p][1] != before[p][1]}
    assert rewritten == {f"{point}/estimates_ibu.npz", *dependents}


def test_a_corrupted_mirror_file_fails_in_one_line_and_leaves_no_output(tmp_path):
    write_tiny_mirror(tmp_path / "mirror")
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(tiny_config(tmp_path / "mirror")))
    data = tmp_path / "mirror" / "adult.data"
    raw = bytearray(data.read_bytes())
    raw[10] ^= 0x01
    data.write_bytes(bytes(raw))
    result = snakemake("--cores", "1", "--directory", str(tmp_path), "data/raw/adult.data", cwd=tmp_path,
                       check=False)
    assert result.returncode != 0
    lines = [line for line in (result.stdout + result.stderr).splitlines() if line.startswith("FetchError")]
    assert len(lines) == 1 and "adult.data" in lines[0] and "sha256 mismatch" in lines[0]
    assert not (tmp_path / "data" / "raw" / "adult.data").exists()
    assert not list((tmp_path / "data" / "raw").glob(".adult.data*"))


@pytest.mark.parametrize(
    ("change", "key"),
    [
        ({"scale": "huge"}, "config key scale"),
        ({"ibu_consistency": {"fig01": {"eps": -1}}}, "config key ibu_consistency.fig01.eps"),
        ({"seed": "x"}, "config key seed"),
        ({"unknown_study": {}}, "unknown_study"),
    ],
)
def test_an_invalid_config_fails_before_any_job_naming_the_key(tmp_path, change, key):
    write_tiny_mirror(tmp_path / "mirror")
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(tiny_config(tmp_path / "mirror", **change)))
    result = snakemake("--cores", "1", "--directory", str(tmp_path), cwd=tmp_path, check=False)
    assert result.returncode != 0
    assert key in result.stdout + result.stderr
    assert not (tmp_path / "data").exists() and not (tmp_path / "results").exists()
