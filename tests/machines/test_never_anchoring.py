"""The rule that never bends: a machine's label of a report reaches a person only outside the blind rounds and
only after that person saved their own label of it (or when they rate nothing in the study)."""
from __future__ import annotations

import pytest
from django.urls import reverse

from annotation.models import Study
from annotation.services.phases import advance
from machines.models import MachineLabel, MachineRater, MachineRun
from tests.factories import label_with, make_user

pytestmark = pytest.mark.django_db


def _machine(study):
    rater = MachineRater.objects.create(study=study, name="tfidf", kind="builtin")
    run = MachineRun.objects.create(rater=rater, status="succeeded")
    for issue in study.issues.all():
        MachineLabel.objects.create(run=run, issue=issue, type_code="B", theme_code="B.2")
    return rater


def _fragment(client, study, issue):
    response = client.get(reverse("machines:report_labels", args=[study.pk, issue.pk]), headers={"HX-Request": "true"})
    assert response.status_code == 200
    return response.content.decode()


def test_nobody_sees_a_machine_label_in_the_blind_rounds(study, lead, annotator_a, client_as):
    _machine(study)
    first = study.issues.order_by("pk").first()
    label_with(annotator_a, study, first, "C.1")
    admin = make_user("root", is_staff=True)
    for person in (annotator_a, lead, admin):
        assert "B.2" not in _fragment(client_as(person), study, first)
    # Nor on any page an annotator opens while labeling.
    page = client_as(annotator_a).get(reverse("annotation:issue_label", args=[study.pk, first.pk])).content.decode()
    assert "badge-machine" not in page and "B.2 " not in page


def test_after_the_blind_rounds_only_those_who_labeled_the_report_or_rate_nothing_see_it(
        study, lead, annotator_a, annotator_b, client_as):
    _machine(study)
    first, second, _ = study.issues.order_by("pk")
    label_with(annotator_a, study, first, "C.1")
    label_with(annotator_b, study, first, "C.2")
    label_with(annotator_b, study, second, "C.2")
    admin = make_user("root", is_staff=True)
    study = advance(Study.objects.get(pk=study.pk), admin, confirm_missing=True)
    assert study.phase == "review"
    alice = client_as(annotator_a)
    shown = _fragment(alice, study, first)
    assert "B.2" in shown and "badge-machine" in shown
    assert _fragment(alice, study, second) == ""  # alice never labeled it: no anchor
    assert "B.2" in _fragment(client_as(admin), study, second)  # rates nothing in the study
    assert "B.2" in _fragment(client_as(lead), study, second)  # a lead who labeled nothing
    assert client_as(make_user("eve")).get(
        reverse("machines:report_labels", args=[study.pk, first.pk])).status_code == 404


def test_a_lead_who_labels_sees_machine_labels_of_their_own_reports_only(study, lead, annotator_a, client_as):
    _machine(study)
    first, second, _ = study.issues.order_by("pk")
    label_with(lead, study, first, "C.1")
    label_with(annotator_a, study, second, "C.1")
    study = advance(Study.objects.get(pk=study.pk), lead, confirm_missing=True)
    assert "B.2" in _fragment(client_as(lead), study, first)
    assert _fragment(client_as(lead), study, second) == ""


def test_the_review_and_adjudication_pages_load_machine_labels_from_the_fragment(
        study, lead, annotator_a, annotator_b, client_as):
    _machine(study)
    first = study.issues.order_by("pk").first()
    label_with(annotator_a, study, first, "C.1")
    label_with(annotator_b, study, first, "B.1")
    study = advance(Study.objects.get(pk=study.pk), lead, confirm_missing=True)
    url = reverse("machines:report_labels", args=[study.pk, first.pk])
    page = client_as(annotator_a).get(reverse("annotation:issue_label", args=[study.pk, first.pk])).content.decode()
    assert url in page
    study = advance(Study.objects.get(pk=study.pk), lead, confirm_missing=True)
    assert study.phase == "adjudication"
    page = client_as(lead).get(reverse("annotation:adjudicate", args=[study.pk, first.pk])).content.decode()
    assert url in page
