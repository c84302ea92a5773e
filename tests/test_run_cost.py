"""privest_studies.run_cost: the cost of a run per rule, from Snakemake's run logs and the jobs' benchmark files."""

from pathlib import Path

import pytest

from privest_studies import run_cost

HEADER = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"
LOG = """Select jobs to execute...

[Mon Nov 23 13:03:59 2026]
localrule estimate:
    input: results/s/e/reports.npz
    output: results/s/e/estimates_ibu.npz
    benchmark: benchmarks/s/e/estimate_ibu.tsv
    wildcards: study=s, experiment=e, family=ibu

[Mon Nov 23 13:04:00 2026]
rule estimate:
    benchmark: benchmarks/s/e/estimate_inv.tsv

rule score:
    output: results/s/e/scores.csv
    benchmark: benchmarks/s/e/score.tsv
"""


def write(directory: Path, path: str, *rows: tuple[float, float, float]) -> None:
    file = directory / path
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(HEADER + "".join(f"{s}\t0:00:00\t{rss}\t0\t0\t0\t0\t0\t0\t{cpu}\n" for s, rss, cpu in rows))


def test_each_job_counts_once_under_its_rule_with_its_last_benchmark(tmp_path):
    (tmp_path / ".snakemake" / "log").mkdir(parents=True)
    (tmp_path / ".snakemake" / "log" / "2026-11-23T1.snakemake.log").write_text(LOG)
    (tmp_path / ".snakemake" / "log" / "2026-11-23T2.snakemake.log").write_text(LOG.split("[Mon Nov 23 13:04:00")[0])
    write(tmp_path, "benchmarks/s/e/estimate_ibu.tsv", (100.0, 500.0, 90.0), (120.0, 700.0, 110.0))
    write(tmp_path, "benchmarks/s/e/estimate_inv.tsv", (10.0, 300.0, 9.0))
    write(tmp_path, "benchmarks/s/e/score.tsv", (5.0, 50.0, 4.0))
    table = run_cost.per_rule(tmp_path).set_index("rule")
    assert table.loc["estimate"].to_dict() == pytest.approx(
        {"jobs": 2, "seconds": 130.0, "largest_job_seconds": 120.0, "cpu_seconds": 119.0, "peak_rss_mb": 700.0})
    assert table.loc["score", "jobs"] == 1
    text = run_cost.markdown(run_cost.per_rule(tmp_path))
    assert "| estimate | 2 | 2.2 min | 2.0 min | 2.0 min | 700 MB |" in text
    assert text.rstrip().endswith("the largest peak RSS of one job 700 MB (estimate).")


def test_the_wall_time_sums_the_invocations_that_finished_jobs_from_first_to_last_stamp(tmp_path):
    logs = tmp_path / ".snakemake" / "log"
    logs.mkdir(parents=True)
    finished = "[Mon Nov 23 13:34:00 2026]\nFinished jobid: 3 (Rule: score)\n"
    (logs / "2026-11-23T1.snakemake.log").write_text(LOG + "\n" + finished)
    dry_run = "Building DAG of jobs...\n[Mon Nov 23 14:00:00 2026]\nlocalrule all:\n"
    (logs / "2026-11-23T2.snakemake.log").write_text(dry_run)
    next_day = ("[Tue Nov 24 09:05:00 2026]\nrule estimate:\n\n"
                "[Tue Nov 24 10:05:30 2026]\nFinished jobid: 1 (Rule: estimate)\n")
    (logs / "2026-11-23T3.snakemake.log").write_text(next_day)
    spans = run_cost.invocations(tmp_path)
    assert [(end - start).total_seconds() for start, end in spans] == [1801.0, 3630.0]  # the dry run left out
    line = run_cost.wall_time(spans)
    assert line.startswith("Wall time of the run: 1.51 h over 2 Snakemake invocations that ran jobs "
                           "(2026-11-23 13:03:59 to 13:34:00; 2026-11-24 09:05:00 to 10:05:30;")
    assert run_cost.wall_time([]) == "No Snakemake invocation in the run logs finished a job."
