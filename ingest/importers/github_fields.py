"""One issue object with GitHub REST field names (also Gitee v5's, which follow them) → IssueRecord."""
from __future__ import annotations

from . import ImportFileError, IssueRecord
from .limits import checked
from .text import json_kind, label_names, login_of, number_field, text_field, time_field, url_field


def comments_of(value, where: str, author_key: str = "user", time_key: str = "created_at") -> tuple[int, list[dict]]:
    # The REST issue object carries a count; exported dumps carry the comment objects themselves.
    if value is None:
        return 0, []
    if isinstance(value, bool) or not isinstance(value, int | list):
        raise ImportFileError(f"{where}: comments: {json_kind(value)} (expected a count or a list of comment objects)")
    if isinstance(value, int):
        return max(value, 0), []
    comments = []
    for i, c in enumerate(value):
        here = f"{where}: comments[{i}]"
        if not isinstance(c, dict):
            raise ImportFileError(f"{here}: {json_kind(c)} (expected a comment object)")
        comments.append({
            "author": login_of(c.get(author_key, c.get("author")), author_key, here),
            "body": text_field(c, "body", here),
            "created_at": c.get(time_key) or c.get("created_at") or "",
        })
    return len(comments), comments


def is_pull_request(obj: dict) -> bool:
    # Reference: GitHub REST "List repository issues" returns pull requests too, marked by this key.
    return bool(obj.get("pull_request"))


def record_from_github(obj, where: str, clean_text: bool = False) -> IssueRecord:
    """clean_text: the caller checked that no string in obj holds NUL or a lone surrogate (limits.checked)."""
    if not isinstance(obj, dict):
        raise ImportFileError(f"{where}: the record is {json_kind(obj)} (expected a JSON object, one issue)")
    count, comments = comments_of(obj.get("comments"), where)
    url_key = "html_url" if obj.get("html_url") else "url"
    url, warnings = url_field(text_field(obj, url_key, where), url_key, where)
    return checked(IssueRecord(
        number=number_field(obj, "number", where),
        title=text_field(obj, "title", where, required=True),
        body=text_field(obj, "body", where),
        url=url,
        author=login_of(obj.get("user", obj.get("author")), "user", where),
        state=text_field(obj, "state", where).lower(),
        platform_labels=label_names(obj.get("labels"), where),
        created_at=time_field(obj, "created_at", where),
        # Gitee v5 names the closing time finished_at.
        closed_at=time_field(obj, "closed_at", where) or time_field(obj, "finished_at", where),
        source_updated_at=time_field(obj, "updated_at", where),
        comment_count=count,
        comments=comments,
        payload=obj,
        warnings=warnings,
    ), where, clean_text)
