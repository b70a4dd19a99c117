"""Saved GitHub (or Gitee) API responses: a JSON array of issue objects, one page or many."""
from __future__ import annotations

from collections.abc import Iterator

from . import PULL_REQUEST, IssueRecord
from .github_fields import is_pull_request, record_from_github
from .json_stream import iter_objects
from .limits import check_payload
from .text import scrub


def read(path) -> Iterator[IssueRecord | None]:
    for where, obj, raw in iter_objects(path):
        check_payload(raw, obj, where)
        obj = scrub(obj)
        yield PULL_REQUEST if isinstance(obj, dict) and is_pull_request(obj) else record_from_github(obj, where)
