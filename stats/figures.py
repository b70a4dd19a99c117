"""Pure: the shape every agreement figure takes, so that no number travels without what it was made of."""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable
from dataclasses import asdict, dataclass, field


@dataclass
class Figure:
    """One agreement statistic with its provenance: level, type, the reports and raters it used, the
    categories, what was left out and why, and the method. `value` is None when the statistic is undefined,
    and `undefined_because` says why (never NaN)."""

    method: str
    level: str
    type: str = ""  # "" for the type level itself; else the type code whose reports were used
    value: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    observed: float | None = None
    expected: float | None = None
    n_reports: int = 0
    n_raters: int = 0
    categories: list[str] = field(default_factory=list)
    left_out: list[tuple[Hashable, str]] = field(default_factory=list)
    undefined_because: str = ""
    per_category: dict[str, float | None] = field(default_factory=dict)

    def set_interval(self, low: float | None, high: float | None) -> None:
        self.ci_low, self.ci_high = low, high

    def left_out_reasons(self) -> dict[str, int]:
        return dict(Counter(reason for _, reason in self.left_out))

    def as_dict(self) -> dict:
        data = asdict(self)
        data["left_out"] = len(self.left_out)
        data["left_out_reasons"] = self.left_out_reasons()
        return data


def finite(value: float) -> float | None:
    """None for NaN or infinity: a figure is a number or undefined, never NaN on a page."""
    return float(value) if value is not None and math.isfinite(value) else None
