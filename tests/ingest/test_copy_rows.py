"""The issue columns COPY writes (ingest.copy_rows, pure, so that worker processes can render rows) are the
model's: a renamed or added field fails here, not in a PostgreSQL COPY at import time."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ingest import copy_rows
from ingest.models import Issue


def test_copy_columns_are_the_issue_models_columns():
    stored = {field.column for field in Issue._meta.concrete_fields}
    assert set(copy_rows.COLUMNS) <= stored
    # Every stored column but the id is written: a field added to the model must be added to the COPY too.
    assert stored - set(copy_rows.COLUMNS) == {"id"}
    assert {Issue._meta.get_field(name).column for name in copy_rows.FIELDS} == set(copy_rows.FIELDS)


_UNESCAPE = {b"\\": b"\\", b"n": b"\n", b"r": b"\r", b"t": b"\t"}


def _copy_field(field: bytes) -> str:
    """A field of COPY's text format read back as PostgreSQL reads it (backslash sequences only)."""
    out, i = bytearray(), 0
    while i < len(field):
        if field[i:i + 1] == b"\\":
            out += _UNESCAPE[field[i + 1:i + 2]]
            i += 2
        else:
            out += field[i:i + 1]
            i += 1
    return out.decode()


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.characters(exclude_categories=["Cs"]))
       | st.lists(st.sampled_from(["\\", "\n", "\r", "\t", "\\n", "a", "é", "大", "\u2028", "\x85", " "])).map("".join))
def test_a_field_reads_back_as_the_text_it_was(text):
    field = copy_rows.escape(text)
    assert b"\t" not in field and b"\n" not in field and b"\r" not in field
    assert _copy_field(field) == text
