"""Numbers as a check writes ours and as the paper prints its own: short forms, and equality to the printed
precision."""

import numpy as np


def fmt(x: float, digits: int = 4) -> str:
    """A number with `digits` significant digits (thousands separated when large)."""
    if isinstance(x, (int, np.integer)) or (isinstance(x, float) and x.is_integer() and abs(x) >= 1000):
        return f"{int(x):,}"
    return f"{x:.{digits}g}"


def printed_decimals(printed: str) -> int:
    """Decimals of a number as the paper prints it: '0.224' -> 3, '7238' -> 0."""
    return len(printed.split(".")[1]) if "." in printed else 0


def as_printed(ours: float, printed: str) -> bool:
    """ours equals the printed number to the printed precision: |ours - printed| <= half a unit of its last digit."""
    return abs(ours - float(printed)) <= 0.5 * 10.0 ** -printed_decimals(printed) + 1e-12


def as_printed_tolerance(printed: str) -> str:
    """The tolerance of ``as_printed`` as the report states it: '0.224' -> 'as printed: within 0.0005'."""
    return f"as printed: within {0.5 * 10.0 ** -printed_decimals(printed):g}"
