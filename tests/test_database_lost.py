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
