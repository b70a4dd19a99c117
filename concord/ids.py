"""Whole numbers from query strings and forms. str.isdigit() admits "²" and 5,000-digit strings, on which
int() or the database then fail with a 500; an id here is 1 to 18 ASCII digits, within PostgreSQL's bigint."""
from __future__ import annotations

import re

_ID = re.compile(r"[0-9]{1,18}")


def parse_id(value) -> int | None:
    """The number, or None for anything else."""
    return int(value) if isinstance(value, str) and _ID.fullmatch(value) else None
