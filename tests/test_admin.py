"""The admin screens for sources, reports, codebooks, studies, members and labels open for an admin."""
from __future__ import annotations

import pytest
from django.urls import reverse

from tests.factories import label_with

pytestmark = pytest.mark.django_db

MODELS = ["ingest_source", "ingest_issue", "taxonomy_codebook", "taxonomy_category", "annotation_study",
          "annotation_membership", "annotation_round", "annotation_label"]


@pytest.mark.parametrize("model", MODELS)
def test_changelist_and_change_page_open(client_as, admin, study, annotator_a, model):
    label_with(annotator_a, study, study.issues.first(), "C.1")
    client = client_as(admin)
    changelist = client.get(reverse(f"admin:{model}_changelist"))
    assert changelist.status_code == 200
    app_label, model_name = model.split("_", 1)
    from django.apps import apps

    obj = apps.get_model(app_label, model_name).objects.first()
    assert client.get(reverse(f"admin:{model}_change", args=[obj.pk])).status_code == 200


def test_label_history_is_visible_to_admins(client_as, admin, study, annotator_a):
    label = label_with(annotator_a, study, study.issues.first(), "C.1", note="first")
    label_with(annotator_a, study, study.issues.first(), "C.2", note="second")
    page = client_as(admin).get(reverse("admin:annotation_label_history", args=[label.pk])).content.decode()
    assert page.count("alice") >= 2


def test_annotators_cannot_open_the_admin(client_as, annotator_a):
    assert client_as(annotator_a).get(reverse("admin:annotation_label_changelist")).status_code == 302
