"""A codebook's second language as one file: the shipped codebook speaks Chinese; a lead downloads the file,
a translator fills it in, and the upload is one change with a reason; hostile or foreign files change nothing
and say where."""
from __future__ import annotations

import csv
import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from annotation.models import Study
from codebook.models import ChangeLogEntry
from taxonomy.second_file import COLUMNS, read_csv, to_csv
from taxonomy.services import copy_codebook
from tests.factories import category, make_study, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def own():
    """A study with its own copy of the shipped codebook, as a study set up in Concord has."""
    lead = make_user("lead")
    study = make_study(lead, [make_user("li")])
    study.codebook = copy_codebook(study.codebook, "own")
    study.save()
    return study, lead


def _rows(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


def _upload(client, study, body: bytes, reason="from our translator", revision=None, name="zh.csv"):
    study.codebook.refresh_from_db()
    return client.post(reverse("codebook:second_language_upload", args=[study.pk]), {
        "file": SimpleUploadedFile(name, body, content_type="text/csv"), "reason": reason,
        "revision": revision or study.codebook.revision}, follow=True).content.decode()


def test_the_shipped_codebook_speaks_chinese_and_a_reader_finds_by_its_words(own, client):
    study, _ = own
    codebook = study.codebook
    assert codebook.second_language == "zh-hans"
    live = codebook.categories.filter(retired_at__isnull=True)
    assert live.count() == 98 and not live.filter(name_second="").exists()
    assert not live.filter(definition_second="").exists()
    assert (category("C", codebook).name_second, category("C.2.iv", codebook).name_second) == ("缺陷", "内存碎片与泄漏")
    client.force_login(study.memberships.get(user__username="li").user)
    page = client.get(reverse("codebook:codebook", args=[study.pk]), {"q": "内存"},
                      HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "内存碎片与泄漏" in page and "C.2.iv" in page


def test_the_file_goes_out_and_comes_back_as_one_change(own, client):
    study, lead = own
    client.force_login(lead)
    text = client.get(reverse("codebook:second_language", args=[study.pk])).content.decode("utf-8-sig")
    rows = _rows(text)
    assert tuple(rows[0]) == COLUMNS and len(rows) == 98 and rows[0]["second_language"] == "zh-hans"
    assert rows[0]["code"] == "A" and rows[0]["name"] == "Question" and rows[0]["name_second"] == "问题咨询"
    # A translator rewords two categories (and, in passing, the codebook's own name of one: that changes nothing).
    for row in rows:
        if row["code"] == "C.2.iv":
            row["name_second"], row["name"] = "显存碎片与泄漏", "Renamed in the file"
        if row["code"] == "A.1":
            row["definition_second"] = "因安装指引缺失或含糊而无法安装、初始化或启动框架。"
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS)
    writer.writeheader()
    writer.writerows(rows)
    before = study.codebook.revision
    page = _upload(client, study, out.getvalue().encode())
    assert "changed on 2 categories" in page
    study.codebook.refresh_from_db()
    assert study.codebook.revision == before + 1
    entry = study.codebook.changes.get(revision=before + 1)
    assert entry.kind == ChangeLogEntry.Kind.TRANSLATE and entry.reason == "from our translator"
    assert sorted(c["code"] for c in entry.after) == ["A.1", "C.2.iv"]
    assert [c["name_second"] for c in entry.before if c["code"] == "C.2.iv"] == ["内存碎片与泄漏"]
    memory = category("C.2.iv", study.codebook)
    assert memory.name_second == "显存碎片与泄漏" and memory.name == "Memory Fragmentation and Leak"
    # The same file again (a resent form) is refused by its revision; a fresh one changes nothing and says so.
    again = _upload(client, study, out.getvalue().encode(), revision=before)
    assert f"the codebook is at revision {before + 1} now" in again
    same = _upload(client, study, out.getvalue().encode())
    assert "every text in it is the codebook&#x27;s already" in same
    assert study.codebook.changes.count() == ChangeLogEntry.objects.filter(codebook=study.codebook).count()
    study.codebook.refresh_from_db()
    assert study.codebook.revision == before + 1


def _file(mutate=None, header=COLUMNS) -> bytes:
    lines = [list(header)]
    for row in _rows(to_csv(Study.objects.get().codebook)):
        lines.append([row.get(c, "") for c in header])
    if mutate:
        mutate(lines)
    out = io.StringIO()
    csv.writer(out).writerows(lines)
    return out.getvalue().encode()


def _set(line: int, column: str, value: str):
    def mutate(lines):
        lines[line][COLUMNS.index(column)] = value
    return mutate


@pytest.mark.parametrize(("body", "says"), [
    (lambda: b"\xff\xfe not text", "zh.csv:1: not UTF-8 text"),
    (lambda: _file(header=("code", "name")), "zh.csv:1: the header lacks second_language"),
    (lambda: _file(_set(3, "name_second", "x" * 301)), "zh.csv:4: name_second: "),
    (lambda: _file(_set(2, "definition_second", "a\x00b")), "zh.csv:3: definition_second: "),
    (lambda: _file(_set(5, "second_language", "klingon")), "zh.csv:6: second_language: 'klingon' is not one of"),
    (lambda: _file(_set(5, "second_language", "en")), "zh.csv:6: second_language: en, where the lines above"),
    (lambda: _file(_set(4, "code", "A.1")), "zh.csv:5: code: A.1 is on line 3 too"),
    (lambda: _file(_set(4, "code", "Z.9")), "zh.csv:5: code: Z.9 is not a category in use"),
    (lambda: _file(lambda lines: lines.pop(7)), "it lacks 1 categories in use"),
    (lambda: _file(lambda lines: lines[3].append("extra")), "zh.csv:4: more cells than the header has columns"),
    (lambda: b"code,second_language," + b",".join(c.encode() for c in COLUMNS[-4:]) + b"\n", "no category in it"),
])
def test_a_hostile_or_foreign_file_changes_nothing_and_says_where(own, client, body, says):
    study, lead = own
    client.force_login(lead)
    before = (study.codebook.revision, category("A.1", study.codebook).name_second)
    page = _upload(client, study, body())
    assert says.replace("'", "&#x27;") in page, page[page.find("notice"):][:400]
    study.codebook.refresh_from_db()
    assert (study.codebook.revision, category("A.1", study.codebook).name_second) == before


def test_only_the_lead_uploads_and_a_reason_is_needed(own, client):
    study, lead = own
    client.force_login(study.memberships.get(user__username="li").user)
    assert client.get(reverse("codebook:second_language", args=[study.pk])).status_code == 200
    response = client.post(reverse("codebook:second_language_upload", args=[study.pk]), {
        "file": SimpleUploadedFile("zh.csv", to_csv(study.codebook).encode()), "reason": "mine", "revision": 1})
    assert response.status_code == 403
    client.force_login(lead)
    page = _upload(client, study, to_csv(study.codebook).encode(), reason="")
    assert "every change to the codebook needs a reason" in page


def test_reading_keeps_only_the_second_language_columns():
    parsed = read_csv(("\ufeff" + ",".join(COLUMNS) + "\r\nA,Question,d,,,zh-hans,问,定义,,\r\n").encode())
    assert parsed.language == "zh-hans" and parsed.texts == {"A": {"name_second": "问", "definition_second": "定义",
                                                                  "inclusion_second": "", "exclusion_second": ""}}
