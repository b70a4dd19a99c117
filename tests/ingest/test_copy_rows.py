"""The issue columns COPY writes (ingest.copy_rows, pure, so that worker processes can render rows) are the
model's: a renamed or added field fails here, not in a PostgreSQL COPY at import time."""
from __future__ import annotations

from ingest import copy_rows
from ingest.models import Issue


def test_copy_columns_are_the_issue_models_columns():
    stored = {field.column for field in Issue._meta.concrete_fields}
    assert set(copy_rows.COLUMNS) <= stored
    # Every stored column but the id is written: a field added to the model must be added to the COPY too.
    assert stored - set(copy_rows.COLUMNS) == {"id"}
    assert {Issue._meta.get_field(name).column for name in copy_rows.FIELDS} == set(copy_rows.FIELDS)
