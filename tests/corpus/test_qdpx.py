"""The study as a REFI-QDA project: project.qde valid against the published project schema,
every report a source with its text, every label a whole-text coding by its annotator, notes as notes."""
from __future__ import annotations

import io
import zipfile

import pytest
from django.urls import reverse
from lxml import etree

from annotation.models import Label
from corpus.qdpx import NS, schema, write_qdpx
from tests.factories import label_with, make_issue, make_study, make_user

pytestmark = pytest.mark.django_db
Q = {"q": NS}


@pytest.fixture
def coded():
    lead, alice, bob = make_user("lead"), make_user("alice"), make_user("bob")
    issues = [make_issue(title="OOM at 70B", body="CUDA out of memory\x07 — naïve ✓ <b>&amp;</b>"),
              make_issue(title="Feature: LoRA", body="")]
    study = make_study(lead, [alice, bob], issues=issues, name="QDA <study> & co")
    label_with(alice, study, issues[0], "C.1", note="the memory of the GPU ran out")
    label_with(bob, study, issues[0], "C.2")
    label_with(alice, study, issues[1], "NR")
    return study, lead


def _project(coded, tmp_path):
    study, _ = coded
    path = tmp_path / "study.qdpx"
    assert write_qdpx(study, path) == 2
    archive = zipfile.ZipFile(path)
    return study, archive, etree.fromstring(archive.read("project.qde"))


def test_the_project_is_valid_against_the_published_schema(coded, tmp_path):
    _, _, root = _project(coded, tmp_path)
    checker = schema()
    assert checker.validate(root), checker.error_log


def test_reports_labels_notes_and_codes_are_all_there(coded, tmp_path):
    study, archive, root = _project(coded, tmp_path)
    sources = root.findall("q:Sources/q:TextSource", Q)
    assert len(sources) == 2
    first = next(s for s in sources if s.findtext("q:Description", namespaces=Q).endswith(
        study.issues.get(title="OOM at 70B").number))
    text = archive.read("Sources/" + first.get("plainTextPath").removeprefix("internal://")).decode()
    assert text.startswith("OOM at 70B\n\nCUDA out of memory\ufffd") and "<b>&amp;</b>" in text
    selections = first.findall("q:PlainTextSelection", Q)
    assert len(selections) == 2 and {s.get("endPosition") for s in selections} == {str(len(text))}
    users = {u.get("guid"): u.get("name") for u in root.findall("q:Users/q:User", Q)}
    codes = {c.get("guid"): c.get("name") for c in root.iter(f"{{{NS}}}Code")}
    coded_as = {users[s.get("creatingUser")]: codes[s.find("q:Coding/q:CodeRef", Q).get("targetGUID")]
                for s in selections}
    assert coded_as["alice"].startswith("C.1 ") and coded_as["bob"].startswith("C.2 ")
    note_ref = next(s for s in selections if users[s.get("creatingUser")] == "alice").find("q:NoteRef", Q)
    note = next(n for n in root.findall("q:Notes/q:Note", Q) if n.get("guid") == note_ref.get("targetGUID"))
    assert note.findtext("q:PlainTextContent", namespaces=Q) == "the memory of the GPU ran out"
    assert "NR Not relevant" in codes.values()
    # The codebook's hierarchy: sub-themes under themes under types.
    theme = next(c for c in root.iter(f"{{{NS}}}Code") if c.get("name").startswith("C.1 "))
    assert theme.getparent().get("name").startswith("C ") and len(theme.findall("q:Code", Q)) >= 1
    assert Label.objects.filter(study=study).count() == sum(
        len(s.findall("q:PlainTextSelection", Q)) for s in sources)


def test_the_lead_downloads_it(coded, client_as):
    study, lead = coded
    response = client_as(lead).get(reverse("corpus:qdpx", args=[study.pk]))
    assert response.status_code == 200
    archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    assert schema().validate(etree.fromstring(archive.read("project.qde")))
