"""JSON Lines: one GitHub-shaped issue object per line."""
from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from . import ImportFileError, IssueRecord
from .github_fields import is_pull_request, record_from_github


def read_jsonl(path: str | Path) -> Iterator[IssueRecord | None]:
    """Yield a record per line (None for a pull request); raise on the first bad line."""
    name = Path(path).name
    try:
        f = open(path, encoding="utf-8")
    except OSError as exc:
        raise ImportFileError(f"{path}: cannot be read: {exc.strerror}") from exc
    with f:
        try:
            for lineno, line in enumerate(f, start=1):
                if not line.strip():
                    continue
                where = f"{name}, line {lineno}"
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ImportFileError(f"{where}: not valid JSON ({exc.msg}, column {exc.colno})") from exc
                yield None if isinstance(obj, dict) and is_pull_request(obj) else record_from_github(obj, where)
        except UnicodeDecodeError as exc:
            raise ImportFileError(f"{name}: not UTF-8 text near byte {exc.start}") from exc
