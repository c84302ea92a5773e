"""What a run of the pipeline cost, per rule: jobs, wall seconds (total, largest), CPU seconds and peak memory, from
the benchmark file every job writes (``benchmark:`` of its rule) and Snakemake's run logs, which name each job's rule
and benchmark file. Used by rule scale_record (docs/<scale>-scale/cost.md) and benchmarks/run_summary.py.

It reads <working directory>/.snakemake/log/*.snakemake.log and the benchmark files they name. A job run more than
once (a run resumed after an interruption, a forced rerun) counts once, with its last benchmark file.
"""

import re
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

import pandas as pd

JOB = re.compile(r"^(?:local)?rule (?P<rule>\w+):$")
BENCHMARK = re.compile(r"^\s+benchmark: (?P<path>\S+)$")
STAMP = re.compile(r"^\[(?P<when>\w{3} \w{3} +\d+ \d\d:\d\d:\d\d \d{4})\]$")
FINISHED = "Finished jobid"


def invocations(directory: Path) -> list[tuple[datetime, datetime]]:
    """The span of each Snakemake invocation that ran jobs, from its run log: the first time stamp (a job's start) and
    the last (a job's end). A dry run, or a run that did nothing, finishes no job and is left out."""
    spans = []
    for log in sorted((directory / ".snakemake" / "log").glob("*.snakemake.log")):
        lines = log.read_text(errors="replace").splitlines()
        stamps = [datetime.strptime(" ".join(m["when"].split()), "%a %b %d %H:%M:%S %Y")
                  for line in lines if (m := STAMP.match(line))]
        if stamps and any(line.startswith(FINISHED) for line in lines):
            spans.append((stamps[0], stamps[-1]))
    return spans


def benchmark_rules(logs: Iterable[Path]) -> dict[str, str]:
    """Benchmark file -> the rule of the job that writes it, from Snakemake's run logs (each job's block names its
    rule on its first line and its benchmark file below)."""
    rules: dict[str, str] = {}
    for log in logs:
        rule = None
        for line in log.read_text(errors="replace").splitlines():
            if match := JOB.match(line):
                rule = match["rule"]
            elif (match := BENCHMARK.match(line)) and rule is not None:
                rules[match["path"]] = rule
            elif not line.strip():
                rule = None
    return rules


def per_rule(directory: Path) -> pd.DataFrame:
    """One row per rule: jobs, wall seconds (sum, max), CPU seconds (sum) and peak resident memory (MB, max)."""
    rules = benchmark_rules(sorted((directory / ".snakemake" / "log").glob("*.snakemake.log")))
    rows = []
    for path, rule in rules.items():
        file = directory / path
        if not file.is_file():
            continue
        last = pd.read_csv(file, sep="\t").iloc[-1]
        rows.append({"rule": rule, "seconds": float(last["s"]), "cpu_seconds": float(last["cpu_time"]),
                     "max_rss_mb": float(last["max_rss"])})
    if not rows:
        raise FileNotFoundError(f"no benchmark files named by the run logs of {directory}")
    jobs = pd.DataFrame(rows)
    table = jobs.groupby("rule").agg(jobs=("seconds", "size"), seconds=("seconds", "sum"),
                                     largest_job_seconds=("seconds", "max"), cpu_seconds=("cpu_seconds", "sum"),
                                     peak_rss_mb=("max_rss_mb", "max"))
    return table.sort_values("seconds", ascending=False).reset_index()


def duration(seconds: float) -> str:
    """'2.04 h', '2.2 min', '5.0 s'."""
    return f"{seconds / 3600:.2f} h" if seconds >= 3600 else (
        f"{seconds / 60:.1f} min" if seconds >= 60 else f"{seconds:.1f} s")


def wall_time(spans: list[tuple[datetime, datetime]]) -> str:
    """One line: how long the run's Snakemake invocations took, summed, and when they ran."""
    if not spans:
        return "No Snakemake invocation in the run logs finished a job."
    total = sum((end - start).total_seconds() for start, end in spans)
    listed = "; ".join(f"{start:%Y-%m-%d %H:%M:%S} to {end:%H:%M:%S}" for start, end in spans)
    return (f"Wall time of the run: {duration(total)} over {len(spans)} Snakemake invocation"
            f"{'s' if len(spans) > 1 else ''} that ran jobs ({listed}; from each one's first job start to its last "
            "job end, by Snakemake's run log).")


def markdown(table: pd.DataFrame) -> str:
    """The table with durations in hours, minutes or seconds, and the totals."""

    lines = ["| rule | jobs | wall time (sum of jobs) | largest job | CPU time | peak RSS |",
             "|---|---:|---:|---:|---:|---:|"]
    lines += [f"| {r.rule} | {r.jobs} | {duration(r.seconds)} | {duration(r.largest_job_seconds)} | "
              f"{duration(r.cpu_seconds)} | {r.peak_rss_mb:,.0f} MB |" for r in table.itertuples()]
    lines += ["", f"{table['jobs'].sum()} jobs with a benchmark file; the sum of their wall times "
              f"{duration(table['seconds'].sum())}, "
              f"CPU time {table['cpu_seconds'].sum() / 3600:.2f} CPU hours; the largest peak RSS of one job "
              f"{table['peak_rss_mb'].max():,.0f} MB ({table.loc[table['peak_rss_mb'].idxmax(), 'rule']})."]
    return "\n".join(lines) + "\n"
