"""How many sbatch submissions a run through this profile makes, with the profile's grouping and without it.

A dry run with the profile lists every job to run; each group job is one submission, and so is every job outside a
group except those of local rules (`localrule: True` or a rule with nothing to run), which run on the submit host.

    .venv/bin/python workflow/profiles/slurm/count_submissions.py [--directory DIR] [--scale quick|paper] [targets]

DIR holds the config.yaml to use (default: the project root). Prints one line per grouping.
"""

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

PROFILE = Path(__file__).resolve().parent
ROOT = PROFILE.parents[2]
SUBMITTING_DIRECTIVES = ("run:", "shell:", "script:", "notebook:", "wrapper:", "cwl:", "template_engine:")


def local_rules(files: list[Path]) -> set[str]:
    """Rules that run on the submit host: `localrule: True`, listed in `localrules:`, or with nothing to run."""
    local = set()
    for path in files:
        text = path.read_text()
        for block in re.split(r"^(?=(?:rule|checkpoint) \w+)", text, flags=re.MULTILINE):
            header = re.match(r"(?:rule|checkpoint) (\w+)", block)
            if header is None:
                continue
            directives = {line.strip().split()[0] for line in block.splitlines()[1:] if line.strip()}
            if re.search(r"^\s+localrule:\s*True", block, flags=re.MULTILINE) or not directives & set(
                SUBMITTING_DIRECTIVES
            ):
                local.add(header.group(1))
        for listed in re.findall(r"^localrules:\s*(.+)$", text, flags=re.MULTILINE):
            local |= {name.strip() for name in listed.split(",")}
    return local


def submissions(dry_run: str, local: set[str]) -> int:
    """sbatch submissions of a dry run's job list: group jobs, and jobs of non-local rules outside any group."""
    groups = len(re.findall(r"^\[.*\] Group job ", dry_run, flags=re.MULTILINE))
    rules = re.findall(r"^(?:rule|checkpoint) (\w+):$", dry_run, flags=re.MULTILINE)
    return groups + sum(rule not in local for rule in rules)


def profile_without_groups(directory: Path) -> Path:
    """A copy of this profile without `groups` and `group-components`: every job its own submission."""
    settings = yaml.safe_load((PROFILE / "config.yaml").read_text())
    settings.pop("groups", None)
    settings.pop("group-components", None)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "config.yaml").write_text(yaml.safe_dump(settings))
    return directory


def count(workdir: Path, scale: str, targets: list[str], grouped: bool, extra: tuple[str, ...] = ()) -> int:
    """sbatch submissions of a run from scratch in `workdir` (its config.yaml) at `scale` through this profile."""
    with tempfile.TemporaryDirectory(prefix="privest-profile-") as scratch:
        profile = PROFILE if grouped else profile_without_groups(Path(scratch) / "slurm")
        result = subprocess.run(
            [sys.executable, "-m", "snakemake", *targets, "--snakefile", str(ROOT / "Snakefile"), "--directory",
             str(workdir), "--profile", str(profile), "--dry-run", "--forceall", "--config", f"scale={scale}", *extra],
            capture_output=True, text=True, check=False, cwd=workdir,
        )
    if result.returncode != 0:
        raise RuntimeError(f"dry run failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    rule_files = [ROOT / "workflow" / "Snakefile", *sorted((ROOT / "workflow" / "rules").glob("*.smk"))]
    return submissions(result.stdout, local_rules(rule_files))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--directory", type=Path, default=ROOT, help="working directory with config.yaml")
    parser.add_argument("--scale", choices=["quick", "paper"], nargs="+", default=["quick", "paper"])
    parser.add_argument("targets", nargs="*", help="snakemake targets (default: all)")
    args = parser.parse_args()
    if shutil.which("sbatch") is None:
        print("note: SLURM not installed here; the dry run needs only the executor plugin", file=sys.stderr)
    for scale in args.scale:
        grouped = count(args.directory, scale, args.targets, grouped=True)
        single = count(args.directory, scale, args.targets, grouped=False)
        print(f"{scale}: {single} sbatch submissions without grouping, {grouped} with the profile's grouping")


if __name__ == "__main__":
    main()
