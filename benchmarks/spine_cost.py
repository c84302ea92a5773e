"""The cost of the pipeline's jobs: how many, how long, and how much of each rule's time is process start-up.

Runs the pipeline from scratch at the quick scale in a temporary directory (data from the mirror of config.yaml),
then reads every job's log, where privest_studies.jobs records the seconds from process start to the job's work
(interpreter, Snakemake's script preamble and imports) and the seconds of work. Prints one row per rule.

    .venv/bin/python benchmarks/spine_cost.py [--keep DIR] [snakemake targets...]
"""

import argparse
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def rule_of(log: Path, logs: Path) -> str:
    """The rule family of a job's log (logs/<study>/[<experiment>/]<step>.log): study and step."""
    parts = log.relative_to(logs).with_suffix("").parts
    return f"{parts[0]}:{parts[-1]}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keep", type=Path, help="run in this directory (kept) instead of a temporary one")
    parser.add_argument("targets", nargs="*", help="snakemake targets (default: all)")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="privest-cost-"))
    work.mkdir(parents=True, exist_ok=True)
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    config["data"]["mirror"] = str((ROOT / config["data"]["mirror"]).resolve())
    (work / "config.yaml").write_text(yaml.safe_dump(config))
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"), "--directory",
                    str(work), "--cores", "2", *args.targets, "--quiet", "all"], cwd=work, check=True)
    wall = time.perf_counter() - started
    startup: dict[str, float] = defaultdict(float)
    work_seconds: dict[str, float] = defaultdict(float)
    jobs: dict[str, int] = defaultdict(int)
    logs = work / "logs"
    for log in sorted(logs.rglob("*.log")):
        fields = dict(line.split(maxsplit=1) for line in log.read_text().splitlines() if line.strip())
        family = rule_of(log, logs)
        jobs[family] += 1
        startup[family] += float(fields["startup_seconds"])
        work_seconds[family] += float(fields["work_seconds"])
    print(f"{sum(jobs.values())} jobs, wall time {wall:.1f} s on 2 cores, in {work}")
    print(f"{'rule family':40s} {'jobs':>5s} {'start-up s':>10s} {'work s':>8s} {'start-up share':>15s}")
    for family in sorted(jobs):
        share = startup[family] / (startup[family] + work_seconds[family])
        print(f"{family:40s} {jobs[family]:5d} {startup[family]:10.2f} {work_seconds[family]:8.2f} {share:15.0%}")


if __name__ == "__main__":
    main()
