"""A batch of an import finds its stored issues by probing the (source, number) index, however many issues its
own transaction has already written: the planner's statistics cannot see them, and a plan that reads every
issue of the source per batch made an import slow down with every thousand it had written."""
from __future__ import annotations

import json

import pytest
from django.db import connection

from ingest import sql
from ingest.models import Issue
from ingest.services.files import import_file
from tests.factories import make_source

pytestmark = [pytest.mark.django_db,
              pytest.mark.skipif(connection.vendor != "postgresql", reason="the hand-written upsert is PostgreSQL's")]


def test_the_lookup_of_a_batch_is_an_index_probe_inside_the_import_transaction(tmp_path):
    source = make_source("o/r")
    path = tmp_path / "a.jsonl"
    path.write_text("".join(json.dumps({"number": n, "title": f"t{n}", "body": "llm", "state": "open"}) + "\n"
                            for n in range(1, 4001)), encoding="utf-8")
    import_file(path, source)  # inside the test's transaction, as an import's batches are inside its own
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN " + sql._NUMBERS_AND_IDS, [[str(n) for n in range(3001, 4001)], source.pk])
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "issue_unique_source_number" in plan and "Bitmap" not in plan and "Seq Scan on ingest_issue" not in plan
    assert Issue.objects.filter(source=source).count() == 4000


def test_new_issues_get_the_ids_drawn_for_them_and_reingested_ones_keep_theirs(tmp_path):
    source = make_source("o/r")
    path = tmp_path / "a.jsonl"
    lines = [{"number": n, "title": f"t{n}", "body": "llm", "state": "open"} for n in (1, 2)]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    import_file(path, source)
    before = dict(Issue.objects.filter(source=source).values_list("number", "pk"))
    lines[1]["title"] = "changed"
    lines.append({"number": 3, "title": "t3", "body": "llm", "state": "open"})
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    run = import_file(path, source)
    after = dict(Issue.objects.filter(source=source).values_list("number", "pk"))
    assert (run.created, run.updated, run.unchanged) == (1, 1, 1)
    assert after["1"] == before["1"] and after["2"] == before["2"] and after["3"] > before["2"]
    assert Issue.objects.get(pk=after["2"]).title == "changed"
