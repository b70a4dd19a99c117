"""Proportions with Wilson's score interval (Wilson 1927; Newcombe 1998, method 3), the one interval every
share in Concord is given: it stays inside [0, 1] and does not call 0 of 15 certain."""
from __future__ import annotations

from dataclasses import dataclass

from .lazy_numpy import np


def wilson(successes, n, confidence: float = 0.95):
    """Wilson's interval of successes / n, as floats, or element-wise as arrays when given arrays."""
    from statsmodels.stats.proportion import proportion_confint  # deferred: heavy, a second to import

    low, high = proportion_confint(successes, n, alpha=1 - confidence, method="wilson")
    if np.ndim(low):
        return np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    return float(low), float(high)


@dataclass(frozen=True)
class Rate:
    successes: int
    n: int
    low: float | None
    high: float | None

    @property
    def value(self) -> float | None:
        return self.successes / self.n if self.n else None


def rate(successes: int, n: int, confidence: float = 0.95) -> Rate:
    """successes / n with its Wilson interval; no interval on no trials."""
    if n == 0:
        return Rate(0, 0, None, None)
    return Rate(successes, n, *wilson(successes, n, confidence))
