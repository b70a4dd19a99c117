"""Saturation: new categories per 100 labeled reports and Guest, Namey and Chen's stopping
rule, worked by hand; the page for the lead."""
from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse

from codebook.models import ChangeLogEntry
from codebook.saturation import Change, saturation
from tests.factories import label_with

T0 = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


def _times(n: int) -> list[dt.datetime]:
    return [T0 + dt.timedelta(minutes=i) for i in range(1, n + 1)]


def _after(reports: int) -> dt.datetime:
    """Just after the `reports`-th report got its first label."""
    return T0 + dt.timedelta(minutes=reports, seconds=30)


def test_a_codebook_that_stops_growing_saturates_where_the_rule_says():
    # 40 categories at the start; the base (200 reports) adds 10: 50 known. Then runs of 100 reports bring
    # 4 (8 %), 2 (4 % ≤ 5 %: saturated at 400), 0.
    changes = [Change(_after(50), "add", 6), Change(_after(150), "split", 4), Change(_after(250), "add", 4),
               Change(_after(350), "add", 2), Change(_after(360), "rename", 0)]
    result = saturation(_times(500), changes, 40)
    assert result.base_categories == 50
    assert [(r["from"], r["to"], r["new_categories"]) for r in result.runs] == [(201, 300, 4), (301, 400, 2),
                                                                              (401, 500, 0)]
    assert [r["ratio"] for r in result.runs] == pytest.approx([0.08, 0.04, 0.0])
    assert result.saturated_at == 400 and result.still_growing is False
    assert [b["new_categories"] for b in result.bins] == [6, 4, 4, 2, 0]
    assert [b["revisions"] for b in result.bins] == [1, 1, 1, 2, 0]


def test_still_growing_and_too_few_reports():
    growing = saturation(_times(400), [Change(_after(350), "add", 5)], 40)
    assert growing.runs[-1]["ratio"] == pytest.approx(5 / 40) and growing.still_growing
    assert growing.saturated_at == 300  # the first run brought nothing new
    early = saturation(_times(120), [], 40)
    assert early.undefined_because.startswith("120 reports are labeled") and len(early.bins) == 2


@pytest.mark.django_db
def test_the_page_counts_the_studys_labels_and_change_log(study, lead, annotator_a, client_as):
    for issue in study.issues.all():
        label_with(annotator_a, study, issue, "C.1")
    ChangeLogEntry.objects.create(codebook=study.codebook, revision=99, kind="add", after=[{"code": "C.99"}],
                                  reason="r", made_by=lead)
    page = client_as(lead).get(reverse("codebook:saturation", args=[study.pk]))
    assert page.status_code == 200
    text = page.content.decode()
    assert "Not yet decidable: 3 reports are labeled" in text and 'data-testid="bins"' in text
    assert client_as(annotator_a).get(reverse("codebook:saturation", args=[study.pk])).status_code == 403
