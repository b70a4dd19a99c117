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
from itertools import islice

from . import copy_rows
from .filtering import FilterRules, RecordFilter, Verdict
from .importers.jsonl import clean_line, decoded, parse_line, raw_lines
from .importers.text import display_name

CHUNK_LINES = 200
_filter: RecordFilter | None = None
_render_for: int | None = None


def _start_worker(rules: FilterRules, render_for_source: int | None) -> None:
    global _filter, _render_for
    _filter, _render_for = RecordFilter(rules), render_for_source


def _judge(line: str, where: str, now: dt.datetime) -> Verdict:
    verdict = _filter.judge(parse_line(clean_line(line), where))
    if _render_for is None or verdict.record is None:
        return verdict
    # Send back the rendered row, not the record: far less to pickle, and nothing left to do but stream it
    # (as bytes: encoding it here spares the process that talks to the database).
    rendered = copy_rows.render(_render_for, verdict.record, verdict.kept, now).encode()
    return verdict._replace(record=None, copy_line=rendered)


def _lines(chunk: tuple[str, int, list[bytes]]) -> Iterator[tuple[str, str]]:
    # Decoding here rather than in the process that reads the file spares the one that talks to the database.
    name, first, raws = chunk
    for lineno, raw in enumerate(raws, start=first):
        if (line := decoded(name, lineno, raw)) is not None:
            yield f"{name}:{lineno}", line


def _judge_chunk(chunk: tuple[str, int, list[bytes]]) -> list[Verdict]:
    now = dt.datetime.now(dt.UTC)
    return [_judge(line, where, now) for where, line in _lines(chunk)]


def _check_chunk(chunk: tuple[str, int, list[bytes]]) -> int:
    count = 0
    for where, line in _lines(chunk):
        parse_line(clean_line(line), where)
        count += 1
    return count


def _chunks(path) -> Iterator[tuple[str, int, list[bytes]]]:
    """(file name, number of the first line, the raw lines) for each run of CHUNK_LINES lines."""
    name, lines, first = display_name(path), raw_lines(path), 1
    while chunk := list(islice(lines, CHUNK_LINES)):
        yield name, first, chunk
        first += len(chunk)


def can_fork_workers() -> bool:
    # A daemonic process (a Celery prefork child) may not have children of its own.
    return (os.cpu_count() or 1) > 1 and not multiprocessing.current_process().daemon


class JsonlWorkers:
    """A pool for one import; use as a context manager."""

    def __init__(self, rules: FilterRules, processes: int | None = None, render_for_source: int | None = None):
        """With render_for_source, verdicts carry COPY rows for that source instead of records."""
        processes = processes or os.cpu_count() or 1
        self.window = 4 * processes
        self.pool = multiprocessing.get_context("spawn").Pool(
            processes, initializer=_start_worker, initargs=(rules, render_for_source)
        )

    def __enter__(self) -> JsonlWorkers:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        # Let the workers finish the few chunks still in flight (at most `window`) and leave, rather than
        # terminate(): terminating while the pool's task thread is writing a chunk to a worker can leave that
        # thread blocked for ever, and the import with it (seen after a bad line stopped an import).
        self.pool.close()
        self.pool.join()

    def _in_order(self, function, path) -> Iterator:
        """Results chunk by chunk in file order, with a bounded number of chunks in flight, so memory stays
        flat however big the file and however slow the database (Pool.imap would buffer without limit)."""
        pending: deque = deque()
        for chunk in _chunks(path):
            pending.append(self.pool.apply_async(function, (chunk,)))
            if len(pending) >= self.window:
                yield pending.popleft().get()
        while pending:
            yield pending.popleft().get()

    def check(self, path) -> int:
        """Validate every line; the number of lines, or the first ImportFileError (as the sequential read would)."""
        return sum(self._in_order(_check_chunk, path))

    def verdicts(self, path) -> Iterator[Verdict]:
        for chunk in self._in_order(_judge_chunk, path):
            yield from chunk
