"""What every Snakemake script shares: a failure is one line on stderr and exit status 1, and the full traceback in
the job's log; the log of a job that worked records the seconds spent starting the process (interpreter and imports)
and doing the work. While the job runs, whatever it logs through ``logging`` at INFO (progress lines of ``Progress``,
the Shokri LP's rounds, ...) goes to its log, before those lines; its progress lines go to the console too (the
job's stderr, which Snakemake shows), a few of them (``ConsoleGate``), named by the job's log directory.

Every job computes on one thread: the BLAS and OpenMP pools are limited to one thread around the work, whatever the
rule's ``threads``, ``--set-threads`` or OPENBLAS_NUM_THREADS say, since OpenBLAS splits a solve or a product by its
thread count and the last bits of the result follow (measured: the planar INV estimates at 1 and 2 threads). So an
output is byte-identical on any core count; Snakemake runs jobs side by side instead. (Across CPU families it is so
only with OpenBLAS's kernels fixed, OPENBLAS_CORETYPE: docs/site/guide/reproducing.md.)

Set the environment variable ``PRIVEST_TRACEBACK=1`` to get the traceback on stderr too when debugging.
"""

import contextlib
import logging
import os
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
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


LOGGERS = ("privest", "privest_studies")
"""The loggers whose INFO records go to a job's log: the library's (e.g. ``privest.shokri``'s LP rounds) and the study
code's (``Progress`` logs to ``privest_studies.progress``); other libraries' records do not."""


CONSOLE_SECONDS, CONSOLE_STEP, CONSOLE_QUIET = 10.0, 0.1, 60.0
"""The console's progress lines of a job (``ConsoleGate``): at most one every 10 s and 10% of the work, or a minute."""


class ConsoleGate(logging.Filter):
    """Which progress lines of a job reach the console: one once ``seconds`` have passed and ``step`` more of the
    work (a record's ``fraction``, from ``Progress``) is done since the last line shown, or once ``quiet`` seconds
    have passed without one (a long unit's heartbeat, work of unknown size). A job shorter than ``seconds`` shows
    none; a long one about ten, and one a minute at most beyond them."""

    def __init__(self, seconds: float = 10.0, step: float = 0.1, quiet: float = 60.0,
                 clock: Callable[[], float] = time.monotonic):
        super().__init__()
        self.seconds, self.step, self.quiet, self.clock = seconds, step, quiet, clock
        self.last, self.fraction = clock(), 0.0

    def filter(self, record: logging.LogRecord) -> bool:
        now, fraction = self.clock(), getattr(record, "fraction", None)
        since = now - self.last
        moved = fraction is not None and fraction - self.fraction >= self.step - 1e-9  # 0.3 - 0.2 < 0.1 in floats
        if since >= self.quiet or (since >= self.seconds and moved):
            self.last, self.fraction = now, self.fraction if fraction is None else fraction
            return True
        return False


def _console(log: Sequence[str]) -> logging.Handler:
    """A handler of progress records for the console (stderr), gated by ``ConsoleGate``, each line prefixed with the
    job's log directory under logs/ ('ages_mixture/side_by_side_krr: estimate ibu: ...')."""
    parts = Path(log[0]).parent.parts
    below = len(parts) - parts[::-1].index("logs") if "logs" in parts else len(parts) - 1
    name = "/".join(parts[below:]) or Path(log[0]).stem
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(f"{name}: %(message)s"))
    handler.addFilter(ConsoleGate(CONSOLE_SECONDS, CONSOLE_STEP, CONSOLE_QUIET))
    return handler


def _open_log(log: Sequence[str]) -> list[logging.Handler]:
    """Empty the log files and send the INFO records of ``LOGGERS`` to them, one message a line; and a few progress
    lines to the console (``_console``)."""
    handlers: list[logging.Handler] = []
    for path in log:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        handler = logging.FileHandler(path, mode="w")
        handler.setFormatter(logging.Formatter("%(message)s"))
        handlers.append(handler)
    for name in LOGGERS if handlers else ():
        logger = logging.getLogger(name)
        logger.setLevel(logging.INFO)
        for handler in handlers:
            logger.addHandler(handler)
    if handlers:
        console = _console(log)
        logging.getLogger("privest_studies.progress").addHandler(console)
        handlers.append(console)
    return handlers


def _close_log(handlers: Sequence[logging.Handler], text: str) -> None:
    for handler in handlers:
        for name in (*LOGGERS, "privest_studies.progress"):
            logging.getLogger(name).removeHandler(handler)
        handler.close()
        if isinstance(handler, logging.FileHandler):
            with open(handler.baseFilename, "a") as f:
                f.write(text)


def run_or_exit(fn: Callable[[], T], log: Sequence[str] = ()) -> T:
    """Call ``fn()`` with BLAS and OpenMP on one thread; on an exception print one line to stderr and exit with
    status 1.

    ``log``: the job's log files; they receive what the job logs at INFO while it runs, then ``startup_seconds`` and
    ``work_seconds`` on success, the error line and the traceback on failure. Ctrl-C (SIGINT) ends the job with one
    line and status 130; its output is not written (every writer is atomic), so the next run does the job again.
    """
    startup = seconds_since_process_start()
    started = time.perf_counter()
    # The pools loaded so far are limited by threadpool_limits; one loaded later (scipy's OpenBLAS, with the first
    # scipy.linalg call) reads its thread count from the environment when it loads.
    os.environ.update(dict.fromkeys(THREAD_VARIABLES, "1"))
    os.environ["PRIVEST_THREADS"] = "1"  # GIBU's direct sums on bit-packed reports (privest.estimators._bits) likewise
    handlers = _open_log(log)
    try:
        with threadpool_limits(limits=1):
            result = fn()
    except Exception as error:
        if os.environ.get("PRIVEST_TRACEBACK"):
            traceback.print_exc()
        print(one_line(error), file=sys.stderr, flush=True)
        _close_log(handlers, f"error {one_line(error)}\n\n{traceback.format_exc()}")
        raise SystemExit(1) from None
    except KeyboardInterrupt:  # Ctrl-C: Snakemake stops the run and lists the job; the job says so in one line
        print(INTERRUPTED, file=sys.stderr, flush=True)
        _close_log(handlers, f"{INTERRUPTED}\n")
        raise SystemExit(130) from None
    _close_log(handlers, f"startup_seconds {startup:.3f}\nwork_seconds {time.perf_counter() - started:.3f}\n")
    return result


def duration(seconds: float) -> str:
    """A duration as progress lines print it: '45s', '4m50s', '1h05m'."""
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


class Progress:
    """Progress lines of a long job in its log (through ``logging``, which ``run_or_exit`` points at the job's log).

    The work is a sequence of units (e.g. the (point, run)s of an estimate job) with weights, the cost model's
    seconds of each (``privest_studies.cost``). ``with progress.unit(label, count) as details:`` runs ``count`` units
    and then logs ``<job>: <label>, <details>, elapsed 1m12s, remaining ~4m50s (est.)``; the remaining time is the
    weight still to do, scaled by the seconds the units done so far took per unit of weight (the model's own seconds
    before the first unit is done). While a unit runs longer than ``heartbeat`` seconds, a line every ``heartbeat``
    seconds says so (from a daemon thread: the work itself is not interrupted). ``weights`` None: the cost of the work
    is not known (an LP's rounds), and the lines give no remaining time.
    """

    def __init__(self, job: str, weights: Sequence[float] | None, heartbeat: float = 30.0,
                 logger: logging.Logger | None = None, clock: Callable[[], float] = time.monotonic):
        self.job = job
        self.weights = None if weights is None else [float(w) for w in weights]
        self.heartbeat = heartbeat
        self.logger = logger or logging.getLogger("privest_studies.progress")
        self.clock = clock
        self.started = clock()
        self.done = 0
        self._running: tuple[str, float] | None = None
        self._lock = threading.Lock()

    def remaining(self) -> float:
        """Seconds still to go: the weight of the units not done, at the speed measured on the units done."""
        if self.weights is None:
            return float("nan")
        done_weight = sum(self.weights[:self.done])
        speed = (self.clock() - self.started) / done_weight if self.done and done_weight > 0 else 1.0
        return speed * sum(self.weights[self.done:])

    def fraction(self) -> float | None:
        """The share of the work done, by weight (None where the work's size is not known)."""
        if self.weights is None or sum(self.weights) <= 0:
            return None
        return sum(self.weights[:self.done]) / sum(self.weights)

    def line(self, what: str) -> str:
        """``<job>: <what>, elapsed 1m12s, remaining ~4m50s (est.)`` (no remaining time without weights)."""
        left = "" if self.weights is None else f", remaining ~{duration(self.remaining())} (est.)"
        return f"{self.job}: {what}, elapsed {duration(self.clock() - self.started)}{left}"

    def each(self, items: Sequence[T], label: Callable[[T], str]) -> Iterator[T]:
        """The items, each one unit: ``for n, alpha in progress.each(grid, lambda g: f"n={g[0]}")``."""
        for item in items:
            with self.unit(label(item)):
                yield item

    @contextlib.contextmanager
    def unit(self, label: str, count: int = 1) -> Iterator[list[str]]:
        """Run ``count`` units; the caller appends details ('412 iterations') to the yielded list."""
        details: list[str] = []
        stop = threading.Event()
        with self._lock:
            self._running = (label, self.clock())
        beat = threading.Thread(target=self._beat, args=(stop,), daemon=True)
        beat.start()
        try:
            yield details
        finally:
            stop.set()
            beat.join()
            with self._lock:
                self._running = None
        with self._lock:  # the unit is done (not when it raised)
            self.done += count
            self.logger.info(self.line(", ".join([label, *details])), extra={"fraction": self.fraction()})

    def _beat(self, stop: threading.Event) -> None:
        while not stop.wait(self.heartbeat):
            with self._lock:
                if self._running is not None:
                    label, since = self._running
                    self.logger.info(self.line(f"{label} running for {duration(self.clock() - since)}"))
