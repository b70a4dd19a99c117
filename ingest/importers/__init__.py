"""File importers: each turns a file into validated issue records, or raises ImportFileError naming where."""
from __future__ import annotations

from dataclasses import dataclass


class ImportFileError(ValueError):
    """Bad input; the message names the file, line and field. Nothing has been written."""


@dataclass(frozen=True)
class IssueRecord:
    number: str
    title: str
    body: str
    url: str
    author: str
    state: str
    platform_labels: list[str]
    created_at: object
    closed_at: object
    comment_count: int
    comments: list[dict]
    payload: dict
