"""On PostgreSQL a file is written in one transaction, yet its progress is visible to others meanwhile."""
from __future__ import annotations

import json

import pytest
from django.db import DEFAULT_DB_ALIAS, connection, connections

from ingest.models import IngestRun, Issue
from ingest.services.files import import_file
from tests.factories import make_source

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="the single-transaction import is PostgreSQL's"),
]


def test_progress_is_published_while_the_issues_stay_invisible_until_commit(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_text("\n".join(json.dumps({"number": n, "title": f"Issue {n}"}) for n in range(1, 3001)))
    source = make_source("o/r")
    other = connections.create_connection(DEFAULT_DB_ALIAS)
    seen = []

    def look(run):
        with other.cursor() as cursor:
            cursor.execute("SELECT fetched FROM ingest_ingestrun WHERE id = %s", [run.pk])
            fetched = cursor.fetchone()[0]
            cursor.execute("SELECT count(*) FROM ingest_issue WHERE source_id = %s", [source.pk])
            seen.append((fetched, cursor.fetchone()[0]))

    try:
        run = import_file(path, source, on_progress=look)
    finally:
        other.close()
    assert run.status == IngestRun.Status.SUCCEEDED and Issue.objects.count() == 3000
    during = [s for s in seen if s[0] < 3000]
    assert during and all(fetched > 0 and visible == 0 for fetched, visible in during)
