"""Pure: what is wrong with a value from outside, in words for a message, before it reaches the database.

PostgreSQL refuses NUL in text and jsonb, and text that is not valid Unicode (a lone surrogate such as the
JSON escape "\\ud800" decodes to one); it refuses a string longer than its column and an integer past its
type. SQLite stores all of these, so they are checked here, where the message can still name the field.
"""
from __future__ import annotations

import re

from .errors import FieldError

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
INT32_MAX = 2**31 - 1
INT64_MAX = 2**63 - 1
# Deeper than any record Concord reads or writes: GitHub's issue objects nest about 4 levels.
MAX_DEPTH = 64


def text_problem(value: str) -> str | None:
    """Why this text cannot be stored, or None."""
    if "\x00" in value:
        return f"contains a NUL character at position {value.index(chr(0)) + 1}"
    if not value.isascii() and (bad := _LONE_SURROGATE.search(value)):
        return (f"contains a lone surrogate (U+{ord(bad.group()):04X}) at position {bad.start() + 1}, "
                "which is not valid Unicode")
    return None


def shown_text(value: str, limit: int) -> str:
    """A value as a message can quote it: cut to `limit` characters."""
    return value if len(value) <= limit else value[: limit - 3] + "..."


def length_problem(value: str, limit: int) -> str | None:
    if len(value) > limit:
        return f"{len(value):,} characters long (at most {limit:,})"
    return None


def int_problem(value: int, low: int = 0, high: int = INT32_MAX) -> str | None:
    if not low <= value <= high:
        shown = value if abs(value) < 10**30 else f"a {len(str(abs(value)))}-digit number"
        return f"{shown} is out of range ({low:,} to {high:,})"
    return None


def json_problem(value, path: str = "", depth: int = 0) -> tuple[str, str] | None:
    """(where inside, what) for the first string, key or number in a parsed JSON value that cannot be stored,
    or a value nested deeper than MAX_DEPTH; None when all is well."""
    if depth > MAX_DEPTH:
        return path or "(top)", f"nested more than {MAX_DEPTH} levels deep"
    if isinstance(value, str | int) and not isinstance(value, bool):
        problem = _scalar_problem(value)
        return (path or "(top)", problem) if problem else None
    if isinstance(value, dict):
        return _dict_problem(value, path, depth)
    if isinstance(value, list):
        return next((found for i, item in enumerate(value)
                     if (found := json_problem(item, f"{path}[{i}]", depth + 1)) is not None), None)
    return None


def _scalar_problem(value: str | int) -> str | None:
    if isinstance(value, str):
        return text_problem(value)
    # jsonb stores any size, but an integer this long is no count or id.
    return int_problem(value, -INT64_MAX - 1, INT64_MAX)


def _dict_problem(value: dict, path: str, depth: int) -> tuple[str, str] | None:
    for key, item in value.items():
        problem = text_problem(key)
        shown = shown_text(key, 60) if problem is None else ascii(key)[1:61]
        here = f"{path}.{shown}" if path else shown
        if problem is not None:
            return here, f"the key {problem}"
        if (found := json_problem(item, here, depth + 1)) is not None:
            return found
    return None


def fitted(value: str, field: str, limit: int | None = None) -> str:
    """The value, or FieldError(field, what is wrong): for actions that read a form value directly."""
    if problem := text_problem(value) or (length_problem(value, limit) if limit else None):
        raise FieldError(field, problem)
    return value
