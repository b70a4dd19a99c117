"""JSON Lines: one GitHub-shaped issue object per line."""
from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from typing import NamedTuple

import orjson

from ..scanning import Scanner, hyperscan
from . import PULL_REQUEST, ImportFileError, IssueRecord
from .github_fields import is_pull_request, record_from_github
from .limits import SURROGATE_ESCAPE, check_payload
from .text import NUL, REPLACEMENT, display_name

_ESCAPED_NUL = "\\u0000"
# orjson reads an integer past 64 bits as a float, where json keeps it whole (and the checks can refuse it by
# name): a line with a run of 19 digits anywhere (in a string too, rarely) goes to json. Digits become "0" and
# all else a space, then one substring search: a tenth of the time of a regular expression over the line.
_DIGITS_ONLY = bytes(48 if 48 <= i <= 57 else 32 for i in range(256))
_LONG_DIGITS = b"0" * 19
_BOM = b"\xef\xbb\xbf"


# What sends an undecoded line down the careful path, and what makes its payload worth walking, looked for in one
# Hyperscan pass where it is built: NUL raw or escaped, a run of 19 digits, an escape that decodes to a surrogate.
_CAREFUL_PATTERNS = [b"\\x00", b"\\\\u0000", b"[0-9]{19}"]
_ESCAPE = len(_CAREFUL_PATTERNS)


@cache
def _line_scanner() -> Scanner | None:
    return Scanner([*_CAREFUL_PATTERNS, SURROGATE_ESCAPE.pattern.encode()]) if hyperscan is not None else None


class FastLine(NamedTuple):
    obj: object
    escapes: bool  # whether the line may hold an escape that decodes to a lone surrogate


def fast_object(raw: bytes, lineno: int) -> FastLine | None:
    """The object of an undecoded line, or None when the line needs the careful path (decoded, clean_line,
    parse_line): a NUL, raw or escaped; an integer past 64 bits; a byte-order mark; a line orjson refuses (blank,
    not UTF-8, not JSON). On every other line orjson reads the bytes as it would the decoded text, and decoding
    first (two copies of each line) was a tenth of what a worker spent on an issue."""
    if (scanner := _line_scanner()) is not None:
        found = scanner.found(raw)
        careful, escapes = any(i != _ESCAPE for i in found), _ESCAPE in found
    else:
        careful = b"\x00" in raw or b"\\u0000" in raw or _LONG_DIGITS in raw.translate(_DIGITS_ONLY)
        escapes = True  # record_of looks
    if careful or (lineno == 1 and raw.startswith(_BOM)):
        return None
    try:
        return FastLine(orjson.loads(raw), escapes)
    except orjson.JSONDecodeError:
        return None


def clean_line(line: str) -> str:
    """The line with NUL replaced, escaped or raw: far cheaper here than walking the parsed object."""
    if _ESCAPED_NUL in line:
        line = line.replace(_ESCAPED_NUL, "\\ufffd")
    if NUL in line:
        line = line.replace(NUL, REPLACEMENT)
    return line


def parse_line(line: str, where: str) -> IssueRecord | None:
    """The record of a line already through clean_line."""
    return record_of(loads(line, where), line, where)


def record_of(obj, line: str | bytes, where: str, escapes: bool = True) -> IssueRecord | None:
    """The record of a line's parsed object (None for a pull request). escapes=False: the caller knows the line
    holds no escape that decodes to a surrogate, so its strings are clean."""
    clean = check_payload(line, obj, where) if escapes else True
    if isinstance(obj, dict) and is_pull_request(obj):
        return PULL_REQUEST
    return record_from_github(obj, where, clean_text=clean)


def loads(text: str, where: str):
    """The parsed line, with every way it can fail (bad syntax, nesting that exhausts the stack, an integer of
    more than 4,300 digits) named as a fault of the file.

    orjson parses several times faster than json and agrees with it on every line it accepts but those with
    integers past 64 bits (kept out above); whatever it refuses (bad syntax, NaN, a lone surrogate, nesting past
    1,024) goes to json, which accepts the same lines as before or names what is wrong in its own words."""
    if _LONG_DIGITS not in text.encode("utf-8", "surrogatepass").translate(_DIGITS_ONLY):
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ImportFileError(f"{where}: not valid JSON ({exc.msg}, column {exc.colno})") from exc
    except RecursionError as exc:
        raise ImportFileError(f"{where}: nested too deeply to be an issue record") from exc
    except ValueError as exc:
        raise ImportFileError(f"{where}: not usable JSON ({exc})") from exc


def raw_lines(path) -> Iterator[bytes]:
    """The file's lines as bytes, undecoded."""
    try:
        f = open(path, "rb")
    except OSError as exc:
        raise ImportFileError(f"{path}: cannot be read: {exc.strerror}") from exc
    with f:
        yield from f


def decoded(name: str, lineno: int, raw: bytes) -> str | None:
    """One line as text, None when blank. Lines are decoded one by one, so that invalid UTF-8 is reported on its
    own line (a text file decodes in blocks)."""
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ImportFileError(f"{name}:{lineno}: not UTF-8 text ({exc.reason} at byte {exc.start + 1} of "
                              "the line)") from exc
    if lineno == 1 and line.startswith("\ufeff"):
        line = line[1:]
    return line if line.strip() else None


def read_lines(path) -> Iterator[tuple[str, str]]:
    """(where, line) for each non-blank line, where = "FILE:LINE"."""
    name = display_name(path)
    for lineno, raw in enumerate(raw_lines(path), start=1):
        # Without its newline, as the worker processes read it: a refusal names the column on the line itself
        # (with it, a line cut short was reported at "column 1" of the next).
        if (line := decoded(name, lineno, raw[:-1] if raw.endswith(b"\n") else raw)) is not None:
            yield f"{name}:{lineno}", line


def read(path) -> Iterator[IssueRecord | None]:
    for where, line in read_lines(path):
        yield parse_line(clean_line(line), where)
