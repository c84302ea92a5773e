"""privest_studies.jobs: what a job writes to its log while it runs (progress lines) and after."""

import logging
import time

import numpy as np
import pytest

from privest import counts, shokri
from privest.alphabets import Alphabet
from privest_studies import jobs


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize(("seconds", "text"), [(0.4, "0s"), (45, "45s"), (72, "1m12s"), (290, "4m50s"),
                                               (3900, "1h05m")])
def test_duration_reads_as_the_progress_lines_print_it(seconds, text):
    assert jobs.duration(seconds) == text


def test_progress_scales_the_remaining_weight_by_the_speed_of_the_units_done(caplog):
    clock = Clock()
    progress = jobs.Progress("estimate gibu", [10.0, 10.0, 20.0, 40.0], heartbeat=3600, clock=clock)
    assert progress.remaining() == 80.0  # before any unit: the model's own seconds
    with caplog.at_level(logging.INFO, logger="privest_studies.progress"):
        with progress.unit("point n=1000 run 1/4") as details:
            clock.now += 30.0  # three times slower than the model
            details.append("412 iterations")
        with progress.unit("point n=1000 runs 2-3/4", 2):
            clock.now += 90.0
    assert [r.getMessage() for r in caplog.records] == [
        "estimate gibu: point n=1000 run 1/4, 412 iterations, elapsed 30s, remaining ~3m30s (est.)",
        "estimate gibu: point n=1000 runs 2-3/4, elapsed 2m00s, remaining ~2m00s (est.)"]


def test_a_unit_that_raises_is_not_counted_as_done(caplog):
    progress = jobs.Progress("job", [1.0, 1.0], heartbeat=3600)
    with caplog.at_level(logging.INFO, logger="privest_studies.progress"), pytest.raises(ValueError):
        for _ in progress.each([1, 2], str):
            raise ValueError("no")
    assert progress.done == 0 and not caplog.records


def test_progress_logs_a_heartbeat_while_a_long_unit_runs(caplog):
    progress = jobs.Progress("fw_shokri linear Q=0.5", None, heartbeat=0.05)
    with caplog.at_level(logging.INFO, logger="privest_studies.progress"):
        with progress.unit("Shokri LP"):
            time.sleep(0.3)
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) >= 3 and lines[-1].startswith("fw_shokri linear Q=0.5: Shokri LP, elapsed ")
    assert all(line.startswith("fw_shokri linear Q=0.5: Shokri LP running for ") for line in lines[:-1])
    assert not any("remaining" in line for line in lines)  # no weights: no estimate of the time left


def test_an_lp_job_logs_each_lp_round_and_its_progress_before_the_seconds(tmp_path):
    log = tmp_path / "logs" / "job.log"

    def lp_job() -> None:
        progress = jobs.Progress("counts_optimal", [9, 36])
        for n in progress.each([2, 5], lambda n: f"LP n={n}"):
            counts.optimal(n, 0.8, "L1")
        with jobs.Progress("fw_shokri", None).unit("Shokri LP") as details:
            solution = shokri.solve_shokri(Alphabet(12).distances(), 0.5, nearest=2)
            details.append(f"{solution.rounds} rounds")

    jobs.run_or_exit(lp_job, [str(log)])
    lines = log.read_text().splitlines()
    assert lines[0].startswith("counts_optimal: LP n=2, elapsed ") and lines[0].endswith(" (est.)")
    assert lines[1].startswith("counts_optimal: LP n=5, elapsed ") and lines[1].endswith("remaining ~0s (est.)")
    rounds = [line for line in lines if line.startswith("Shokri LP round ")]
    assert rounds and lines[len(rounds) + 2].startswith(f"fw_shokri: Shokri LP, {len(rounds)} rounds, elapsed ")
    assert [line.split()[0] for line in lines[-2:]] == ["startup_seconds", "work_seconds"]
    assert not logging.getLogger("privest").handlers  # the job's log is detached when it ends
    np.testing.assert_equal(len(lines), len(rounds) + 5)


def test_the_console_shows_a_few_progress_lines_of_a_long_job_and_none_of_a_short_one(tmp_path, capsys,
                                                                                      monkeypatch):
    """Issue 48: per-run progress was only in the job's log. The console (the job's stderr) gets a line once 10 s have
    passed and 10% more of the work is done, or after a quiet minute; each named by the job's log directory."""
    clock = Clock()
    gate = jobs.ConsoleGate(clock=clock)
    shown = []
    for unit in range(100):  # 100 equal units of 1 s: 10 lines, one each 10% and 10 s
        clock.now += 1.0
        record = logging.makeLogRecord({"msg": f"unit {unit + 1}", "fraction": (unit + 1) / 100})
        if gate.filter(record):
            shown.append(record.getMessage())
    assert shown == [f"unit {u}" for u in range(10, 101, 10)]
    clock.now += 59.0  # a heartbeat of unknown progress: shown after a quiet minute only
    assert not gate.filter(logging.makeLogRecord({"msg": "running"}))
    clock.now += 1.0
    assert gate.filter(logging.makeLogRecord({"msg": "running"}))

    def job(units: int, seconds: float) -> None:
        progress = jobs.Progress("estimate ibu", [1.0] * units, heartbeat=3600)
        for _ in progress.each(range(units), lambda u: f"run {u + 1}/{units}"):
            time.sleep(seconds)

    log = tmp_path / "logs" / "mine" / "cmp_oue" / "estimate_ibu.log"
    jobs.run_or_exit(lambda: job(3, 0.01), [str(log)])
    assert capsys.readouterr().err == ""  # a short job: its log only
    assert len([line for line in log.read_text().splitlines() if line.startswith("estimate ibu: run ")]) == 3
    assert not logging.getLogger("privest_studies.progress").handlers  # the console's handler is detached too
    monkeypatch.setattr(jobs, "CONSOLE_SECONDS", 0.05)  # a 'long' job, in 0.4 s
    jobs.run_or_exit(lambda: job(20, 0.02), [str(log)])
    lines = capsys.readouterr().err.splitlines()
    assert 3 <= len(lines) <= 10 and all(line.startswith("mine/cmp_oue: estimate ibu: run ") for line in lines)
