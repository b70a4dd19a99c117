"""One current label per (study, report, annotator, round); revisions keep history; codebook rules hold."""
from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.utils import timezone

from annotation.models import Label
from annotation.services.labels import LabelError, LabelInput, submit_label
from tests.factories import category, label_with

pytestmark = pytest.mark.django_db


def test_database_allows_one_current_label_per_study_report_annotator_round(study, annotator_a):
    label = label_with(annotator_a, study, study.issues.first(), "C.1")
    duplicate = Label(study=study, round=label.round, issue=label.issue, annotator=annotator_a,
                      type=category("B"), theme=category("B.1"))
    with pytest.raises(IntegrityError), transaction.atomic():
        duplicate.save()
    assert Label.objects.count() == 1


def test_database_refuses_a_relevant_label_without_type(study, annotator_a):
    with pytest.raises(IntegrityError), transaction.atomic():
        Label.objects.create(study=study, round=study.rounds.get(), issue=study.issues.first(),
                             annotator=annotator_a, is_relevant=True)


def test_resubmitting_revises_and_history_keeps_the_earlier_label(study, annotator_a):
    issue = study.issues.first()
    label_with(annotator_a, study, issue, "C.1", note="first")
    label_with(annotator_a, study, issue, "B.2.i", note="second")
    label = Label.objects.get()
    assert (label.code, label.note) == ("B.2.i", "second")
    assert [h.note for h in label.history.order_by("history_date")] == ["first", "second"]


def test_annotators_labels_are_independent(study, annotator_a, annotator_b):
    issue = study.issues.first()
    label_with(annotator_a, study, issue, "C.1")
    label_with(annotator_b, study, issue, "A.2")
    assert sorted(Label.objects.values_list("theme__code", flat=True)) == ["A.2", "C.1"]


def test_theme_must_belong_to_the_type(study, annotator_a):
    data = LabelInput(type_id=category("A").pk, theme_id=category("C.1").pk)
    with pytest.raises(LabelError) as error:
        submit_label(annotator_a, study.rounds.get(), study.issues.first(), data)
    assert error.value.field == "theme" and "C.1 does not belong to A" in error.value.message


def test_sub_theme_must_belong_to_the_theme(study, annotator_a):
    data = LabelInput(type_id=category("C").pk, theme_id=category("C.1").pk, sub_theme_id=category("C.2.i").pk)
    with pytest.raises(LabelError, match="sub_theme"):
        submit_label(annotator_a, study.rounds.get(), study.issues.first(), data)


def test_a_type_with_themes_needs_a_theme(study, annotator_a):
    with pytest.raises(LabelError, match="choose a theme of Bug"):
        submit_label(annotator_a, study.rounds.get(), study.issues.first(), LabelInput(type_id=category("C").pk))


def test_not_relevant_takes_no_category(study, annotator_a):
    label = label_with(annotator_a, study, study.issues.first(), "NR")
    assert not label.is_relevant and label.type is None and label.code == "NR"
    with pytest.raises(LabelError):
        submit_label(annotator_a, study.rounds.get(), study.issues.first(),
                     LabelInput(is_relevant=False, type_id=category("C").pk))


def test_outsiders_cannot_label(study, outsider):
    with pytest.raises(PermissionDenied):
        label_with(outsider, study, study.issues.first(), "C.1")
    assert not Label.objects.exists()


def test_a_closed_round_refuses_changes(study, annotator_a):
    label_with(annotator_a, study, study.issues.first(), "C.1")
    study.rounds.update(closed_at=timezone.now())
    with pytest.raises(LabelError, match="closed"):
        label_with(annotator_a, study, study.issues.first(), "B.1")
    assert Label.objects.get().code == "C.1"


def test_reports_outside_the_study_cannot_be_labeled(study, annotator_a):
    from tests.factories import make_issue

    with pytest.raises(LabelError, match="not in your queue"):
        label_with(annotator_a, study, make_issue(), "C.1")
