"""Pure: bootstrap resamples of reports, as weights over their distinct count rows.

Reports with the same count row are interchangeable, so a resample of n reports is how many times each distinct
row is taken. With few distinct rows (good agreement) that is one multinomial draw per resample; with many (a
fine-grained level, thousands of distinct rows) a multinomial costs a binomial draw per row, and drawing n report
indices and counting them per row is cheaper and has the same distribution.

Batch k of B resamples comes from its own generator, seeded with (seed, k): batches can be drawn in parallel, and
the first 200 of 1,000 resamples are the 200 resamples. Within `shared()`, figures over the same reports with the
same seed (a type's kappa, its AC1 and Brennan–Prediger, its per-code figures) take the same resamples instead of
drawing them again: drawing is most of a bootstrap's cost, and the numbers are the ones each figure would have
drawn alone. `prefetch` starts a figure's draws on a background thread, so that they go on while the caller
computes what needs no resamples (matrices, point estimates, other figures' products)."""
from __future__ import annotations

import hashlib
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from contextvars import ContextVar

from .lazy_numpy import np

BATCH = 250  # resamples per batch: B × distinct rows float32 weights, tens of MB at 40,000 reports
THREADS = 2  # this machine's cores

_drawn: ContextVar[dict | None] = ContextVar("resamples drawn in this computation", default=None)
_AHEAD = "drawing ahead"  # the key of a shared block's background thread


@contextmanager
def shared() -> Iterator[None]:
    """Within the block, identical requests (same frequencies and seed) reuse the resamples already drawn."""
    drawn: dict = {}
    token = _drawn.set(drawn)
    try:
        yield
    finally:
        _drawn.reset(token)
        ahead = drawn.pop(_AHEAD, None)
        if ahead is not None:  # draws not begun are dropped (the block failed before it asked for them)
            ahead.shutdown(wait=True, cancel_futures=True)


def remembered(kind: str, data: bytes, compute):
    """Within `shared()`, what `compute()` gave for the same kind and data the first time; else compute()."""
    drawn = _drawn.get()
    if drawn is None:
        return compute()
    key = (kind, hashlib.blake2b(data, digest_size=16).digest())
    if key not in drawn:
        drawn[key] = compute()
    return drawn[key]


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """BLAS on one thread within the block. The products here are small beside the resampling that runs on the
    other core meanwhile, and OpenBLAS's second thread spins waiting for work, taking that core from the draws."""
    from threadpoolctl import threadpool_limits  # deferred: it inspects the loaded libraries, once per block

    with threadpool_limits(limits=1, user_api="blas"):
        yield


def _key(freq: np.ndarray, seed: int) -> tuple:
    return seed, hashlib.blake2b(freq.tobytes(), digest_size=16).digest()


def _kept(freq: np.ndarray, resamples: int, seed: int) -> tuple[int, list[np.ndarray]]:
    return resamples, [_compact(batch) for batch in _draw(freq, resamples, seed)]


def prefetch(freq: np.ndarray, resamples: int, seed: int) -> None:
    """Within `shared()`, start drawing what `resample_weights(freq, resamples, seed)` will hand out, on one
    background thread (requests are drawn in the order they come); outside it, nothing."""
    drawn = _drawn.get()
    freq = np.asarray(freq, dtype=np.int64)
    if drawn is None or resamples < 1 or len(freq) == 0:
        return
    key = _key(freq, seed)
    under_way = drawn.get(key)
    if isinstance(under_way, Future) or (under_way is not None and under_way[0] >= resamples):
        return
    if _AHEAD not in drawn:
        drawn[_AHEAD] = ThreadPoolExecutor(max_workers=1, thread_name_prefix="resamples")
    drawn[key] = drawn[_AHEAD].submit(_kept, freq, resamples, seed)


def resample_weights(freq: np.ndarray, resamples: int, seed: int) -> Iterator[np.ndarray]:
    """Batches of B × U float32 weights for U distinct rows occurring `freq` times among n = Σ freq reports."""
    freq = np.asarray(freq, dtype=np.int64)
    drawn = _drawn.get()
    if drawn is None:
        batches = _draw(freq, resamples, seed)
    else:
        key = _key(freq, seed)
        if isinstance(drawn.get(key), Future):
            drawn[key] = drawn[key].result()
        if key not in drawn or drawn[key][0] < resamples:
            drawn[key] = _kept(freq, resamples, seed)
        batches = iter(drawn[key][1])
    left = resamples
    for batch in batches:
        if left <= 0:
            break
        yield batch[:left].astype(np.float32)
        left -= len(batch)


def _draw(freq: np.ndarray, resamples: int, seed: int) -> Iterator[np.ndarray]:
    n, u = int(freq.sum()), len(freq)
    # A multinomial costs a binomial per distinct row (~100 ns), counting drawn report indices ~4 ns per report
    # and ~5 µs per resample: with fewer than one distinct row per 25 reports the multinomial is cheaper.
    few = u * 25 < n
    # Report → its distinct row (none needed when every row is distinct).
    owner = np.repeat(np.arange(u), freq) if u < n and not few else None

    def batch(k: int) -> np.ndarray:
        # Batch k has its own generator, so batches can be drawn at once and come out the same.
        rng = np.random.default_rng([seed, k])
        b = min(BATCH, resamples - k * BATCH)
        if few:
            return rng.multinomial(n, freq / n, size=b)
        out = np.empty((b, u), dtype=np.uint16 if n < 2**16 else np.int32)
        for i in range(b):
            # One resample at a time: its n draws and counts stay in cache, where one bincount over a whole batch
            # (B × n indices into B × U bins) ran three times slower.
            taken = rng.integers(0, n, size=n)
            out[i] = np.bincount(taken if owner is None else owner[taken], minlength=u)
        return out

    batches = range(-(-resamples // BATCH))
    if len(batches) == 1 or few:
        yield from map(batch, batches)
        return
    # Drawing and counting release the GIL: two threads draw on both cores.
    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        yield from pool.map(batch, batches)


def _compact(batch: np.ndarray) -> np.ndarray:
    """The counts in the smallest type that holds them: what a shared computation keeps drawn is a quarter of
    the float weights it hands out."""
    top = int(batch.max()) if batch.size else 0
    return batch.astype(np.uint8 if top < 2**8 else np.uint16 if top < 2**16 else np.int64)


def column_intervals(values: np.ndarray, confidence: float = 0.95) -> list[tuple[float | None, float | None]]:
    """Per column of B × K bootstrap values, the percentile interval of its finite values (None, None where
    there are none): np.percentile's linear method, for every column in one sort instead of one call each."""
    values = np.asarray(values, dtype=np.float64)
    finite = np.isfinite(values)
    count = finite.sum(axis=0)
    ordered = np.sort(np.where(finite, values, np.inf), axis=0)  # the values that are not finite sort last
    columns = np.arange(values.shape[1])
    tail = (1 - confidence) / 2
    bounds = []
    for q in (tail, 1 - tail):
        at = q * np.maximum(count - 1, 0)
        below = np.floor(at).astype(np.int64)
        above = np.minimum(below + 1, np.maximum(count - 1, 0))
        a, b, t = ordered[below, columns], ordered[above, columns], at - below
        with np.errstate(invalid="ignore"):
            # numpy's own interpolation (lerp from the nearer end), so the figures are np.percentile's.
            bounds.append(np.where(t >= 0.5, b - (b - a) * (1 - t), a + (b - a) * t))
    return [(float(low), float(high)) if n else (None, None) for low, high, n in zip(*bounds, count, strict=True)]
