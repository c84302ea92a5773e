"""The wall time of the examples as the README and the guide say to run them, written to docs/examples-timing.md.

Run from the repository root: ``.venv/bin/python benchmarks/time_examples.py`` (70 s on 2 shared cores). Each
command runs once, in the order below, in a new directory that holds the checkout's files as a fresh clone does
(tracked, or untracked and not ignored) and a link ``.venv`` to this interpreter's environment, so that the commands
run exactly as the docs write them, from the beginning: the own-study example fetches nothing and builds its whole
chain. The record names the commit, the machine, its load average before and after, and the nice level, so a number
taken on a shared machine says so. tests/test_stated_times.py compares every time the README and the guide state with
a committed record, this one included.
"""

import argparse
import datetime
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "docs" / "examples-timing.md"
# What a user runs, as docs/site/guide/own-study.md and the gallery (examples/*.py) write it, from the checkout's root.
OWN_STUDY = ".venv/bin/snakemake --cores all own_studies --configfile examples/own_study/config.yaml"
OWN_REPORT = (".venv/bin/snakemake own_studies --configfile examples/own_study/config.yaml "
              "--report results/report.html")
COLUMNS = "| command | wall time (s) |"


def commands() -> list[str]:
    gallery = [f".venv/bin/python examples/{path.name}" for path in sorted((ROOT / "examples").glob("*.py"))]
    return [*gallery, OWN_STUDY, OWN_REPORT]


def fresh_clone(destination: Path) -> Path:
    """The checkout's files as a clone holds them (tracked, or untracked and not ignored; symbolic links kept): no
    .venv, results/ or caches (snakedeploy's local provider copies the whole directory it is given)."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_symlink() or source.is_file():
            (destination / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination / name, follow_symlinks=False)
    return destination


def fresh_checkout(destination: Path) -> Path:
    """``fresh_clone``, with .venv linked to this environment."""
    fresh_clone(destination)
    (destination / ".venv").symlink_to(Path(sys.prefix))
    return destination


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines() if Path("/proc/cpuinfo").exists() else []:
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown CPU"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=RECORD, help="the record to write (default: %(default)s)")
    args = parser.parse_args()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                            check=True).stdout.strip()
    rows, before = [], load()
    with tempfile.TemporaryDirectory(prefix="privest-examples-") as folder:
        work = fresh_checkout(Path(folder) / "privest")
        env = {**os.environ, "MPLBACKEND": "Agg"}
        for command in commands():
            start = time.perf_counter()
            result = subprocess.run(command.split(), cwd=work, capture_output=True, text=True, env=env)
            seconds = time.perf_counter() - start
            if result.returncode != 0:
                sys.exit(f"{command} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
            rows.append(f"| `{command}` | {seconds:.1f} |")
            print(rows[-1], flush=True)
    nice = os.nice(0)
    lines = [
        "# The examples' wall time, as the docs say to run them",
        "",
        "Written by `benchmarks/time_examples.py`: each command once, in this order, from the root of a fresh copy of "
        "the checkout (`.venv` linked to the environment), nothing built before.",
        "",
        f"Commit {commit}, {datetime.date.today().isoformat()}; {os.cpu_count()} CPUs ({cpu_model()}), Python "
        f"{platform.python_version()}; nice {nice}; load average (1, 5, 15 min) {before} before and {load()} after"
        f"{' (a machine shared with other jobs)' if float(before.split()[0]) > 0.5 else ''}.",
        "",
        COLUMNS,
        "|---|---:|",
        *rows,
        "",
    ]
    args.output.write_text("\n".join(lines))
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
