"""Pure: confidence sequences for a share sampled without replacement from a finite population, valid at every
stopping time (Waudby-Smith & Ramdas, "Confidence sequences for sampling without replacement", NeurIPS 2020;
"Estimating means of bounded random variables by betting", JRSS-B 2024).

A fixed-n interval read after every vote is no longer 95 %: stopping the first time it clears a threshold errs
far more often than 5 %. A confidence sequence may be read after every vote and acted on at once.

The hedged capital process: for each candidate share m, two gamblers bet that the next item is above (below)
what m leaves for the items not drawn yet, μ_t(m) = (N·m − S_{t−1}) / (N − t + 1); their capitals
K⁺_t(m) = Π(1 + λ⁺_i (x_i − μ_i(m))) and K⁻_t(m) = Π(1 − λ⁻_i (x_i − μ_i(m))) are martingales when m is the
population's share, so by Ville's inequality max(K⁺, K⁻)/2 passes 1/α with probability α at most, ever. The
sequence at t is every m whose capital has not: its smallest and largest on a grid, widened by a grid step,
kept inside what the draws prove (S_t of the N are ones, t − S_t are zeros), and intersected over time.
The bets are the predictable plug-in λ_t = √(2 log(1/α) / (σ̂²_{t−1} t log(1 + t))), σ̂² a running variance
that starts from 1/4, capped at half of what keeps the capital positive.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .lazy_numpy import np

GRID = 1000  # candidate shares 0, 0.001, …, 1


def _bets(x: np.ndarray, alpha: float) -> np.ndarray:
    t = np.arange(1, len(x) + 1)
    mean = (0.5 + np.cumsum(x)) / (t + 1)
    variance = (0.25 + np.cumsum((x - mean) ** 2)) / (t + 1)
    before = np.append(0.25, variance[:-1])
    return np.sqrt(2 * math.log(1 / alpha) / (before * t * np.log1p(t)))


CHUNK = 1024  # draws computed at a time: the grid × draws arrays stay a few megabytes however long the sample


def sequence(x, population: int | None = None, alpha: float = 0.05, grid: int = GRID
             ) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper ends of the (1 − α) confidence sequence for the share of ones, after each of the draws
    `x` (0/1, or values in [0, 1]) taken in the order they were drawn, without replacement from `population`
    items (None: with replacement, or from a population too large to matter)."""
    x = np.asarray(x, dtype=float)
    n = len(x)
    if n == 0:
        return np.zeros(0), np.zeros(0)
    if population is not None and n > population:
        raise ValueError(f"{n} draws without replacement from {population} items")
    m = np.linspace(0.0, 1.0, grid + 1)[:, None]
    bets = _bets(x, alpha)
    drawn_before = np.append(0.0, np.cumsum(x)[:-1])
    low, high = np.empty(n), np.empty(n)
    # Carried from one chunk of draws to the next: each candidate's log capitals, and whether it is impossible.
    log_up, log_down = np.zeros((grid + 1, 1)), np.zeros((grid + 1, 1))
    gone = np.zeros((grid + 1, 1), dtype=bool)
    for start in range(0, n, CHUNK):
        t = np.arange(start, min(n, start + CHUNK))
        xs, bet = x[t], bets[t][None, :]
        if population is not None:
            mu = (population * m - drawn_before[t]) / (population - t)
        else:
            mu = np.broadcast_to(m, (grid + 1, len(t)))
        # Once a candidate is impossible (more ones or zeros drawn than it leaves room for), it stays out.
        gone = np.logical_or.accumulate(np.hstack([gone, (mu < 0) | (mu > 1)]), axis=1)
        mu = np.clip(mu, 0.0, 1.0)
        with np.errstate(divide="ignore"):
            up = np.minimum(bet, 0.5 / mu)
            down = np.minimum(bet, 0.5 / (1 - mu))
        # Summed in the same order as one cumulative sum over every draw would: the carried total first.
        log_up = np.cumsum(np.hstack([log_up, np.log1p(up * (xs - mu))]), axis=1)
        log_down = np.cumsum(np.hstack([log_down, np.log1p(-down * (xs - mu))]), axis=1)
        inside = ~(np.maximum(log_up[:, 1:], log_down[:, 1:]) + math.log(0.5) >= math.log(1 / alpha)) & ~gone[:, 1:]
        any_inside = inside.any(axis=0)
        first = np.argmax(inside, axis=0)
        last = grid - np.argmax(inside[::-1], axis=0)
        low[t] = np.where(any_inside, np.maximum(0.0, first / grid - 1 / grid), 0.0)
        high[t] = np.where(any_inside, np.minimum(1.0, last / grid + 1 / grid), 1.0)
        log_up, log_down, gone = log_up[:, -1:], log_down[:, -1:], gone[:, -1:]
    if population is not None:
        ones, t = np.cumsum(x), np.arange(1, n + 1)
        low = np.maximum(low, ones / population)
        # (N − zeros) / N, not 1 − zeros / N: once every item is read the two ends are the same division,
        # ones / N, bit for bit; the other form can land a rounding step below the lower end.
        high = np.minimum(high, (population - (t - ones)) / population)
    # Each end is as good as the best seen so far: every one of them held at once, with probability 1 − α.
    low, high = np.maximum.accumulate(low), np.minimum.accumulate(high)
    if population is not None and n == population:
        # Every item read: the share is known, whatever the bets said on a grid that need not hold it (299 items'
        # shares k/299 lie between the grid's points, and their neighbours' capitals grow fast near the end).
        low[-1] = high[-1] = float(np.sum(x)) / population
    return low, high


@dataclass(frozen=True)
class Stop:
    n: int  # the draws read when the sequence first cleared the threshold
    meets: bool  # above it (lower end at or over), or below it (upper end under)
    low: float
    high: float


def first_clear(low: np.ndarray, high: np.ndarray, threshold: float) -> Stop | None:
    """The first time the sequence lies wholly on one side of `threshold`, or None if it never has."""
    cleared = (low >= threshold) | (high < threshold)
    if not cleared.any():
        return None
    t = int(np.argmax(cleared))
    return Stop(t + 1, bool(low[t] >= threshold), float(low[t]), float(high[t]))
