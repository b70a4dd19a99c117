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


def iter_objects(path) -> Iterator[tuple[str, object]]:
    """(where, value, raw text) for each element of the top-level array(s); where = "FILE:LINE"."""
    name = display_name(path)
    with open_text(path) as f:
        buf, pos, line, depth, eof = "", 0, 1, 0, False
        started = False

        def more() -> bool:
            nonlocal buf, pos, eof
            if eof:
                return False
            try:
                chunk = f.read(CHUNK)
            except UnicodeDecodeError as exc:
                raise ImportFileError(f"{name}:{line}: not UTF-8 text ({exc.reason})") from exc
            if not chunk:
                eof = True
                return False
            buf, pos = buf[pos:] + chunk, 0
            return True

        while True:
            while True:
                while pos < len(buf) and buf[pos] in _WHITESPACE:
                    if buf[pos] == "\n":
                        line += 1
                    pos += 1
                if pos < len(buf) or not more():
                    break
            if pos >= len(buf):
                if depth:
                    raise ImportFileError(f"{name}:{line}: the file ends inside an array (cut short?)")
                if not started:
                    raise ImportFileError(f"{name}:1: empty file (expected a JSON array of issues)")
                return
            ch = buf[pos]
            if ch == "[" and depth < 2:
                depth, pos, started = depth + 1, pos + 1, True
            elif ch == "]" and depth:
                depth, pos = depth - 1, pos + 1
            elif ch == "," and depth:
                pos += 1
            elif depth == 0:
                raise ImportFileError(f"{name}:{line}: found {ch!r} (expected a JSON array of issues)")
            else:
                # Make sure a whole object is in the buffer unless the file has ended.
                while len(buf) - pos < CHUNK and more():
                    pass
                while True:
                    try:
                        value, end = _decoder.raw_decode(buf, pos)
                        break
                    except json.JSONDecodeError as exc:
                        if more():
                            continue
                        at = line + buf.count("\n", pos, exc.pos)
                        raise ImportFileError(f"{name}:{at}: not valid JSON ({exc.msg})") from exc
                    except RecursionError as exc:
                        raise ImportFileError(f"{name}:{line}: nested too deeply to be an issue record") from exc
                    except ValueError as exc:  # an integer of more than 4,300 digits
                        raise ImportFileError(f"{name}:{line}: not usable JSON ({exc})") from exc
                yield f"{name}:{line}", value, buf[pos:end]
                line += buf.count("\n", pos, end)
                pos = end
