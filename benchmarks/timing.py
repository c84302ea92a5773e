"""What every benchmark script times and prints with: the best wall time of a few calls, durations and powers of ten
as they read in the tables. Imported by the scripts of benchmarks/ (run from the repository root)."""

import time
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

T = TypeVar("T")


def best_time(fn: Callable[[], T], repeats: int = 1) -> tuple[float, T]:
    """The shortest wall time in seconds of ``repeats`` calls of fn, and the result of the last call."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def interleaved(functions: dict[str, Callable[[], Any]], rounds: int, calls: int = 1) -> dict[str, float]:
    """The median wall time of one call of each function over ``rounds`` rounds, each round running every function
    ``calls`` times, in turn (several calls a round for the cheap ones: a timer's and a busy machine's noise)."""
    times: dict[str, list[float]] = {name: [] for name in functions}
    for _ in range(rounds):
        for name, fn in functions.items():
            start = time.perf_counter()
            for _ in range(calls):
                fn()
            times[name].append((time.perf_counter() - start) / calls)
    return {name: float(np.median(t)) for name, t in times.items()}


def seconds(s: float) -> str:
    """A duration with a unit chosen so that it reads as 1 to 999 (s, ms or µs)."""
    if s >= 1:
        return f"{s:.3g} s"
    if s >= 1e-3:
        return f"{s * 1e3:.3g} ms"
    return f"{s * 1e6:.3g} µs"


def powers(n: int) -> str:
    """n written as 10^j when it is a power of ten."""
    j = round(np.log10(n))
    return f"10^{j}" if 10**j == n else str(n)
