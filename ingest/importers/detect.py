"""Guess a file's format from its name and first bytes, so `--format` is rarely needed."""
from __future__ import annotations

from pathlib import Path

from . import ImportFileError
from .gh_cli import GH_FIELDS
from .json_stream import iter_objects
from .text import display_name, open_text

EXTENSIONS = {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl"}


def detect_format(path) -> str:
    suffix = Path(path).suffix.lower()
    if suffix in EXTENSIONS:
        return EXTENSIONS[suffix]
    with open_text(path) as f:
        try:
            head = f.read(4096).lstrip()
        except UnicodeDecodeError as exc:
            raise ImportFileError(f"{display_name(path)}:1: not UTF-8 text ({exc.reason})") from exc
    if head.startswith("{"):
        return "jsonl"
    if head.startswith("["):
        for _where, first, _raw in iter_objects(path):
            # gh's --json output speaks camelCase (createdAt, author, url); the REST API snake_case.
            if isinstance(first, dict) and GH_FIELDS & first.keys() and "html_url" not in first:
                return "gh"
            return "github"
        return "github"
    raise ImportFileError(
        f"{display_name(path)}: cannot tell the format (not a JSON array, JSON Lines or .csv file); "
        "pass --format github|gh|jsonl|csv"
    )
