"""File importers: each streams a file into validated issue records, or raises ImportFileError naming where.

`read_issue_file(path, format)` is the one entry point; `detect_format` guesses the format when not given.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass


class ImportFileError(ValueError):
    """Bad input; the message names the file, line and field."""


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
    source_updated_at: object
    comment_count: int
    comments: list[dict]
    payload: dict
    # What was dropped from the record but did not stop the import (a URL that is not a web link), by line.
    warnings: tuple[str, ...] = ()


# A pull request found in a file or page: counted, never stored.
PULL_REQUEST = None

FORMATS = ("github", "gh", "jsonl", "csv")


def read_issue_file(path, file_format: str) -> Iterator[IssueRecord | None]:
    from . import csv_file, gh_cli, github_json, jsonl  # cycle: each reader imports this package's records

    readers = {"github": github_json.read, "gh": gh_cli.read, "jsonl": jsonl.read, "csv": csv_file.read}
    if file_format not in readers:
        raise ImportFileError(f"unknown format {file_format!r}; use one of {', '.join(FORMATS)}")
    return readers[file_format](path)
