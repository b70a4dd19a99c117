"""Parsing, normalising and keyword matching of JSON Lines in worker processes, in file order.

The main process keeps the database work; the CPU-bound part of an import runs on the other cores.
Workers import only pure modules (no Django models, no database connections), so they start by
spawning rather than forking a process that holds open connections.
"""
from __future__ import annotations

import datetime as dt
import multiprocessing
import os
from collections import deque
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from multiprocessing.shared_memory import SharedMemory
from typing import NamedTuple

from . import copy_rows
from .filtering import FilterRules, RecordFilter, Verdict
from .importers import ImportFileError, IssueRecord
from .importers.jsonl import clean_line, decoded, fast_object, parse_line, record_of
from .importers.text import display_name

# About two hundred issues of the study's size: enough to keep a worker busy between messages, few enough that
# the chunks in flight stay small.
CHUNK_BYTES = 1 << 20
# (path, file name, number of its first line, offset, size)
Chunk = tuple[str, str, int, int, int]
# A chunk's COPY rows are written to a slot of shared memory this big (rows are about the size of their lines),
# not pickled and sent through a pipe: that was copying every byte four times, a tenth of a worker's time. Rows
# that do not fit (a chunk of one line longer than a slot) travel in their verdicts as before.
SLOT_BYTES = 4 * CHUNK_BYTES
_filter: RecordFilter | None = None
_render_for: int | None = None
_rows: SharedMemory | None = None
_open: dict[str, object] = {}


def _start_worker(rules: FilterRules, render_for_source: int | None, rows: str | None = None) -> None:
    global _filter, _render_for, _rows
    _filter, _render_for = RecordFilter(rules), render_for_source
    if rows is not None:
        _rows = SharedMemory(rows)


def _judge(record: IssueRecord | None, now: bytes, slot: _Slot | None = None) -> Verdict:
    verdict = _filter.judge(record)
    if _render_for is None or verdict.record is None:
        return verdict
    # Send back the rendered row, not the record: far less to pickle, and nothing left to do but stream it
    # (as bytes: encoding it here spares the process that talks to the database).
    rendered = copy_rows.render(_render_for, verdict.record, verdict.kept, now)
    if slot is not None and slot.put(rendered):
        return verdict._replace(record=None)
    return verdict._replace(record=None, copy_line=rendered)


class _Slot:
    """A chunk's slot of shared memory, filled with rows in order."""

    def __init__(self, index: int):
        self.base, self.used, self.ends = index * SLOT_BYTES, 0, []

    def put(self, row: bytes) -> bool:
        if self.used + len(row) > SLOT_BYTES:
            return False
        start = self.base + self.used
        _rows.buf[start:start + len(row)] = row
        self.used += len(row)
        self.ends.append(self.used)
        return True


def _ready() -> None:
    pass


def _read(path: str, offset: int, size: int) -> bytes:
    # Each worker reads its own chunks: the process that talks to the database only says where they are,
    # rather than passing every byte of the file through a pipe twice.
    if (f := _open.get(path)) is None:
        f = _open[path] = open(path, "rb")
    f.seek(offset)
    return f.read(size)


def _records(chunk: Chunk) -> Iterator[IssueRecord | None]:
    # Parsing here rather than in the process that reads the file spares the one that talks to the database. Most
    # lines go as bytes straight to orjson; the few that need decoding and cleaning first take the careful path.
    path, name, first, offset, size = chunk
    raws = _read(path, offset, size).split(b"\n")
    if raws[-1] == b"":  # the newline that ends the chunk's last line
        raws.pop()
    for lineno, raw in enumerate(raws, start=first):
        where = f"{name}:{lineno}"
        if (fast := fast_object(raw, lineno)) is not None:
            yield record_of(fast.obj, raw, where, fast.escapes)
        elif (line := decoded(name, lineno, raw)) is not None:
            yield parse_line(clean_line(line), where)


class Judged(NamedTuple):
    """A chunk's verdicts, each as a plain tuple of a Verdict's fields (a named tuple pickles through Python
    calls, twenty times slower); with `ends`, the rows of those that carry neither row nor record (outcome "")
    lie in order in the chunk's slot of shared memory, each ending where `ends` says."""

    verdicts: list[tuple]
    ends: list[int] | None = None


def _judge_chunk(chunk: Chunk, slot: int | None = None) -> Judged:
    now = copy_rows.stamp(dt.datetime.now(dt.UTC))
    # Without shared memory (rows not rendered here, or no slot given) the rows stay in their verdicts.
    into = _Slot(slot) if slot is not None and _rows is not None else None
    verdicts = [tuple(_judge(record, now, into)) for record in _records(chunk)]
    return Judged(verdicts, into and into.ends)


def _check_chunk(chunk: Chunk, slot: int | None = None) -> int:
    return sum(1 for _ in _records(chunk))


class Plan(NamedTuple):
    """How a file is cut into chunks of whole lines, and how many lines it has (blank ones too)."""

    chunks: list[Chunk]
    lines: int


def plan(path) -> Plan:
    """(path, file name, number of the first line, offset, size) of runs of whole lines of about CHUNK_BYTES,
    found in one read of the file that also counts its lines for the progress bar."""
    path, name = os.fspath(path), display_name(path)
    chunks: list[Chunk] = []
    first, offset, position = 1, 0, 0
    try:
        f = open(path, "rb")
    except OSError as exc:
        raise ImportFileError(f"{path}: cannot be read: {exc.strerror}") from exc
    with f:
        # Only where the chunks end is worked out here; a line longer than a chunk is never held, only skipped.
        while block := f.read(CHUNK_BYTES):
            last = block.rfind(b"\n")
            if last >= 0:
                end = position + last + 1
                chunks.append((path, name, first, offset, end - offset))
                # The lines of earlier blocks of this chunk had not ended: their newlines are all in this block.
                first += block.count(b"\n")
                offset = end
            position += len(block)
    if position > offset:
        chunks.append((path, name, first, offset, position - offset))
        first += 1
    return Plan(chunks, first - 1)


def can_fork_workers() -> bool:
    # A daemonic process (a Celery prefork child) may not have children of its own.
    return (os.cpu_count() or 1) > 1 and not multiprocessing.current_process().daemon


class JsonlWorkers:
    """A pool for one import; use as a context manager."""

    def __init__(self, rules: FilterRules, processes: int | None = None, render_for_source: int | None = None):
        """With render_for_source, verdicts carry COPY rows for that source instead of records."""
        processes = processes or os.cpu_count() or 1
        self.window = 4 * processes
        self._plans: dict[str, Plan] = {}
        # One slot per chunk in flight and one more: a slot is written again only once its chunk was read.
        self.rows = (SharedMemory(create=True, size=(self.window + 1) * SLOT_BYTES)
                     if render_for_source is not None else None)
        # An executor rather than multiprocessing.Pool: the Pool's worker-handler thread wakes for every result
        # waiting in the pipe without reading it, and spun through thousands of idle turns per import.
        self.pool = ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("spawn"),
                                        initializer=_start_worker,
                                        initargs=(rules, render_for_source, self.rows and self.rows.name))
        # The executor starts a process only when work arrives for it. Starting them now lets them import and
        # build their matcher (a few tenths of a second) while this process plans the file and opens the
        # transaction, instead of after.
        for _ in range(processes):
            self.pool.submit(_ready)

    def __enter__(self) -> JsonlWorkers:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        # Let the workers finish the few chunks still in flight (at most `window`) and leave, rather than kill
        # them: killing a worker while a chunk is being written to it can leave the writer blocked for ever,
        # and the import with it (seen after a bad line stopped an import).
        self.pool.shutdown(wait=True)
        if self.rows is not None:
            self.rows.close()
            self.rows.unlink()
            self.rows = None

    def plan(self, path) -> Plan:
        """The file's plan, made once however often it is asked for."""
        key = os.fspath(path)
        if key not in self._plans:
            self._plans[key] = plan(key)
        return self._plans[key]

    def _in_order(self, function, path) -> Iterator[tuple]:
        """(result, slot) chunk by chunk in file order, with a bounded number of chunks in flight, so memory stays
        flat however big the file and however slow the database (Pool.imap would buffer without limit). Chunk i
        is given slot i mod (window + 1) of the shared memory for its rows."""
        pending: deque = deque()
        for i, chunk in enumerate(self.plan(path).chunks):
            slot = i % (self.window + 1)
            pending.append((self.pool.submit(function, chunk, slot), slot))
            if len(pending) >= self.window:
                future, slot = pending.popleft()
                yield future.result(), slot
        while pending:
            future, slot = pending.popleft()
            yield future.result(), slot

    def check(self, path) -> int:
        """Validate every line; the number of lines, or the first ImportFileError (as the sequential read would)."""
        return sum(lines for lines, _slot in self._in_order(_check_chunk, path))

    def verdicts(self, path) -> Iterator[Verdict]:
        for judged, slot in self._in_order(_judge_chunk, path):
            rows, ends, start = None, iter(judged.ends or ()), 0
            if judged.ends:
                # Copied out at once: the slot is written again while these rows wait for their batch.
                base = slot * SLOT_BYTES
                rows = memoryview(bytes(self.rows.buf[base:base + judged.ends[-1]]))
            for record, outcome, kept, terms, number, copy_line, warnings in judged.verdicts:
                # Only a row in shared memory leaves a kept verdict with neither row nor record.
                if outcome == "" and record is None and copy_line is None:
                    end = next(ends)
                    copy_line = rows[start:end]
                    start = end
                # Made whole once: Verdict._make and then _replace took three times as long, in the process that
                # holds the database connection, between batches.
                yield Verdict(record, outcome, kept, terms, number, copy_line, warnings)
