"""`gh issue list --json number,title,body,author,createdAt,closedAt,state,labels,comments,url` output."""
from __future__ import annotations

from collections.abc import Iterator

from . import ImportFileError, IssueRecord
from .github_fields import comments_of
from .json_stream import iter_objects
from .limits import check_payload, checked
from .text import json_kind, label_names, login_of, number_field, scrub, text_field, time_field, url_field

GH_FIELDS = {"createdAt", "closedAt", "updatedAt", "author", "url"}


def record_from_gh(obj, where: str) -> IssueRecord:
    if not isinstance(obj, dict):
        raise ImportFileError(f"{where}: the record is {json_kind(obj)} (expected a JSON object, one issue)")
    count, comments = comments_of(obj.get("comments"), where, author_key="author", time_key="createdAt")
    url, warnings = url_field(text_field(obj, "url", where), "url", where)
    return checked(IssueRecord(
        number=number_field(obj, "number", where),
        title=text_field(obj, "title", where, required=True),
        body=text_field(obj, "body", where),
        url=url,
        author=login_of(obj.get("author"), "author", where),
        state=text_field(obj, "state", where).lower(),
        platform_labels=label_names(obj.get("labels"), where),
        created_at=time_field(obj, "createdAt", where),
        closed_at=time_field(obj, "closedAt", where),
        source_updated_at=time_field(obj, "updatedAt", where),
        comment_count=count,
        comments=comments,
        payload=obj,
        warnings=warnings,
    ), where)


def read(path) -> Iterator[IssueRecord]:
    # `gh issue list` lists issues only, so there are no pull requests to skip.
    for where, obj, raw in iter_objects(path):
        check_payload(raw, obj, where)
        yield record_from_gh(scrub(obj), where)
