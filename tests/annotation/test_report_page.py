"""A report read-only, with the labels its viewer may see; links in lists lead where they work for that person."""
from __future__ import annotations

import re

import lxml.html
import pytest
from django.urls import reverse

from annotation.services.phases import advance
from tests.factories import label_with, make_study

pytestmark = pytest.mark.django_db


@pytest.fixture
def labeled(lead, annotator_a, annotator_b):
    study = make_study(lead, [annotator_a, annotator_b], n_issues=2, lead_labels_blind=True)
    first, second = study.issues.order_by("created_at", "id")
    label_with(annotator_a, study, first, "C.1", note="NOTE-OF-ALICE")
    label_with(annotator_b, study, first, "C.2", note="NOTE-OF-BOB")
    label_with(lead, study, first, "C.1", note="NOTE-OF-LEAD")
    return study, first, second


def _links(html: str) -> list[str]:
    return [a.get("href") for a in lxml.html.fromstring(html).iter("a") if a.get("href")]


def test_after_the_blind_round_the_leads_report_list_opens_each_report_with_every_label(client_as, labeled, lead):
    study, first, _ = labeled
    label_with(lead, study, study.issues.order_by("created_at", "id")[1], "A.1")
    advance(study, lead, confirm_missing=True)  # the independent round closes: review
    client = client_as(lead)
    listing = client.get(reverse("annotation:issue_list", args=[study.pk])).content.decode()
    report_url = reverse("annotation:report", args=[study.pk, first.pk])
    assert report_url in _links(listing)
    assert reverse("annotation:issue_label", args=[study.pk, first.pk]) not in _links(listing)
    page = client.get(report_url)
    assert page.status_code == 200
    text = page.content.decode()
    assert all(note in text for note in ("NOTE-OF-ALICE", "NOTE-OF-BOB", "NOTE-OF-LEAD"))
    assert "No final label yet" in text


def test_a_lead_labeling_blind_sees_only_their_own_label_on_the_report_page(client_as, labeled, lead):
    study, first, _ = labeled
    text = client_as(lead).get(reverse("annotation:report", args=[study.pk, first.pk])).content.decode()
    assert "NOTE-OF-LEAD" in text and "NOTE-OF-ALICE" not in text and "NOTE-OF-BOB" not in text
    assert not re.search(r"\b(alice|bob)\b", text) and "final-label" not in text


def test_an_annotator_reads_any_report_of_the_study_and_sees_only_their_own_label(client_as, labeled, annotator_a):
    study, first, second = labeled
    client = client_as(annotator_a)
    text = client.get(reverse("annotation:report", args=[study.pk, first.pk])).content.decode()
    assert "NOTE-OF-ALICE" in text and "NOTE-OF-BOB" not in text and "NOTE-OF-LEAD" not in text
    assert client.get(reverse("annotation:report", args=[study.pk, second.pk])).status_code == 200
    assert client.get(reverse("annotation:report", args=[study.pk, 10**9])).status_code == 404


def test_in_the_open_round_the_list_links_to_the_labeling_page(client_as, labeled, annotator_a):
    study, first, _ = labeled
    listing = client_as(annotator_a).get(reverse("annotation:issue_list", args=[study.pk])).content.decode()
    assert reverse("annotation:issue_label", args=[study.pk, first.pk]) in _links(listing)


def test_a_lead_labeling_blind_is_offered_no_export_and_told_how_blindness_ends(client_as, labeled, lead,
                                                                                 annotator_b):
    study, *_ = labeled
    client = client_as(lead)
    export = reverse("annotation:study_export_csv", args=[study.pk])
    assert export not in _links(client.get(reverse("annotation:study_list")).content.decode())
    refused = client.get(reverse("agreement:study_agreement", args=[study.pk]))
    assert refused.status_code == 403
    assert "labeling this study blind" in refused.content.decode()
    assert "stop labeling" in refused.content.decode()
    # Once the lead sees everything the link is there, and works.
    study.lead_labels_blind = False
    study.save()
    assert export in _links(client.get(reverse("annotation:study_list")).content.decode())
    assert client.get(export).status_code == 200
