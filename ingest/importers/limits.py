"""Pure: an issue record checked against the columns it will be stored in, so that a value PostgreSQL would
refuse stops the import with the file, line and field instead of a database error.

The limits are constants because worker processes import no models; a test keeps them equal to Issue's.
"""
from __future__ import annotations

import re

from concord.textcheck import INT32_MAX, int_problem, json_problem, length_problem, text_problem

from . import ImportFileError, IssueRecord

MAX_LENGTH = {"number": 32, "url": 500, "title": 1000, "author": 200, "state": 32}
# A JSON escape that decodes to a surrogate; only such a line can hold a lone one (raw UTF-8 cannot).
SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")
_SURROGATE_ESCAPE_BYTES = re.compile(SURROGATE_ESCAPE.pattern.encode())
# NUL arrives here as U+FFFD (see text.scrub): in a number it is as wrong as the control characters.
_CONTROL = re.compile("[\x00-\x1f\x7f\ufffd]")


def fail(where: str, field: str, problem: str) -> ImportFileError:
    return ImportFileError(f"{where}: {field}: {problem}")


def checked(record: IssueRecord, where: str, clean_text: bool = False) -> IssueRecord:
    """The record, or ImportFileError naming the first field that cannot be stored as it is. With clean_text the
    caller knows that no string in the record can hold NUL or a lone surrogate (its line had neither, raw or
    escaped), and only what is not text is walked for."""
    for field, limit in MAX_LENGTH.items():
        value = getattr(record, field)
        problem = (None if clean_text else text_problem(value)) or length_problem(value, limit)
        if problem:
            raise fail(where, field, problem)
    if _CONTROL.search(record.number):
        raise fail(where, "number", f"{record.number!r} contains a control character (expected a number such as "
                                    "1234 or I8SLI3)")
    if not clean_text and (problem := text_problem(record.body)):
        raise fail(where, "body", problem)
    if problem := int_problem(record.comment_count, 0, INT32_MAX):
        raise fail(where, "comments", problem)
    if clean_text:
        # Labels and comment authors and bodies are text; a comment's time is kept as the file gave it.
        for i, comment in enumerate(record.comments):
            if not isinstance(comment["created_at"], str) and (
                    found := json_problem(comment["created_at"], f"comments[{i}].created_at")):
                raise fail(where, found[0], found[1])
        return record
    for name, value in (("labels", record.platform_labels), ("comments", record.comments)):
        if found := json_problem(value, name):
            raise fail(where, found[0], found[1])
    return record


def check_payload(raw: str | bytes, payload, where: str) -> bool:
    """The whole original object, walked only when its raw text (or its undecoded bytes) holds what could make it
    unstorable (NUL is already replaced in the raw line); whether its text is clean, then."""
    if not (SURROGATE_ESCAPE if isinstance(raw, str) else _SURROGATE_ESCAPE_BYTES).search(raw):
        return True
    if found := json_problem(payload):
        raise fail(where, found[0], found[1])
    return False
