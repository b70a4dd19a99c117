"""On PostgreSQL the corpus CSV is written by the database itself (corpus.copy_export); it must say exactly what
the Python writer (corpus.exports.csv_rows, SQLite's path) says: the same rows in the same order, the same
columns, the same cell values (JSON cells compared as data), formulas neutralised the same way."""
from __future__ import annotations

import csv
import datetime
import io
import json

import pytest
from django.db import connection
from django.utils import timezone

from annotation.models import FinalLabel, Label
from corpus.copy_export import copy_csv
from corpus.exports import csv_rows
from ingest.models import Issue, Keyword, KeywordList, Summary
from machines.models import MachineLabel, MachineRater, MachineRun
from tests.factories import category, label_with, make_issue, make_study

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="COPY is PostgreSQL's"),
]


def _read(text: str) -> list[list]:
    rows = list(csv.reader(io.StringIO(text, newline="")))
    header = rows[0]
    for row in rows[1:]:
        for at, name in enumerate(header):
            if name in ("labels", "machine_labels"):
                row[at] = json.loads(row[at])
    return rows


@pytest.fixture
def varied(lead, annotator_a, annotator_b, annotator_c):
    """Reports with what a corpus cell can hold: quotes, commas, line breaks, formula starts, no creation
    date, dates with and without microseconds, keywords, summaries, not-relevant labels, every kind of final
    label and none, and a machine rater's labels."""
    when = datetime.datetime(2024, 2, 29, 12, 0, 0, tzinfo=datetime.UTC)
    issues = [
        make_issue(title='=HYPERLINK("x")', body='He said "no", then\r\nleft; ümlaut 中文 \u2028', created_at=when),
        make_issue(title="-1 is not a size", body="@here\tplease", created_at=when.replace(microsecond=1)),
        make_issue(title="+plain", body="", created_at=None),
        make_issue(title="ordinary, with a comma", body="line\nbreak", created_at=when.replace(second=1)),
        make_issue(title="two of four", body="", created_at=when.replace(second=2)),
    ]
    study = make_study(lead, [annotator_a, annotator_b, annotator_c], issues=issues, name='Study "quoted", =1')
    keywords = KeywordList.objects.create(name="bench list")
    for term in ("vllm", "-O3", "CUDA", "éclair"):
        issues[0].matched_keywords.add(Keyword.objects.create(keyword_list=keywords, term=term))
    Summary.objects.create(issue=issues[0], backend="builtin", prompt_version="1", text="old summary")
    newer = Summary.objects.create(issue=issues[0], backend="llm", prompt_version="1", text="=newer summary")
    Summary.objects.filter(pk=newer.pk).update(updated_at=timezone.now() + datetime.timedelta(hours=1))
    Summary.objects.create(issue=issues[1], backend="builtin", prompt_version="1", text="failed", status="failed")
    people = [lead, annotator_a, annotator_b, annotator_c]
    FinalLabel.objects.create(study=study, issue=issues[4], is_relevant=True, type=category("C", study.codebook),
                              method="majority", support=2, raters=4, rationale="")  # a plurality, not a majority
    for issue, codes in zip(issues[:4], (["C.1"] * 4, ["NR", "B.1", "B.1", "NR"], ["C.3.i", "C.3.i", "C.4", "A.1"],
                                     ["A.1", "C.1", "NR", "NR"]), strict=True):
        for person, code in zip(people, codes, strict=True):
            label_with(person, study, issue, code, note=f'{person.username}: "{code}",\n+note')
    Label.objects.filter(issue=issues[0]).update(updated_at=when)  # no microseconds
    FinalLabel.objects.create(study=study, issue=issues[0], is_relevant=True, type=category("C", study.codebook),
                            theme=category("C.1", study.codebook), method="majority", support=4, raters=4,
                            rationale="all four", machine_votes=1)
    FinalLabel.objects.create(study=study, issue=issues[1], is_relevant=False, method="lead", rationale="=not ours",
                              machine_votes=2)
    FinalLabel.objects.create(study=study, issue=issues[2], is_relevant=True, type=category("C", study.codebook),
                            theme=category("C.3", study.codebook), sub_theme=category("C.3.i", study.codebook),
                            method="majority", support=None, raters=4, rationale="")
    rater = MachineRater.objects.create(study=study, name="tfidf", kind="builtin", created_by=lead)
    run = MachineRun.objects.create(rater=rater, status="succeeded", done=2)
    MachineLabel.objects.create(run=run, issue=issues[0], type_code="C", theme_code="C.2")
    MachineLabel.objects.create(run=run, issue=issues[3], unparseable=True)
    return study


@pytest.mark.parametrize("raw", [False, True], ids=["neutralised", "raw"])
def test_copy_writes_what_the_python_writer_writes(varied, raw):
    expected = _read("".join(csv_rows(varied, raw=raw)))
    found = _read(b"".join(copy_csv(varied, raw=raw)).decode())
    assert found[0] == expected[0]
    assert [row[3] for row in found] == [row[3] for row in expected]  # the same reports in the same order
    assert found == expected
    assert len(found) == 6


def test_the_cells_say_what_was_stored(varied):
    rows = {row["title"]: row for row in csv.DictReader(io.StringIO(b"".join(copy_csv(varied)).decode(),
                                                                    newline=""))}
    first = rows["'=HYPERLINK(\"x\")"]
    assert first["study"] == "Study \"quoted\", =1" and first["created_at"] == "2024-02-29T12:00:00+00:00"
    assert first["matched_keywords"] == "'-O3 CUDA vllm éclair" and first["summary"] == "'=newer summary"
    assert (first["final_theme_code"], first["final_how"]) == ("C.1", "majority 4/4 (1 machine vote)")
    assert rows["two of four"]["final_how"] == "plurality 2/4"
    assert json.loads(first["labels"])[0]["time"] == "2024-02-29T12:00:00+00:00"
    assert json.loads(first["machine_labels"]) == {"tfidf": "C.2"}
    second = rows["'-1 is not a size"]
    assert second["created_at"] == "2024-02-29T12:00:00.000001+00:00" and second["body"] == "'@here\tplease"
    assert (second["final_type_code"], second["final_type"], second["final_how"]) == ("NR", "Not relevant",
                                                                                      "lead decision (2 machine votes)")
    assert second["summary"] == ""  # a failed summary is no summary
    assert rows["'+plain"]["created_at"] == "" and rows["'+plain"]["final_how"] == "majority"
    assert rows["ordinary, with a comma"]["final_type_code"] == ""
    assert json.loads(rows["ordinary, with a comma"]["machine_labels"]) == {"tfidf": ""}
    assert Issue.objects.count() == 5


def test_a_chunk_of_any_size_writes_the_same_corpus(varied, monkeypatch):
    # Reports are read a chunk at a time, their screening and machine labels with them: one report per chunk
    # crosses every boundary there is.
    whole = b"".join(copy_csv(varied)), "".join(csv_rows(varied))
    monkeypatch.setattr("corpus.columns.CHUNK", 1)
    monkeypatch.setattr("corpus.columns.RANGE_CHUNK", 1)
    assert (b"".join(copy_csv(varied)), "".join(csv_rows(varied))) == whole


def test_a_range_of_ids_that_holds_another_report_of_the_source_exports_only_the_studys(varied):
    make_issue(title="not in the study")  # of the same source, between two of the study's reports
    varied.issues.add(make_issue(title="in the study, after it"))
    found = _read(b"".join(copy_csv(varied)).decode())
    assert found == _read("".join(csv_rows(varied)))
    titles = {row[5] for row in found}
    assert "in the study, after it" in titles and "not in the study" not in titles


def test_the_json_lines_postgresql_composes_are_the_python_writers_records(varied, monkeypatch):
    """Key for key, value for value, in order, lines and keys alike; with one report per chunk too, and a study
    name holding a per cent sign and a backslash."""
    from corpus.exports import records
    from corpus.jsonl_export import jsonl_lines

    varied.name = 'Study "quoted", =1 at 100% \\ sure'
    varied.save(update_fields=["name"])
    expected = [json.loads(json.dumps(r, ensure_ascii=False)) for r in records(varied)]
    lines = list(jsonl_lines(varied))
    assert all(line.endswith("\n") and "\n" not in line[:-1] for line in lines)
    found = [json.loads(line) for line in lines]
    assert found == expected and [list(r) for r in found] == [list(r) for r in expected]
    assert found[0]["labels"][0]["time"] == "2024-02-29T12:00:00+00:00" and found[0]["machine_labels"]
    monkeypatch.setattr("corpus.columns.CHUNK", 1)
    assert [json.loads(line) for line in jsonl_lines(varied)] == expected


def test_the_json_lines_say_every_screening_verdict_and_machine_label_as_the_python_writer(varied, lead,
                                                                                              annotator_a):
    """The verdict is made from the row's own columns and the source's reviews, the machine labels in the query:
    each way a verdict is reached, in two sources, and each way a run can hold a report's label."""
    from corpus.exports import records
    from corpus.jsonl_export import jsonl_lines
    from ingest.models import ScreeningItem, ScreeningSample, ScreeningVote, Source
    from tests.factories import make_source, make_user

    other = make_source("pytorch/pytorch")
    dropped = make_issue(other, title="no keyword matched", kept=False)
    reviewed = make_issue(other, title="reviewed out")
    relevant, irrelevant, tied = (make_issue(title=title) for title in ("pre relevant", "pre not", "tied"))
    varied.issues.add(dropped, reviewed, relevant, irrelevant, tied)
    for issue, verdict in ((relevant, "relevant"), (irrelevant, "not_relevant"), (reviewed, "relevant")):
        Summary.objects.create(issue=issue, backend="builtin", prompt_version="1", text=verdict, verdict=verdict)
    # Two summaries written at the same moment: the later one decides, in both writers.
    same = timezone.now()
    for verdict in ("not_relevant", "relevant"):
        made = Summary.objects.create(issue=tied, backend=verdict, prompt_version="1", text=verdict, verdict=verdict)
        Summary.objects.filter(pk=made.pk).update(updated_at=same)
    second = make_user("second-screener")
    sample = ScreeningSample.objects.create(kind=ScreeningSample.Kind.STRATUM, status=ScreeningSample.Status.CLOSED,
                                            source=other, seed=3, stratum="relevant", reviewer_a=lead,
                                            reviewer_b=second, tiebreaker=annotator_a)
    item = ScreeningItem.objects.create(sample=sample, issue=reviewed, position=0)
    for person in (lead, second):
        ScreeningVote.objects.create(item=item, reviewer=person, is_relevant=False)
    llm = MachineRater.objects.create(study=varied, name="an llm", kind="builtin", created_by=lead)
    run = MachineRun.objects.create(rater=llm, status="succeeded", done=3)
    MachineLabel.objects.create(run=run, issue=relevant, attempt=0, unparseable=True)
    MachineLabel.objects.create(run=run, issue=relevant, attempt=1, type_code="B")
    MachineLabel.objects.create(run=run, issue=irrelevant, attempt=0, type_code="C", theme_code="C.3",
                                sub_theme_code="C.3.i")
    MachineLabel.objects.create(run=run, issue=tied, attempt=0, type_code="A", theme_code="A.1")
    unfinished = MachineRater.objects.create(study=varied, name="unfinished", kind="builtin", created_by=lead)
    MachineLabel.objects.create(run=MachineRun.objects.create(rater=unfinished, status="running"), issue=tied,
                                type_code="C")

    expected = [json.loads(json.dumps(r, ensure_ascii=False)) for r in records(varied)]
    found = [json.loads(line) for line in jsonl_lines(varied)]
    assert found == expected and [list(r) for r in found] == [list(r) for r in expected]
    said = {r["title"]: (r["screening"], r["screening_reason"].split(": ")[-1], r["machine_labels"]) for r in found}
    assert said["no keyword matched"][:2] == ("excluded", "no keyword of the source's list matched")
    assert said["reviewed out"][:2] == ("excluded", "judged not relevant")
    assert said["pre relevant"] == ("included", "pre-verdict relevant, not sampled", {"an llm": "B"})
    assert said["pre not"] == ("excluded", "pre-verdict not relevant, not sampled", {"an llm": "C.3.i"})
    assert said["tied"] == ("included", "pre-verdict relevant, not sampled", {"an llm": "A.1"})
    assert Source.objects.count() == 2 and said["+plain"][2] == {}


def test_the_json_lines_hold_the_labels_of_more_raters_than_a_function_takes_arguments(varied, lead):
    # PostgreSQL passes at most 100 arguments to a function: 51 raters' names and labels would be 102.
    from corpus.exports import records
    from corpus.jsonl_export import jsonl_lines

    first = varied.issues.order_by("pk").first()
    for n in range(51):
        rater = MachineRater.objects.create(study=varied, name=f"rater {n:02}", kind="builtin", created_by=lead)
        run = MachineRun.objects.create(rater=rater, status="succeeded", done=1)
        MachineLabel.objects.create(run=run, issue=first, type_code="C", theme_code=f"C.{n % 5 + 1}")
    expected = [json.loads(json.dumps(r, ensure_ascii=False)) for r in records(varied)]
    found = [json.loads(line) for line in jsonl_lines(varied)]
    assert found == expected
    labels = next(r["machine_labels"] for r in found if r["title"] == first.title)
    assert len(labels) == 52 and list(labels) == sorted(labels)
