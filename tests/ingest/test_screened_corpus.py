"""Every issue's in/out decision with its reason, and the Table 1 report built from them."""
from __future__ import annotations

import datetime as dt
from collections import Counter

import pytest
from django.urls import reverse

from annotation.selectors.labels import majority_types
from ingest.models import Source, Summary
from ingest.selectors import decisions, source_report
from ingest.services.screening import cast_vote, draw_stratum_sample
from tests.factories import label_with, make_issue, make_study, make_user

pytestmark = pytest.mark.django_db


def _issue(source, verdict=None, kept=True, year=2024):
    issue = make_issue(source, kept=kept, created_at=dt.datetime(year, 5, 1, tzinfo=dt.UTC))
    if verdict:
        Summary.objects.create(issue=issue, backend="extractive", prompt_version="1", content_hash="x", text="t",
                               verdict=verdict)
    return issue


def test_decisions_follow_reviews_then_strata(db):
    source = Source.objects.create(full_name="o/r", kind=Source.Kind.FRAMEWORK)
    relevant, not_relevant, unclear = (_issue(source, v) for v in ("relevant", "not_relevant", "unclear"))
    unmatched, unsummarised = _issue(source, kept=False), _issue(source)
    a, b, c = make_user("a"), make_user("b"), make_user("c")
    sample = draw_stratum_sample(source, "unclear", (a, b, c), seed=1)
    item = sample.items.get()
    cast_vote(a, item, True)
    cast_vote(b, item, True)
    got = decisions(source)
    assert got[relevant.pk].included is True and "not sampled" in got[relevant.pk].why
    assert got[not_relevant.pk].included is False
    assert got[unclear.pk].included is True and "reviewed in the 'unclear' sample of" in got[unclear.pk].why
    assert got[unmatched.pk].included is False and "no keyword" in got[unmatched.pk].why
    assert got[unsummarised.pk].included is None


def test_report_counts_by_year_and_type_and_the_false_positive_rate(db, lead, annotator_a):
    source = Source.objects.create(full_name="o/r", display_name="PyTorch", kind=Source.Kind.FRAMEWORK)
    in_2023 = _issue(source, "relevant", year=2023)
    in_2024 = _issue(source, "relevant", year=2024)
    _issue(source, "not_relevant", year=2024)
    _issue(source, kept=False)
    study = make_study(lead, [annotator_a], issues=[in_2023, in_2024])
    label_with(annotator_a, study, in_2023, "C.1")
    row = source_report(source)
    assert (row.stored, row.keyword_kept, row.included) == (4, 3, 2)
    assert row.by_year == {2023: 1, 2024: 1}
    types = majority_types([source.pk])
    assert Counter(types.get(i) or "unlabeled" for i in row.included_ids) == {"Bug": 1, "unlabeled": 1}
    assert (row.false_positive.successes, row.false_positive.n) == (1, 3)


def test_report_page(client_as, admin, lead, annotator_a, db):
    source = Source.objects.create(full_name="o/r", display_name="PyTorch")
    labeled = _issue(source, "relevant", year=2024)
    label_with(annotator_a, make_study(lead, [annotator_a], issues=[labeled]), labeled, "C.1")
    page = client_as(admin).get(reverse("findings:screening_report")).content.decode()
    assert "PyTorch" in page and "2024" in page and "0/1" in page
    # The type columns: one report labeled Bug by the majority of its labels.
    assert "<th>Bug</th>" in page and '<td class="num">1</td>' in page


def test_decisions_download_lists_every_issue_with_its_reason(client_as, admin, db):
    import csv
    import io

    source = Source.objects.create(full_name="o/r", kind=Source.Kind.FRAMEWORK)
    _issue(source, "relevant")
    _issue(source, kept=False)
    response = client_as(admin).get(reverse("ingest:source_decisions_csv", args=[source.pk]))
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert sorted((r["included"], r["why"]) for r in rows) == [
        ("no", "no keyword of the source's list matched"), ("yes", "pre-verdict relevant, not sampled")]
