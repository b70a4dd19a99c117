"""Reads one issue object with GitHub REST field names into an IssueRecord."""
from __future__ import annotations

from django.utils.dateparse import parse_datetime

from . import ImportFileError, IssueRecord


def _text(obj: dict, field: str, where: str, required: bool = False) -> str:
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


def _time(obj: dict, field: str, where: str):
    value = obj.get(field)
    if value in (None, ""):
        return None
    parsed = parse_datetime(value) if isinstance(value, str) else None
    if parsed is None:
        raise ImportFileError(f"{where}: field '{field}' is not an ISO 8601 date-time: {value!r}")
    return parsed


def _login(value, field: str, where: str) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("login", ""), str):
        return value.get("login", "")
    raise ImportFileError(f"{where}: field '{field}' must be an object with 'login' or a name")


def _labels(value, where: str) -> list[str]:
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


def _comments(value, where: str) -> tuple[int, list[dict]]:
    # The REST issue object carries a count; exported dumps carry the comment objects themselves.
    if value is None:
        return 0, []
    if isinstance(value, bool) or not isinstance(value, int | list):
        raise ImportFileError(f"{where}: field 'comments' must be a count or a list of comment objects")
    if isinstance(value, int):
        return max(value, 0), []
    comments = []
    for i, c in enumerate(value):
        here = f"{where}: comments[{i}]"
        if not isinstance(c, dict):
            raise ImportFileError(f"{here}: must be an object")
        comments.append({
            "author": _login(c.get("user", c.get("author")), "user", here),
            "body": _text(c, "body", here),
            "created_at": c.get("created_at") or "",
        })
    return len(comments), comments


def is_pull_request(obj: dict) -> bool:
    # Reference: GitHub REST "List repository issues" returns pull requests too, marked by this key.
    return bool(obj.get("pull_request"))


def record_from_github(obj: dict, where: str) -> IssueRecord:
    if not isinstance(obj, dict):
        raise ImportFileError(f"{where}: must be a JSON object, got {type(obj).__name__}")
    number = obj.get("number")
    if isinstance(number, bool) or not isinstance(number, int | str) or str(number).strip() == "":
        raise ImportFileError(f"{where}: field 'number' is missing or not a number")
    count, comments = _comments(obj.get("comments"), where)
    return IssueRecord(
        number=str(number).strip(),
        title=_text(obj, "title", where, required=True)[:1000],
        body=_text(obj, "body", where),
        url=_text(obj, "html_url", where) or _text(obj, "url", where),
        author=_login(obj.get("user", obj.get("author")), "user", where),
        state=_text(obj, "state", where).lower(),
        platform_labels=_labels(obj.get("labels"), where),
        created_at=_time(obj, "created_at", where),
        closed_at=_time(obj, "closed_at", where),
        comment_count=count,
        comments=comments,
        payload=obj,
    )
