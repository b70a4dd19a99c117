"""Pure: figures as pages, cards and commands write them. Intervals in brackets, never with a dash between two
numbers that may be negative ("−0.227–−0.198" reads as a range from a subtraction), and a true minus sign."""
from __future__ import annotations

from datetime import datetime

MINUS = "\u2212"


def number(value: float | None, digits: int = 3, *, percent: bool = False) -> str:
    """`value` to `digits` decimals (as a percentage with `percent`), with a minus sign; "—" for none."""
    if value is None:
        return "—"
    text = f"{100 * value if percent else value:.{digits}f}"
    if text.lstrip("-").strip("0.") == "":
        text = text.lstrip("-")  # no "−0.000"
    return text.replace("-", MINUS) + (" %" if percent else "")


def interval(low: float | None, high: float | None, digits: int = 3, *, percent: bool = False) -> str:
    """[low, high], or "—" when the interval is undefined."""
    if low is None or high is None:
        return "—"
    return f"[{number(low, digits, percent=percent)}, {number(high, digits, percent=percent)}]"


def days_left(end: datetime, now: datetime) -> int:
    """Whole days from `now` to `end`, the day it ends counted (1 on its last day), 0 once it has passed."""
    left = end - now
    if left.total_seconds() <= 0:
        return 0
    return left.days + (1 if left.seconds or left.microseconds else 0)
