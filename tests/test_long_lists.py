"""Filters by a list longer than a query can carry: one parameter past a thousand values, Django's SQL below."""
from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.models import Label, Study
from concord.long_lists import LONG
from ingest.models import Issue
from tests.factories import make_issue

pytestmark = pytest.mark.django_db
MANY = 70_000  # past PostgreSQL's 65,535 parameters and SQLite's 32,766


def _last_sql(run) -> tuple[str, int]:
    with CaptureQueriesContext(connection) as seen:
        run()
    return seen.captured_queries[-1]["sql"], len(seen.captured_queries)


def test_a_list_of_seventy_thousand_ids_finds_the_rows_among_them():
    wanted = [make_issue() for _ in range(3)]
    ids = list(range(10_000_000, 10_000_000 + MANY))
    ids[MANY // 2] = wanted[1].pk
    assert list(Issue.objects.filter(pk__in=ids).values_list("pk", flat=True)) == [wanted[1].pk]
    assert Issue.objects.exclude(pk__in=ids).count() == 2


def test_a_list_of_seventy_thousand_texts_and_of_related_rows():
    issue = make_issue(number="I8SLI3")
    numbers = [f"N{n}" for n in range(MANY)] + ["I8SLI3", None]
    assert Issue.objects.filter(number__in=numbers).get() == issue
    others = [Issue(pk=n) for n in range(20_000_000, 20_000_000 + MANY)] + [issue]
    assert not Label.objects.filter(issue__in=others).exists()
    assert list(Study.objects.filter(issues__in=others)) == []


def test_a_short_list_keeps_djangos_own_sql_and_a_long_one_travels_as_one_parameter():
    short, _ = _last_sql(lambda: list(Issue.objects.filter(pk__in=range(LONG))))
    assert " IN (" in short and "ANY" not in short and "json_each" not in short
    long, count = _last_sql(lambda: list(Issue.objects.filter(pk__in=range(LONG + 1))))
    assert count == 1 and ("= ANY(" in long or "json_each(" in long)


def test_an_empty_or_all_null_long_list_matches_nothing_without_a_query():
    make_issue()
    assert not Issue.objects.filter(pk__in=[None] * (LONG + 1)).exists()
    assert Issue.objects.exclude(pk__in=[None] * (LONG + 1)).count() == 1


def test_a_long_list_of_unhashable_values_keeps_djangos_own_sql():
    issue = make_issue(payload={"n": 7})
    wanted = [{"n": n} for n in range(LONG + 500)]
    assert list(Issue.objects.filter(payload__in=wanted)) == [issue]
