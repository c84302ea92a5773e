"""What every benchmark script times and prints with: the best wall time of a few calls, durations and powers of ten
as they read in the tables. Imported by the scripts of benchmarks/ (run from the repository root)."""

import time
from collections.abc import Callable
from typing import TypeVar

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
