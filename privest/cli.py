"""What every Snakemake script shares: a failure is one line on stderr and exit status 1, not a traceback.

Set the environment variable ``PRIVEST_TRACEBACK=1`` to get the full traceback when debugging.
"""

import os
import sys
import traceback
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def one_line(error: BaseException) -> str:
    """``ErrorType: message`` on a single line (newlines and runs of spaces collapsed)."""
    message = " ".join(str(error).split())
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


def run_or_exit(fn: Callable[[], T]) -> T:
    """Call ``fn()``; on an exception print one line to stderr and exit with status 1."""
    try:
        return fn()
    except Exception as error:
        if os.environ.get("PRIVEST_TRACEBACK"):
            traceback.print_exc()
        print(one_line(error), file=sys.stderr, flush=True)
        raise SystemExit(1) from None
