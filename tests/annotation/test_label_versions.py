"""A label save names the version of the label it was shown: a second press stores nothing, and a revision made
against a version that has changed since is refused unless it changes nothing."""
from __future__ import annotations

import json
import re
from dataclasses import replace

import pytest
from django.urls import reverse

from annotation.models import Label
from annotation.services.labels import LabelError, LabelInput, submit_label, version_of
from tests.factories import category

pytestmark = pytest.mark.django_db


def _choice(study, code: str, note: str = "", version: str | None = None) -> LabelInput:
    node = category(code, study.codebook)
    return LabelInput(type_id=node.parent.parent_id, theme_id=node.parent_id, sub_theme_id=node.pk, note=note,
                      version=version)


def test_a_second_identical_save_stores_nothing(study, annotator_a):
    issue = study.issues.first()
    round = study.current_round
    first = submit_label(annotator_a, round, issue, _choice(study, "C.1.i", version=""))
    again = submit_label(annotator_a, round, issue, _choice(study, "C.1.i", version=""))
    assert again.pk == first.pk and again.updated_at == first.updated_at
    assert Label.history.filter(annotator=annotator_a).count() == 1


def test_a_revision_against_a_changed_label_is_refused_and_changes_nothing(study, annotator_a):
    issue = study.issues.first()
    round = study.current_round
    shown = version_of(submit_label(annotator_a, round, issue, _choice(study, "C.1.i", version="")))
    # Another tab revises the label meanwhile.
    submit_label(annotator_a, round, issue, _choice(study, "C.2.i", version=shown))
    with pytest.raises(LabelError) as refused:
        submit_label(annotator_a, round, issue, _choice(study, "C.3.i", version=shown))
    assert refused.value.field == "version" and "C.2.i" in refused.value.message
    # A page that showed no label at all is refused too, unless it would change nothing.
    with pytest.raises(LabelError):
        submit_label(annotator_a, round, issue, _choice(study, "C.3.i", version=""))
    submit_label(annotator_a, round, issue, _choice(study, "C.2.i", version=""))
    with pytest.raises(LabelError):
        submit_label(annotator_a, round, issue, _choice(study, "C.3.i", version="not a time\x00"))
    label = Label.objects.get(annotator=annotator_a)
    assert label.code == "C.2.i" and label.history.count() == 2
    # With the version the page now shows, the revision goes through.
    submit_label(annotator_a, round, issue, _choice(study, "C.3.i", version=version_of(label)))
    assert Label.objects.get(annotator=annotator_a).code == "C.3.i"


def test_a_note_is_stored_with_the_line_breaks_the_page_showed(study, annotator_a):
    label = submit_label(annotator_a, study.current_round, study.issues.first(),
                         replace(_choice(study, "C.1.i"), note="first line\r\nsecond line\r\n"))
    assert label.note == "first line\nsecond line"


def test_the_page_refuses_a_stale_revision_and_offers_the_current_version(client_as, study, annotator_a):
    issue = study.issues.first()
    round = study.current_round
    shown = version_of(submit_label(annotator_a, round, issue, _choice(study, "C.1.i", version="")))
    submit_label(annotator_a, round, issue, _choice(study, "C.2.i", version=shown))
    c3 = category("C.3.i", study.codebook)
    post = {"type": c3.parent.parent_id, "theme": c3.parent_id, "sub_theme": c3.pk, "note": "", "version": shown}
    url = reverse("annotation:label_submit", args=[study.pk, issue.pk])
    answer = client_as(annotator_a).post(url, post, headers={"HX-Request": "true"})
    text = answer.content.decode()
    assert answer.status_code == 200 and "changed after this page showed it" in text
    offered = re.search(r'name="version" value="([^"]*)"', text).group(1)
    assert offered == version_of(Label.objects.get(annotator=annotator_a))
    assert Label.objects.get(annotator=annotator_a).code == "C.2.i"
    answer = client_as(annotator_a).post(url, {**post, "version": offered}, headers={"HX-Request": "true"})
    assert answer.status_code == 200 and Label.objects.get(annotator=annotator_a).code == "C.3.i"


def test_the_api_takes_the_version_it_answered(client_as, study, annotator_a):
    issue = study.issues.first()
    client = client_as(annotator_a)
    url = reverse("api:label_list", args=[study.pk])
    c1, c2 = category("C.1", study.codebook), category("C.2", study.codebook)
    saved = client.post(url, {"issue": issue.pk, "type": c1.parent_id, "theme": c1.pk, "version": ""},
                        content_type="application/json").json()
    stale = client.post(url, {"issue": issue.pk, "type": c2.parent_id, "theme": c2.pk, "version": ""},
                        content_type="application/json")
    assert stale.status_code == 400 and "version" in stale.json()
    fresh = client.post(url, {"issue": issue.pk, "type": c2.parent_id, "theme": c2.pk,
                              "version": saved["updated_at"]}, content_type="application/json")
    assert fresh.status_code == 201 and fresh.json()["theme_code"] == "C.2"


# A lone surrogate cannot be encoded by the test client: it goes as its escape, which the API's JSON decodes.
HOSTILE = ["x" * 5000, "a\x00b", "9" * 30, "-1", "²", "\\ud800", "2026-13-45T99:99:99+00:00", "2026-12-02T06:00:00"]


@pytest.mark.parametrize("value", HOSTILE)
def test_a_hostile_version_is_refused_and_changes_nothing(client_as, study, annotator_a, value):
    issue = study.issues.first()
    submit_label(annotator_a, study.current_round, issue, _choice(study, "C.1.i", version=""))
    c2 = category("C.2.i", study.codebook)
    client = client_as(annotator_a)
    post = {"type": c2.parent.parent_id, "theme": c2.parent_id, "sub_theme": c2.pk, "note": "", "version": value}
    page = client.post(reverse("annotation:label_submit", args=[study.pk, issue.pk]), post,
                       headers={"HX-Request": "true"})
    body = json.dumps({"issue": issue.pk, "type": c2.parent.parent_id, "theme": c2.parent_id, "version": value})
    api = client.post(reverse("api:label_list", args=[study.pk]), body.replace("\\\\ud800", "\\ud800"),
                      content_type="application/json")
    assert page.status_code < 500 and api.status_code in {400}, (page.status_code, api.status_code)
    label = Label.objects.get(annotator=annotator_a)
    assert label.code == "C.1.i" and label.history.count() == 1
