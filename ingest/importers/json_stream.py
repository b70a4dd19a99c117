"""Streams the objects of a JSON array file with their line numbers, without loading the file.

Accepts one array (a saved API page), an array of arrays (pages collected in a list) and arrays written
one after another (`gh api --paginate` output). Memory stays at one object plus one read chunk.
"""
from __future__ import annotations

import json
from collections.abc import Iterator

from . import ImportFileError
from .text import display_name, open_text

CHUNK = 1 << 20
_decoder = json.JSONDecoder()
_WHITESPACE = " \t\r\n"


class _Reader:
    """The unread text of one file, read a chunk at a time, and the line its first character is on."""

    def __init__(self, f, name: str) -> None:
        self.f, self.name = f, name
        self.buf, self.pos, self.line, self.eof = "", 0, 1, False

    def more(self) -> bool:
        if self.eof:
            return False
        try:
            chunk = self.f.read(CHUNK)
        except UnicodeDecodeError as exc:
            raise ImportFileError(f"{self.name}:{self.line}: not UTF-8 text ({exc.reason})") from exc
        if not chunk:
            self.eof = True
            return False
        self.buf, self.pos = self.buf[self.pos:] + chunk, 0
        return True

    def next_char(self) -> str | None:
        """The next character that is not white space (counting the lines passed), None at the end of the file."""
        while True:
            buf = self.buf
            while self.pos < len(buf) and buf[self.pos] in _WHITESPACE:
                if buf[self.pos] == "\n":
                    self.line += 1
                self.pos += 1
            if self.pos < len(buf):
                return buf[self.pos]
            if not self.more():
                return None

    def value(self) -> tuple[object, str]:
        """The JSON value starting here, and its text; a whole object is in the buffer unless the file ended."""
        while len(self.buf) - self.pos < CHUNK and self.more():
            pass
        while True:
            try:
                value, end = _decoder.raw_decode(self.buf, self.pos)
                break
            except json.JSONDecodeError as exc:
                if self.more():
                    continue
                at = self.line + self.buf.count("\n", self.pos, exc.pos)
                raise ImportFileError(f"{self.name}:{at}: not valid JSON ({exc.msg})") from exc
            except RecursionError as exc:
                raise ImportFileError(f"{self.name}:{self.line}: nested too deeply to be an issue record") from exc
            except ValueError as exc:  # an integer of more than 4,300 digits
                raise ImportFileError(f"{self.name}:{self.line}: not usable JSON ({exc})") from exc
        raw = self.buf[self.pos:end]
        self.line += self.buf.count("\n", self.pos, end)
        self.pos = end
        return value, raw


def iter_objects(path) -> Iterator[tuple[str, object]]:
    """(where, value, raw text) for each element of the top-level array(s); where = "FILE:LINE"."""
    name = display_name(path)
    with open_text(path) as f:
        reader = _Reader(f, name)
        depth, started = 0, False
        while True:
            ch = reader.next_char()
            if ch is None:
                if depth:
                    raise ImportFileError(f"{name}:{reader.line}: the file ends inside an array (cut short?)")
                if not started:
                    raise ImportFileError(f"{name}:1: empty file (expected a JSON array of issues)")
                return
            if ch == "[" and depth < 2:
                depth, started = depth + 1, True
                reader.pos += 1
            elif ch == "]" and depth:
                depth -= 1
                reader.pos += 1
            elif ch == "," and depth:
                reader.pos += 1
            elif depth == 0:
                raise ImportFileError(f"{name}:{reader.line}: found {ch!r} (expected a JSON array of issues)")
            else:
                where = f"{name}:{reader.line}"
                value, raw = reader.value()
                yield where, value, raw
