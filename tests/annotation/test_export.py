from __future__ import annotations

import csv
import io

import pytest
from django.urls import reverse

from annotation.exports.labels import CSV_COLUMNS
from tests.factories import label_with

pytestmark = pytest.mark.django_db


def _rows(response) -> list[dict]:
    text = b"".join(response.streaming_content).decode("utf-8")
    return list(csv.DictReader(io.StringIO(text)))


def test_csv_has_one_row_per_report_and_annotator_label(client_as, study, lead, annotator_a, annotator_b):
    issues = list(study.issues.order_by("id"))
    label_with(annotator_a, study, issues[0], "C.6.iv", note='says "OOM", then, crashes')
    label_with(annotator_b, study, issues[0], "B.1")
    label_with(annotator_a, study, issues[1], "NR")
    response = client_as(lead).get(reverse("annotation:study_export_csv", args=[study.pk]))
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    rows = _rows(response)
    assert list(rows[0]) == CSV_COLUMNS
    assert len(rows) == 3
    first = next(r for r in rows if r["annotator"] == "alice" and r["number"] == issues[0].number)
    assert (first["type_code"], first["theme_code"], first["sub_theme_code"]) == ("C", "C.6", "C.6.iv")
    assert first["note"] == 'says "OOM", then, crashes'
    assert next(r for r in rows if r["number"] == issues[1].number)["relevant"] == "no"


def test_admin_may_export(client_as, study, admin):
    assert client_as(admin).get(reverse("annotation:study_export_csv", args=[study.pk])).status_code == 200
