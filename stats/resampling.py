"""Pure: bootstrap resamples of reports, as weights over their distinct count rows, and the weighted sums every
bootstrap interval is computed from.

Reports with the same count row are interchangeable, so a resample of n reports is how many times each distinct
row is taken: one multinomial draw over the rows. A row's count costs a binomial draw (~80 ns), or, drawn by
report index and counted, ~10 ns per report; so rows many reports share are drawn as binomials and the rest by
index. One multinomial gives the frequent rows' counts and the totals of two lumps, the rows of one report and the
rows of a few; then each lump's total is drawn uniformly over the lump's reports and counted per row. That is
the same distribution as n reports drawn one by one: a multinomial's cells, grouped, are a multinomial over the
groups, and within a group, given its total, a multinomial in proportion to the cells' sizes.

Batch k of a request's resamples comes from its own generator, seeded with (seed, k), and a batch's size depends
on the number of distinct rows alone: batches can be drawn in parallel, and the first 200 of 1,000 resamples are
the 200 resamples.

A figure asks `bootstrap(freq, parts, resamples, seed, finish)`: `finish` receives the B × p sums, each
resample's weights times `parts` (one row per distinct row). Outside `shared()` that happens at once. Within it,
figures are finished when the block ends, so that requests over the same reports with the same seed (a type's
kappa, its AC1 and Brennan–Prediger, its per-code figures) take the same resamples, drawn once: drawing is most
of a bootstrap's cost. Each batch is multiplied by their parts side by side, a column that is a multiple of
another (a share beside its count, a one beside "pairable") multiplied once. Only two batches of weights are
held at a time, so memory is bounded by the batch, not by the number of resamples or reports. `start()` sets
the resamples asked for so far drawing in the background, while the caller computes the next figures.
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from .lazy_numpy import np

BATCH = 250  # most resamples in a batch
BATCH_WEIGHTS = 1 << 23  # most weights (resamples × distinct rows) in a batch: 32 MB of float32
THREADS = 2  # this machine's cores
BY_INDEX = 8  # rows taken by fewer reports than this are drawn by report index, the rest as binomials
SMALL = 1 << 18  # weights in a batch up to which it is drawn whole, not a resample at a time

_state: ContextVar[_Shared | None] = ContextVar("bootstrap requests of this computation", default=None)


@dataclass
class _Request:
    resamples: int
    columns: list[int]  # per column of the request's parts: its place among the group's columns, −1 if all zero
    scales: np.ndarray  # per column: the multiple of that group column it is
    finish: Callable[[np.ndarray], None]


@dataclass
class _Group:
    """The requests over one set of reports (the same frequencies) with one seed."""

    freq: np.ndarray
    seed: int
    # Distinct columns, each scaled to a first nonzero of 1, kept as the row-major blocks they came in: a column
    # of a row-major array is strided, and copying every column out of one costs more than the draws it serves.
    blocks: list[np.ndarray] = field(default_factory=list)
    where: list[tuple[int, int]] = field(default_factory=list)  # per distinct column: its block and place there
    needs: list[int] = field(default_factory=list)  # per distinct column: how many resamples some request wants
    shapes: dict[tuple, list[int]] = field(default_factory=dict)  # (first nonzero row, nonzeros) → columns
    requests: list[_Request] = field(default_factory=list)

    def add(self, parts: np.ndarray, resamples: int, finish: Callable[[np.ndarray], None]) -> None:
        # Single precision, as the columns are multiplied: columns within 1e-6 of a multiple of each other are one.
        given = parts
        parts = np.asarray(parts, dtype=np.float32).reshape(len(self.freq), -1)
        nonzero = parts != 0
        first, count = np.argmax(nonzero, axis=0), nonzero.sum(axis=0)
        del nonzero
        scales = np.where(count > 0, parts[first, np.arange(parts.shape[1])], 0).astype(np.float32)
        divisor = np.where(scales == 0, 1, scales)
        if np.may_share_memory(parts, given):  # the caller's own array: scaled as a copy
            scaled = parts / divisor
        else:  # the single-precision copy made here: scaled where it is (at a million reports, 60 MB and more)
            scaled = np.divide(parts, divisor, out=parts)
        del parts, given
        # A multiple of a column has its zeros where it has: only columns of the same shape are candidates, and
        # all candidates are compared at once, a block of rows at a time.
        candidates = [(j, c) for j in np.flatnonzero(count)
                      for c in self.shapes.get((int(first[j]), int(count[j])), ())]
        same = self._same(scaled, candidates)
        columns, kept = [], []
        for j in range(scaled.shape[1]):
            if count[j] == 0:  # an all-zero column: its sums are zero
                columns.append(-1)
                continue
            found = next((c for (jj, c), equal in zip(candidates, same, strict=True) if jj == j and equal), None)
            if found is None:
                found = len(self.where)
                self.where.append((len(self.blocks), len(kept)))
                kept.append(j)
                self.needs.append(0)
                self.shapes.setdefault((int(first[j]), int(count[j])), []).append(found)
            self.needs[found] = max(self.needs[found], resamples)
            columns.append(found)
        if kept:
            self.blocks.append(scaled if len(kept) == scaled.shape[1] else scaled[:, kept])
        self.requests.append(_Request(resamples, columns, scales, finish))

    def _same(self, scaled: np.ndarray, candidates: list[tuple[int, int]]) -> np.ndarray:
        """Per candidate (a column j of `scaled`, a distinct column c): whether they agree within 1e-6."""
        same = np.ones(len(candidates), dtype=bool)
        by_block: dict[int, list[int]] = {}
        for k, (_, c) in enumerate(candidates):
            by_block.setdefault(self.where[c][0], []).append(k)
        for b, ks in by_block.items():
            mine = [candidates[k][0] for k in ks]
            theirs = [self.where[candidates[k][1]][1] for k in ks]
            for start in range(0, len(scaled), 1 << 15):
                rows = slice(start, start + (1 << 15))
                other = self.blocks[b][rows][:, theirs]
                same[ks] &= (np.abs(scaled[rows][:, mine] - other) <= 1e-6 * np.abs(other)).all(axis=0)
        return same


@dataclass
class _Shared:
    remembered: dict = field(default_factory=dict)
    groups: dict[tuple, _Group] = field(default_factory=dict)  # asked for, not yet drawing
    drawing: list[tuple[_Group, Future]] = field(default_factory=list)
    runner: ThreadPoolExecutor | None = None  # draws one group at a time, its batches on `batches`
    batches: ThreadPoolExecutor | None = None

    def start(self) -> None:
        """Every group asked for so far starts drawing in the background."""
        if not self.groups:
            return
        if self.runner is None:
            self.runner = ThreadPoolExecutor(max_workers=1, thread_name_prefix="resamples")
            self.batches = ThreadPoolExecutor(max_workers=THREADS, thread_name_prefix="resamples")
        for group in self.groups.values():
            self.drawing.append((group, self.runner.submit(_products, group, self.batches)))
        self.groups = {}

    def close(self, finished: bool) -> None:
        for pool in (self.runner, self.batches):
            if pool is not None:
                pool.shutdown(wait=True, cancel_futures=not finished)


@contextmanager
def shared() -> Iterator[None]:
    """Within the block, figures that ask for resamples are finished when it ends, those over the same reports
    with the same seed from the same resamples; identical `remembered` computations are made once. `start()`
    sets what was asked so far drawing in the background while the block goes on."""
    state = _Shared()
    token = _state.set(state)
    finished = False
    try:
        with one_blas_thread():
            yield
            state.start()
            for group, products in state.drawing:  # not when the block failed: its figures are not wanted
                _finish(group, *products.result())
        finished = True
    finally:
        state.close(finished)
        _state.reset(token)


def start() -> None:
    """Within `shared()`, start drawing the resamples asked for so far, in the background, while the caller
    computes what needs none: call it once no more figure over the same reports will ask. Elsewhere, nothing."""
    state = _state.get()
    if state is not None:
        state.start()


def remembered(kind: str, data: bytes, compute):
    """Within `shared()`, what `compute()` gave for the same kind and data the first time; else compute()."""
    state = _state.get()
    if state is None:
        return compute()
    key = (kind, hashlib.blake2b(data, digest_size=16).digest())
    if key not in state.remembered:
        state.remembered[key] = compute()
    return state.remembered[key]


def bootstrap(freq: np.ndarray, parts: np.ndarray, resamples: int, seed: int,
              finish: Callable[[np.ndarray], None]) -> None:
    """Calls `finish` with the B × p float32 sums `w_b @ parts` for B = `resamples` bootstrap resamples w_b of
    the n = Σ freq reports (w_b: how many times each distinct row is taken): at once, or within `shared()` when
    the block ends."""
    freq = np.asarray(freq, dtype=np.int64)
    if resamples < 1 or not len(freq):
        return
    group = _Group(freq, seed)
    state = _state.get()
    if state is not None:
        key = (seed, hashlib.blake2b(freq.tobytes(), digest_size=16).digest())
        group = state.groups.setdefault(key, group)
    group.add(parts, resamples, finish)
    if state is None:
        with one_blas_thread(), ThreadPoolExecutor(max_workers=THREADS, thread_name_prefix="resamples") as pool:
            _finish(group, *_products(group, pool))


def resample_weights(freq: np.ndarray, resamples: int, seed: int) -> Iterator[np.ndarray]:
    """Batches of B × U float32 weights for U distinct rows occurring `freq` times among n = Σ freq reports: the
    weights `bootstrap` multiplies, for a caller that needs them as they are."""
    drawer = _Drawer(np.asarray(freq, dtype=np.int64))
    undo = np.argsort(drawer.order)
    for _, weights in drawer.batches(resamples, seed):
        yield weights[:, undo]


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """BLAS on one thread within the block: each drawing thread multiplies its own batch, and OpenBLAS's own
    threads would spin waiting for work, taking the other thread's core."""
    from threadpoolctl import threadpool_limits  # deferred: it inspects the loaded libraries, once per block

    with threadpool_limits(limits=1, user_api="blas"):
        yield


class _Drawer:
    """Draws resamples of the distinct rows, the rows reordered as [frequent, of one report, of a few]."""

    def __init__(self, freq: np.ndarray) -> None:
        self.n, self.u = int(freq.sum()), len(freq)
        kind = np.where(freq >= BY_INDEX, 0, np.where(freq == 1, 1, 2))
        self.order = np.argsort(kind, kind="stable")  # drawing order → the row's place in freq
        counts = np.bincount(kind, minlength=3)
        self.frequent, self.single = int(counts[0]), int(counts[1])
        few = freq[self.order[self.frequent + self.single:]]
        # Each report of the "few" lump → its row within the lump.
        self.owner = np.repeat(np.arange(len(few), dtype=np.intp), few)
        cells = np.concatenate([freq[self.order[:self.frequent]], [self.single, len(self.owner)]])
        self.p = cells / self.n
        self.size = max(1, min(BATCH, BATCH_WEIGHTS // max(self.u, 1)))

    def draw(self, rng, b: int) -> np.ndarray:
        if self.u * self.size <= SMALL:
            return self._whole_batch(rng)[:b]
        out = np.empty((b, self.u), dtype=np.float32)
        start, index = self.frequent + self.single, np.uint32 if self.n < 2**32 else np.int64
        for i in range(b):
            # One resample at a time, whatever the batch's size (so that fewer resamples are the first of more):
            # its draws and counts stay in cache.
            lumps = rng.multinomial(self.n, self.p)
            out[i, :self.frequent] = lumps[:self.frequent]
            if self.single:
                taken = rng.integers(0, self.single, size=lumps[-2], dtype=index)
                out[i, self.frequent:start] = np.bincount(taken, minlength=self.single)
            if len(self.owner):
                taken = rng.integers(0, len(self.owner), size=lumps[-1], dtype=index)
                out[i, start:] = np.bincount(self.owner[taken], minlength=self.u - start)
        return out

    def _whole_batch(self, rng) -> np.ndarray:
        """A whole batch's draws in a few calls (always of the batch's full size, so that fewer resamples are the
        first of more): for few rows, where a call per resample would cost more than its draws."""
        size, start = self.size, self.frequent + self.single
        lumps = rng.multinomial(self.n, self.p, size=size)
        out = np.empty((size, self.u), dtype=np.float32)
        out[:, :self.frequent] = lumps[:, :self.frequent]
        for totals, width, place, owner in [(lumps[:, -2], self.single, slice(self.frequent, start), None),
                                            (lumps[:, -1], self.u - start, slice(start, self.u), self.owner)]:
            if width:
                taken = rng.integers(0, width if owner is None else len(owner), size=int(totals.sum()))
                row = taken if owner is None else owner[taken]
                which = np.repeat(np.arange(size), totals)
                out[:, place] = np.bincount(which * width + row, minlength=size * width).reshape(size, width)
        return out

    def batch(self, k: int, resamples: int, seed: int) -> np.ndarray:
        rng = np.random.default_rng([seed, k])
        return self.draw(rng, min(self.size, resamples - k * self.size))

    def batches(self, resamples: int, seed: int) -> Iterator[tuple[int, np.ndarray]]:
        for k in range(-(-resamples // self.size)):
            yield k * self.size, self.batch(k, resamples, seed)


def _products(group: _Group, pool: ThreadPoolExecutor) -> tuple[np.ndarray, np.ndarray]:
    drawer = _Drawer(group.freq)
    # Columns wanted by most resamples first: a batch multiplies the prefix its resamples still need.
    by_need = np.argsort(-np.asarray(group.needs, dtype=np.int64), kind="stable")
    place = np.empty(len(by_need), dtype=np.int64)
    place[by_need] = np.arange(len(by_need))
    needs = np.asarray(group.needs, dtype=np.int64)[by_need]
    basis = np.empty((drawer.u, len(by_need)), dtype=np.float32)
    for b, block in enumerate(group.blocks):
        mine = [i for i, c in enumerate(by_need) if group.where[c][0] == b]
        basis[:, mine] = block[drawer.order][:, [group.where[by_need[i]][1] for i in mine]]
        group.blocks[b] = None  # released as it is copied
    most = int(needs[0]) if len(needs) else 0  # no column but zeros: nothing to draw
    sums = np.zeros((most, len(by_need)), dtype=np.float32)

    def batch(k: int) -> None:
        start = k * drawer.size
        weights = drawer.batch(k, most, group.seed)
        width = int((needs > start).sum())
        sums[start:start + len(weights), :width] = weights @ basis[:, :width]

    list(pool.map(batch, range(-(-most // drawer.size))))
    return sums, place


def _finish(group: _Group, sums: np.ndarray, place: np.ndarray) -> None:
    for request in group.requests:
        columns = np.asarray(request.columns, dtype=np.int64)
        out = np.zeros((request.resamples, len(columns)), dtype=np.float32)
        given = columns >= 0  # the rest are all-zero columns, whose sums are zero
        out[:, given] = sums[:request.resamples, place[columns[given]]] * request.scales[given]
        request.finish(out)


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
