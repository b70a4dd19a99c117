"""Small shared helpers for importers: opening files, scrubbing NULs, reading fields."""
from __future__ import annotations

import datetime as dt
from pathlib import Path

from django.utils.dateparse import parse_datetime

from concord.weburl import web_url

from . import ImportFileError

# PostgreSQL refuses NUL in text and jsonb; real issue bodies contain it. It becomes U+FFFD, visibly.
NUL = "\x00"
REPLACEMENT = "\ufffd"


def open_text(path):
    """UTF-8 with or without a byte-order mark."""
    try:
        return open(path, encoding="utf-8-sig", newline="")
    except OSError as exc:
        raise ImportFileError(f"{path}: cannot be read: {exc.strerror}") from exc


def display_name(path) -> str:
    return Path(path).name


def scrub(value):
    """Replace NUL characters anywhere inside a parsed JSON value."""
    if isinstance(value, str):
        return value.replace(NUL, REPLACEMENT) if NUL in value else value
    if isinstance(value, dict):
        return {scrub(k): scrub(v) for k, v in value.items()}
    if isinstance(value, list):
        return [scrub(v) for v in value]
    return value


def text_field(obj: dict, field: str, where: str, required: bool = False) -> str:
    value = obj.get(field)
    if value is None:
        if required:
            raise ImportFileError(f"{where}: {field}: missing (expected text)")
        return ""
    if not isinstance(value, str):
        raise ImportFileError(f"{where}: {field}: {json_kind(value)} (expected text)")
    if required and not value.strip():
        raise ImportFileError(f"{where}: {field}: empty (expected text)")
    return value


def json_kind(value) -> str:
    """A JSON value's kind in JSON's words, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    return {dict: "an object", list: "a list", str: "text", int: "a number", float: "a number"}.get(
        type(value), type(value).__name__)


def url_field(value: str, field: str, where: str) -> tuple[str, tuple[str, ...]]:
    """An issue's link, if it is an http(s) one; any other is dropped (the report keeps its number) with a
    warning naming where: a `javascript:` URL in an href would run in Concord's pages."""
    if not value:
        return "", ()
    url = web_url(value)
    if url:
        return url, ()
    shown = value if len(value) <= 60 else value[:57] + "..."
    return "", (f"{where}: {field}: not an http(s) link, dropped: {shown!r}",)


EARLIEST = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


def time_field(obj: dict, field: str, where: str):
    value = obj.get(field)
    if value in (None, ""):
        return None
    expected = "expected an ISO 8601 date-time such as 2024-05-01T12:00:00Z"
    if not isinstance(value, str):
        raise ImportFileError(f"{where}: {field}: {json_kind(value)} ({expected})")
    shown = value if len(value) <= 40 else value[:37] + "..."
    try:
        # The C parser first (it reads what the platforms send, "Z" included); Django's for the rest.
        parsed = dt.datetime.fromisoformat(value)
    except ValueError:
        try:
            parsed = parse_datetime(value)
        except ValueError as exc:  # well formed but impossible: 30 February, month 13, year 0
            raise ImportFileError(f"{where}: {field}: {shown!r} is not a real date-time ({exc}; {expected})") from exc
    if parsed is None:
        raise ImportFileError(f"{where}: {field}: {shown!r} is not a date-time ({expected})")
    # Stored as UTC: a time whose UTC falls outside Python's years 1-9999 (0001-01-01 east of Greenwich) would be
    # stored by PostgreSQL and then fail every page that reads it back. No issue tracker dates anything before
    # 1970, so that is the floor.
    try:
        utc = parsed.astimezone(dt.UTC) if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)
    except OverflowError:
        edge = "before year 1" if parsed.year == 1 else "after 9999"
        raise ImportFileError(f"{where}: {field}: {shown!r} is {edge} in UTC, outside the dates that can be stored "
                              f"({expected})") from None
    if utc < EARLIEST:
        raise ImportFileError(f"{where}: {field}: {shown!r} is before 1970 in UTC, earlier than any issue tracker "
                              f"({expected})")
    return parsed


def number_field(obj: dict, field: str, where: str) -> str:
    number = obj.get(field)
    if number is None or isinstance(number, bool) or not isinstance(number, int | str) or str(number).strip() == "":
        got = "missing" if number is None else "empty" if isinstance(number, str) else json_kind(number)
        raise ImportFileError(f"{where}: {field}: {got} (expected the issue's number, such as 1234 or I8SLI3)")
    if isinstance(number, int) and number.bit_length() > 63:
        raise ImportFileError(f"{where}: {field}: a {len(str(abs(number)))}-digit number (at most 32 characters)")
    return str(number).strip()


def login_of(value, field: str, where: str) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("login", ""), str):
        name = value.get("login", "") or value.get("name", "") or ""
        if isinstance(name, str):
            return name
    raise ImportFileError(f"{where}: {field}: {json_kind(value)} (expected a user object with a 'login', or a name)")


def label_names(value, where: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ImportFileError(f"{where}: labels: {json_kind(value)} (expected a list of labels)")
    names = []
    for i, label in enumerate(value):
        name = label.get("name") if isinstance(label, dict) else label
        if not isinstance(name, str):
            raise ImportFileError(
                f"{where}: labels[{i}]: {json_kind(label)} (expected a name or an object with 'name')")
        names.append(name)
    return names
