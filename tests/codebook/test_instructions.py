"""The study's instructions to annotators: written by the lead in Markdown, each change a codebook revision in the
change log, opened by themselves for each member until read."""
from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied
from django.urls import reverse

from annotation.models import Membership
from annotation.services.instructions import instructions_unread, mark_instructions_read
from codebook.models import ChangeLogEntry
from codebook.services.changes import INSTRUCTIONS_LIMIT, set_instructions
from taxonomy.services import CodebookError, copy_codebook

pytestmark = pytest.mark.django_db


def test_each_version_is_a_revision_in_the_change_log(study, lead):
    before = study.codebook.revision
    set_instructions(study, lead, "Label the *root cause*, not the symptom.", "first version")
    set_instructions(study, lead, "Label the root cause.\n\nSkip reports in Chinese only.", "Chinese reports")
    codebook = study.codebook
    codebook.refresh_from_db()
    assert codebook.revision == before + 2 and codebook.instructions_revision == before + 2
    entries = list(ChangeLogEntry.objects.filter(codebook=codebook, kind="instructions").order_by("revision"))
    assert [e.after[0]["instructions"] for e in entries] == [
        "Label the *root cause*, not the symptom.", "Label the root cause.\n\nSkip reports in Chinese only."]
    assert entries[1].before[0]["instructions"] == "Label the *root cause*, not the symptom."
    # A copy of the codebook carries them.
    assert copy_codebook(codebook, "copy").instructions.startswith("Label the root cause.")


@pytest.mark.parametrize("text, reason, expected, match", [
    ("same", "again", None, "same as before"),
    ("x\x00y", "nul", None, "NUL"),
    ("x" * (INSTRUCTIONS_LIMIT + 1), "long", None, "instructions"),
    ("new", "", None, "reason"),
    ("new", "stale page", 1, "revision"),
])
def test_refusals_change_nothing(study, lead, text, reason, expected, match):
    set_instructions(study, lead, "same", "first")
    study.codebook.refresh_from_db()
    revision = study.codebook.revision
    with pytest.raises(CodebookError, match=match):
        set_instructions(study, lead, text, reason, expected_revision=expected)
    study.codebook.refresh_from_db()
    assert study.codebook.revision == revision and study.codebook.instructions == "same"


def test_only_the_lead_or_an_admin_writes_them(study, annotator_a, client_as):
    with pytest.raises(PermissionDenied):
        set_instructions(study, annotator_a, "mine", "because")
    url = reverse("codebook:instructions", args=[study.pk])
    assert client_as(annotator_a).post(url, {"instructions": "x", "reason": "y", "revision": 1}).status_code == 403


def test_new_instructions_are_unread_until_read_and_reading_only_moves_forward(study, lead, annotator_a):
    assert not instructions_unread(annotator_a, study)  # none yet
    set_instructions(study, lead, "Version one.", "first")
    study.codebook.refresh_from_db()
    first = study.codebook.instructions_revision
    assert instructions_unread(annotator_a, study)
    mark_instructions_read(annotator_a, study, first)
    assert not instructions_unread(annotator_a, study)
    set_instructions(study, lead, "Version two.", "second")
    assert instructions_unread(annotator_a, study)
    mark_instructions_read(annotator_a, study, first)  # an old page's click
    assert instructions_unread(annotator_a, study)
    study.codebook.refresh_from_db()
    mark_instructions_read(annotator_a, study, 10**6)  # past the codebook: only up to its revision
    assert Membership.objects.get(study=study, user=annotator_a).instructions_seen == \
        study.codebook.instructions_revision


def test_the_pages(study, lead, annotator_a, client_as):
    url = reverse("codebook:instructions", args=[study.pk])
    lead_client = client_as(lead)
    response = lead_client.post(url, {"instructions": "Use **C.9** for <script>x</script> style bugs.",
                                      "reason": "clarity", "revision": study.codebook.revision})
    assert response.status_code == 302
    response = lead_client.post(url, {"instructions": "Other", "reason": "stale", "revision": 1})
    assert response.status_code == 400 and "revision" in response.content.decode()
    client = client_as(annotator_a)
    page = client.get(reverse("annotation:queue", args=[study.pk])).content.decode()
    assert "data-open-on-load" in page and "<strong>C.9</strong>" in page and "<script>x" not in page
    revision = study.codebook.__class__.objects.get(pk=study.codebook_id).instructions_revision
    response = client.post(reverse("annotation:instructions_read", args=[study.pk]), {"revision": revision},
                           headers={"HX-Request": "true"})
    assert response.status_code == 204
    page = client.get(reverse("annotation:queue", args=[study.pk])).content.decode()
    assert "data-open-on-load" not in page and 'id="instructions"' in page
    assert client.post(reverse("annotation:instructions_read", args=[study.pk]),
                       {"revision": "99999999999999999999999"}).status_code == 302


def test_a_double_click_saves_the_instructions_once(study, lead, client_as):
    url = reverse("codebook:instructions", args=[study.pk])
    sent = {"instructions": "Read the summary first.", "reason": "first", "revision": study.codebook.revision}
    client = client_as(lead)
    assert client.post(url, sent).status_code == 302
    second = client.post(url, sent)
    assert second.status_code == 400 and "nothing was changed" in second.content.decode()
    assert ChangeLogEntry.objects.filter(codebook=study.codebook, kind="instructions").count() == 1
