"""What every Snakemake script shares: a failure is one line on stderr and exit status 1, and the full traceback in
the job's log; the log of a job that worked records the seconds spent starting the process (interpreter and imports)
and doing the work.

Every job computes on one thread: the BLAS and OpenMP pools are limited to one thread around the work, whatever the
rule's ``threads``, ``--set-threads`` or OPENBLAS_NUM_THREADS say, since OpenBLAS splits a solve or a product by its
thread count and the last bits of the result follow (measured: the planar INV estimates at 1 and 2 threads). So an
output is byte-identical on any core count and node; Snakemake runs jobs side by side instead.

Set the environment variable ``PRIVEST_TRACEBACK=1`` to get the traceback on stderr too when debugging.
"""

import os
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from threadpoolctl import threadpool_limits

T = TypeVar("T")
INTERRUPTED = "interrupted (Ctrl-C): this job wrote no output; the next run does it again"
# The variables of the BLAS and OpenMP libraries that set their thread count when they load (Snakemake's list).
THREAD_VARIABLES = ("OMP_NUM_THREADS", "GOTO_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                    "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")


def one_line(error: BaseException) -> str:
    """``ErrorType: message`` on a single line (newlines and runs of spaces collapsed)."""
    message = " ".join(str(error).split())
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


def seconds_since_process_start() -> float:
    """Seconds since this process started (Linux: from /proc), i.e. the interpreter's start-up and the imports so
    far when called first thing in a job; NaN where /proc is not available."""
    try:
        start_ticks = int(Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19])
        uptime = float(Path("/proc/uptime").read_text().split()[0])
    except (OSError, IndexError, ValueError):
        return float("nan")
    return uptime - start_ticks / os.sysconf("SC_CLK_TCK")


def _write_log(log: Sequence[str], text: str) -> None:
    for path in log:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(text)


def run_or_exit(fn: Callable[[], T], log: Sequence[str] = ()) -> T:
    """Call ``fn()`` with BLAS and OpenMP on one thread; on an exception print one line to stderr and exit with
    status 1.

    ``log``: the job's log files; they receive ``startup_seconds`` and ``work_seconds`` on success, the error line and
    the traceback on failure. Ctrl-C (SIGINT) ends the job with one line and status 130; its output is not written
    (every writer is atomic), so the next run does the job again.
    """
    startup = seconds_since_process_start()
    started = time.perf_counter()
    # The pools loaded so far are limited by threadpool_limits; one loaded later (scipy's OpenBLAS, with the first
    # scipy.linalg call) reads its thread count from the environment when it loads.
    os.environ.update(dict.fromkeys(THREAD_VARIABLES, "1"))
    try:
        with threadpool_limits(limits=1):
            result = fn()
    except Exception as error:
        if os.environ.get("PRIVEST_TRACEBACK"):
            traceback.print_exc()
        print(one_line(error), file=sys.stderr, flush=True)
        _write_log(log, f"error {one_line(error)}\n\n{traceback.format_exc()}")
        raise SystemExit(1) from None
    except KeyboardInterrupt:  # Ctrl-C: Snakemake stops the run and lists the job; the job says so in one line
        print(INTERRUPTED, file=sys.stderr, flush=True)
        _write_log(log, f"{INTERRUPTED}\n")
        raise SystemExit(130) from None
    _write_log(log, f"startup_seconds {startup:.3f}\nwork_seconds {time.perf_counter() - started:.3f}\n")
    return result
