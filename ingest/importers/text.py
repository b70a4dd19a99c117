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
            raise ImportFileError(f"{where}: field '{field}' is missing")
        return ""
    if not isinstance(value, str):
        raise ImportFileError(f"{where}: field '{field}' must be text, got {type(value).__name__}")
    if required and not value.strip():
        raise ImportFileError(f"{where}: field '{field}' is empty")
    return value


def url_field(value: str, field: str, where: str) -> tuple[str, tuple[str, ...]]:
    """An issue's link, if it is an http(s) one; any other is dropped (the report keeps its number) with a
    warning naming where: a `javascript:` URL in an href would run in Concord's pages."""
    if not value:
        return "", ()
    url = web_url(value)
    if url:
        return url, ()
    shown = value if len(value) <= 60 else value[:57] + "..."
    return "", (f"{where}: field '{field}' is not an http(s) link and was dropped: {shown!r}",)


def time_field(obj: dict, field: str, where: str):
    value = obj.get(field)
    if value in (None, ""):
        return None
    if not isinstance(value, str):
        raise ImportFileError(f"{where}: field '{field}' is not an ISO 8601 date-time: {value!r}")
    try:
        # The C parser first (it reads what the platforms send, "Z" included); Django's for the rest.
        parsed = dt.datetime.fromisoformat(value)
    except ValueError:
        parsed = parse_datetime(value)
    if parsed is None:
        raise ImportFileError(f"{where}: field '{field}' is not an ISO 8601 date-time: {value!r}")
    return parsed


def number_field(obj: dict, field: str, where: str) -> str:
    number = obj.get(field)
    if isinstance(number, bool) or not isinstance(number, int | str) or str(number).strip() == "":
        raise ImportFileError(f"{where}: field '{field}' is missing or not a number")
    return str(number).strip()


def login_of(value, field: str, where: str) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("login", ""), str):
        return value.get("login", "") or value.get("name", "") or ""
    raise ImportFileError(f"{where}: field '{field}' must be an object with 'login' or a name")


def label_names(value, where: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ImportFileError(f"{where}: field 'labels' must be a list")
    names = []
    for i, label in enumerate(value):
        name = label.get("name") if isinstance(label, dict) else label
        if not isinstance(name, str):
            raise ImportFileError(f"{where}: field 'labels[{i}]' must be a name or an object with 'name'")
        names.append(name)
    return names
