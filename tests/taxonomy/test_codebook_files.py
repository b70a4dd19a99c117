"""Codebook files: JSON in the shipped shape, Markdown, REFI-QDA .qdc valid against the standard's schema;
importing JSON or .qdc starts a new codebook."""
from __future__ import annotations

import json

import pytest

from taxonomy.exports import CodebookFileError, qdc_to_codebook, schema, to_json, to_markdown, to_qdc, validate_qdc
from taxonomy.services import CodebookError, codebook_from_data, load_codebook
from tests.factories import codebook

pytestmark = pytest.mark.django_db


def _tree(codebook):
    return sorted(codebook.categories.values_list("code", "name", "level", "parent__code"))


def test_json_export_has_the_shipped_shape_and_loads_back_as_a_new_codebook():
    original = codebook()
    data = json.loads(to_json(original))
    assert [t["code"] for t in data["types"]] == ["A", "B", "C"]
    assert sum(len(th["sub_themes"]) for t in data["types"] for th in t["themes"]) == 75
    data["version"] = "copy"
    copy = codebook_from_data(data, "copy.json")
    assert copy.pk != original.pk and _tree(copy) == _tree(original)


def test_qdc_export_is_valid_refi_qda_and_round_trips(tmp_path):
    original = codebook()
    data = to_qdc(original)
    assert schema().validate(validate_qdc(data))
    path = tmp_path / "llm.qdc"
    path.write_bytes(data)
    imported = load_codebook(path)
    assert imported.pk != original.pk
    assert [(c, n) for c, n, *_ in _tree(imported)] == [(c, n) for c, n, *_ in _tree(original)]
    c1 = imported.categories.get(code="C.1")
    assert c1.definition == original.categories.get(code="C.1").definition


def test_a_foreign_qdc_without_codes_in_names_gets_positional_codes():
    data = b"""<?xml version="1.0" encoding="utf-8"?>
<CodeBook xmlns="urn:QDA-XML:codebook:1.0" origin="Other tool"><Codes>
  <Code guid="1FF58B12-6F6F-4B0C-8BE5-BBDC91F55294" name="Problems" isCodable="false">
    <Code guid="2FF58B12-6F6F-4B0C-8BE5-BBDC91F55294" name="Crashes" isCodable="true">
      <Description>It stops.</Description></Code>
  </Code></Codes></CodeBook>"""
    tree = qdc_to_codebook(data, "other.qdc")
    assert tree["types"][0]["code"] == "T1" and tree["types"][0]["themes"][0] == {
        "code": "T1.1", "name": "Crashes", "definition": "It stops.", "sub_themes": []}


@pytest.mark.parametrize("data, message", [
    (b"<CodeBook", "line 1: not well-formed XML"),
    (b'<CodeBook xmlns="urn:QDA-XML:codebook:1.0"><Codes><Code name="x" isCodable="true"/></Codes></CodeBook>',
     "line 1: not a REFI-QDA codebook"),
    (b'<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><CodeBook xmlns="urn:QDA-XML:codebook:1.0">&e;'
     b"</CodeBook>", "not a REFI-QDA codebook"),
])
def test_bad_qdc_files_are_refused_with_the_line(data, message):
    with pytest.raises(CodebookFileError, match=message):
        validate_qdc(data, "bad.qdc")


def test_a_bad_qdc_file_changes_nothing(tmp_path):
    from taxonomy.models import Codebook

    path = tmp_path / "bad.qdc"
    path.write_bytes(b"<CodeBook")
    with pytest.raises(CodebookError, match="bad.qdc: line 1"):
        load_codebook(path)
    assert not Codebook.objects.exists()


def test_markdown_reads_as_a_codebook():
    text = to_markdown(codebook())
    assert text.startswith("# LLM-centric challenges")
    assert "## C Bug" in text and "### C.1 " in text and "- **C.1.i " in text


def test_admins_import_a_qdc_file_as_a_new_codebook_from_the_page(client_as, admin, annotator_a):
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.urls import reverse

    from taxonomy.models import Codebook

    data = to_qdc(codebook())
    upload = SimpleUploadedFile("shared.qdc", data, content_type="application/xml")
    response = client_as(admin).post(reverse("taxonomy:import"), {"file": upload})
    assert response.status_code == 302 and Codebook.objects.count() == 2
    again = SimpleUploadedFile("bad.qdc", b"<CodeBook", content_type="application/xml")
    response = client_as(admin).post(reverse("taxonomy:import"), {"file": again})
    assert response.status_code == 400 and "bad.qdc: line 1" in response.content.decode()
    assert client_as(annotator_a).get(reverse("taxonomy:import")).status_code == 403


def test_importing_json_with_an_existing_name_and_version_is_refused(tmp_path):
    from taxonomy.services import import_codebook

    original = codebook()
    path = tmp_path / "same.json"
    path.write_text(to_json(original).replace(f'"version": "{original.version} (revision 1)"',
                                              f'"version": "{original.version}"'))
    with pytest.raises(CodebookError, match="exists already"):
        import_codebook(path)
