"""Whole numbers from query strings and forms. str.isdigit() admits "²" and 5,000-digit strings, on which
int() or the database then fail with a 500; an id here is 1 to 18 ASCII digits, within PostgreSQL's bigint."""
from __future__ import annotations

import re

_ID = re.compile(r"[0-9]{1,18}")


def parse_id(value) -> int | None:
    """The number, or None for anything else."""
    return int(value) if isinstance(value, str) and _ID.fullmatch(value) else None


class IdConverter:
    """`<id:name>` in URLs: a row id, 1 to 18 digits. Django's `<int:…>` takes any length, and an id past
    64 bits then fails in the database (SQLite cannot even bind it) instead of simply naming nothing: 404."""

    regex = _ID.pattern

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value) -> str:
        return str(value)
