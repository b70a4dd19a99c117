"""PostgreSQL drops the connection of a running Concord: the server terminates the backend with
pg_terminate_backend, as a restart or an administrator would. The request answers 503 saying nothing was
saved, nothing was half-saved, and the next request works on a new connection.
"""
from __future__ import annotations

import json

import pytest
from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.urls import reverse

from annotation.models import Label

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="terminates a PostgreSQL backend"),
]


def _terminate(pid: int) -> None:
    other = connections.create_connection(DEFAULT_DB_ALIAS)
    try:
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
    finally:
        other.close()


@pytest.mark.parametrize("api", [True, False], ids=["api", "page"])
def test_a_terminated_connection_is_a_503_and_the_next_request_works(client_as, study, annotator_a, api):
    client = client_as(annotator_a)
    issue = study.issues.order_by("pk").first()
    url = reverse("api:label_list", args=[study.pk]) if api else reverse("annotation:queue", args=[study.pk])
    connection.ensure_connection()
    _terminate(connection.connection.info.backend_pid)

    if api:
        response = client.post(url, json.dumps({"issue": issue.pk, "is_relevant": False}),
                               content_type="application/json")
        assert response.status_code == 503 and "nothing was saved" in response.json()["detail"]
    else:
        response = client.get(url)
        assert response.status_code == 503 and "nothing was saved" in response.content.decode()
    assert response["Retry-After"] == "5"

    # The next request opens a new connection: the label is saved once.
    response = client.post(reverse("api:label_list", args=[study.pk]),
                           json.dumps({"issue": issue.pk, "is_relevant": False}), content_type="application/json")
    assert response.status_code == 201
    assert Label.objects.filter(issue=issue, annotator=annotator_a).count() == 1


@pytest.mark.parametrize("api", [True, False], ids=["api", "page"])
def test_a_connection_lost_at_commit_is_a_503_and_nothing_is_half_saved(client_as, study, annotator_a, api):
    """The backend is terminated just after the label's row is written, so the rest of the request and the
    commit fail: still a 503, and no label."""
    client = client_as(annotator_a)
    issue = study.issues.order_by("pk").first()
    if not api:
        assert client.get(reverse("annotation:queue", args=[study.pk])).status_code == 200
    cut = []

    def terminate_after_the_insert(execute, sql, params, many, context):
        result = execute(sql, params, many, context)
        if not cut and sql.startswith('INSERT INTO "annotation_label"'):
            cut.append(sql)
            _terminate(context["connection"].connection.info.backend_pid)
        return result

    with connection.execute_wrapper(terminate_after_the_insert):
        if api:
            response = client.post(reverse("api:label_list", args=[study.pk]),
                                   json.dumps({"issue": issue.pk, "is_relevant": False}),
                                   content_type="application/json")
        else:
            response = client.post(reverse("annotation:label_submit", args=[study.pk, issue.pk]),
                                   {"type": "NR", "note": "", "version": ""})
    assert cut, "the label's row was never written: the test proves nothing"
    assert response.status_code == 503, response.content[:300]
    assert not Label.objects.filter(issue=issue, annotator=annotator_a).exists()


@pytest.mark.parametrize(("cause", "status"), [
    ("OperationalError", 503), ("AdminShutdown", 503), ("ConnectionFailure", 503),
    ("LockNotAvailable", 500), ("QueryCanceled", 500),
])
def test_whatever_escapes_the_views_is_judged_by_the_error_itself(rf, cause, status):
    """The 500 handler sees what escaped the views and the middleware (a session saved after the view): a
    connection that is gone is a 503, a lock or statement timeout on a healthy one stays a 500."""
    import psycopg
    from django.db import OperationalError

    from concord.server_errors import server_error

    error = getattr(psycopg.errors, cause, None) or getattr(psycopg, cause)
    request = rf.get("/api/studies/1/labels/")
    try:
        raise OperationalError("from the database") from error("from psycopg")
    except OperationalError:
        response = server_error(request)
    assert response.status_code == status
    if status == 503:
        assert response["Retry-After"] == "5" and "nothing was saved" in response.content.decode()
