"""import_labels: labels made elsewhere come in all or nothing; the study's published kappas reproduce."""
from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from agreement.reports import study_agreement
from annotation.models import FinalLabel, Label, Queue, Study
from corpus.imports import ImportError_, import_labels
from ingest.models import Issue
from tests.factories import codebook, label_with, make_issue

pytestmark = pytest.mark.django_db
RELEASE = Path(__file__).parent.parent / "stats" / "data" / "paper_release_labels.csv.gz"


def _write(tmp_path, text: str, name: str = "labels.csv") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_the_studys_release_reproduces_its_published_kappas(capsys):
    call_command("import_labels", "Published", str(RELEASE), "--keep-first", "--prefix", "paper-")
    out = capsys.readouterr().out
    assert "271152 labels imported" in out and "38736 final labels" in out and "42 repeated labels skipped" in out
    study = Study.objects.get(name="Published")
    agreement = study_agreement(study.rounds.get(), resamples=50)
    by_type = {t.type.code: t.fleiss for t in agreement.per_type}
    assert round(by_type["A"].value, 3) == 0.757 and by_type["A"].n_reports == 542
    assert round(by_type["B"].value, 3) == 0.755 and by_type["B"].n_reports == 12491
    assert round(by_type["C"].value, 3) == 0.717
    assert all(t.n_raters == 7 for t in by_type.values())
    assert agreement.basis == "final labels"


def test_the_release_is_refused_without_keep_first_and_names_the_repeated_reports():
    with pytest.raises(ImportError_, match=r"6 reports are labeled twice .*mindspore/mindspore#I6UHT3"):
        import_labels("Published", RELEASE)
    assert not Label.objects.exists() and not Study.objects.filter(name="Published").exists()


LONG = """report,annotator,label,note
https://github.com/vllm-project/vllm/issues/1,ann,C.6.iv,OOM at 70B
https://github.com/vllm-project/vllm/issues/1,bob,Data Pipeline and I/O Management,
vllm-project/vllm#2,ann,NR,
https://gitee.com/mindspore/mindspore/issues/I8SLI3,ann,B.2,
ext-77,bob,A,
"""


def test_long_layout_resolves_codes_names_and_reports_and_creates_what_is_missing(tmp_path):
    existing = make_issue(number="1")  # vllm-project/vllm#1 is stored already, with its text
    summary = import_labels("Spreadsheet study", _write(tmp_path, LONG.replace(",A,", ",A.1,")), prefix="sheet-")
    assert summary.study_created and summary.layout == "long" and summary.labels_new == 5
    assert sorted(summary.annotators_created) == ["sheet-ann", "sheet-bob"]
    assert summary.reports_created == 3  # vllm#2, the Gitee report and the external id
    labels = {(lb.issue.number, lb.annotator.username): lb for lb in Label.objects.select_related("issue", "annotator")}
    assert labels[("1", "sheet-ann")].code == "C.6.iv" and labels[("1", "sheet-ann")].note == "OOM at 70B"
    assert labels[("1", "sheet-ann")].issue == existing
    assert labels[("1", "sheet-bob")].code == "C.6" and labels[("2", "sheet-ann")].code == "NR"
    gitee = Issue.objects.get(number="I8SLI3")
    assert gitee.source.platform == "gitee" and gitee.url == "https://gitee.com/mindspore/mindspore/issues/I8SLI3"
    assert not get_user_model().objects.get(username="sheet-ann").is_active
    assert Label.history.count() == 5
    again = import_labels("Spreadsheet study", _write(tmp_path, LONG.replace(",A,", ",A.1,")), prefix="sheet-")
    assert again.labels_new == 0 and again.labels_unchanged == 5 and Label.objects.count() == 5


@pytest.mark.parametrize("text, message", [
    (LONG.replace(",A,", ",Z.9,"), r"labels.csv:6: column label: 'Z.9' is not a code or name"),
    ("Issue_URL,Label1,Label2\nhttps://github.com/o/r/issues/1,C.1,C.99\n", r"labels.csv:2: column Label2: 'C.99'"),
    ("annotator,label\nann,C.1\n", "no report column"),
    ("report,annotator,label\no/r#1\x00,ann,C.1\n",
     r"labels.csv:2: column report: the issue number contains a NUL character at position \d+;"),
    (f"report,annotator,label\no/r#{'9' * 70},ann,C.1\n",
     r"labels.csv:2: column report: the issue number is 70 characters long \(at most 32\);"),
])
def test_bad_files_name_row_and_column_and_change_nothing(tmp_path, message, text):
    with pytest.raises(ImportError_, match=message):
        import_labels("Broken", _write(tmp_path, text))
    assert not Study.objects.exists() and not Label.objects.exists() and not Issue.objects.exists()


def test_an_import_never_overwrites_a_different_label(tmp_path, study, annotator_a):
    issue = study.issues.order_by("created_at", "id").first()
    label_with(annotator_a, study, issue, "C.1")
    text = f"report,annotator,label\n{issue.url},alice,C.2\n"
    with pytest.raises(ImportError_, match="already has a different label"):
        import_labels(study.name, _write(tmp_path, text))
    assert Label.objects.get().code == "C.1"


def test_imported_labels_count_in_the_annotators_queues(tmp_path, study, annotator_a):
    issue = study.issues.order_by("created_at", "id").first()
    import_labels(study.name, _write(tmp_path, f"report,annotator,label\n{issue.url},alice,C.2\n"))
    assert Queue.objects.get(annotator=annotator_a).done == 1


def test_wide_layout_with_final_labels(tmp_path):
    text = ("Issue_URL,Label1,Label2,Label3,Final_Label\n"
            "https://github.com/o/r/issues/1,C.1,C.1,C.2,C.1\n"
            "https://github.com/o/r/issues/2,B.1,C.1,B.1,B.1\n")
    summary = import_labels("Wide", _write(tmp_path, text), codebook=codebook())
    assert summary.layout == "wide" and summary.labels_new == 6 and summary.decisions == 2
    finals = {d.issue.number: d.code for d in FinalLabel.objects.select_related("issue", "theme")}
    assert finals == {"1": "C.1", "2": "B.1"}


def test_the_command_reports_errors_as_command_errors(tmp_path):
    with pytest.raises(CommandError, match="no such file"):
        call_command("import_labels", "X", str(tmp_path / "missing.csv"))


@pytest.mark.slow
def test_a_label_file_longer_than_a_query_can_carry_is_imported_whole(tmp_path):
    # PostgreSQL's protocol carries at most 65,535 parameters in one query: a list of 70,000 reports must not
    # become one parameter each, in the import's own queries or in Django's (m2m add).
    path = tmp_path / "big.csv"
    with path.open("w", encoding="utf-8") as out:
        out.write("report,annotator,label\n")
        for number in range(1, 70_001):
            out.write(f"big/tracker#{number},ann,C.6.iv\n")
    summary = import_labels("Big", path)
    assert summary.reports_created == 70_000 and summary.labels_new == 70_000
    study = Study.objects.get(name="Big")
    assert study.issues.count() == 70_000 and Label.objects.filter(study=study).count() == 70_000
    again = import_labels("Big", path)
    assert again.labels_unchanged == 70_000 and again.reports_created == 0
    assert Issue.objects.count() == 70_000


def test_a_file_read_in_batches_keeps_what_it_learned_from_one_batch_to_the_next(tmp_path, monkeypatch):
    """Batches of two labels: a label repeated batches later is still a repeat, the first final label a report is
    given is still the one kept, and a fault in the last batch still leaves nothing imported."""
    from corpus import imports

    monkeypatch.setattr(imports, "BATCH_ROWS", 2)
    rows = ["report,annotator,label", "o/r#1,ann,C.1", "o/r#2,ann,C.2", "o/r#3,bob,B.1", "o/r#4,bob,A.1",
            "o/r#1,ann,C.2", "o/r#5,ann,C.1", "o/r#3,bob,B.1"]
    with pytest.raises(ImportError_, match=r"2 reports are labeled twice .*o/r#1, o/r#3"):
        import_labels("Batches", _write(tmp_path, "\n".join(rows) + "\n"))
    assert not Study.objects.exists() and not Label.objects.exists() and not Issue.objects.exists()

    summary = import_labels("Batches", _write(tmp_path, "\n".join(rows) + "\n"), keep_first=True)
    assert summary.labels_new == 5 and summary.duplicates_skipped == 2 and summary.rows == 7
    assert summary.reports_created == 5 and summary.annotators_created == ["ann", "bob"]
    stored = {(lb.issue.number, lb.annotator.username): lb.code for lb in Label.objects.select_related(
        "issue", "annotator", "type", "theme", "sub_theme")}
    assert stored[("1", "ann")] == "C.1" and stored[("3", "bob")] == "B.1"
    assert Label.history.count() == 5

    # Again, with a label that differs from one stored only in the third batch: refused, nothing changed.
    again = rows[:5] + ["o/r#5,ann,C.2"]
    with pytest.raises(ImportError_, match="ann already has a different label for o/r#5"):
        import_labels("Batches", _write(tmp_path, "\n".join(again) + "\n"))
    assert Label.objects.count() == 5 and Label.history.count() == 5

    wide = ("Issue_URL,Label1,Label2,Final_Label\n" + "".join(f"o/r#{n},C.1,C.1,C.1\n" for n in range(6, 9))
            + "o/r#6,C.1,C.1,B.1\no/r#9,C.1,C.2,NR\n")
    summary = import_labels("Wide batches", _write(tmp_path, wide), keep_first=True)
    assert summary.decisions == 4
    finals = {d.issue.number: d.code for d in FinalLabel.objects.select_related("issue", "type", "theme")}
    assert finals == {"6": "C.1", "7": "C.1", "8": "C.1", "9": "NR"}
    with pytest.raises(ImportError_, match=r"wide.csv:3: column Label2: 'C.77'"):
        import_labels("Wide batches", _write(tmp_path, wide.replace("o/r#7,C.1,C.1", "o/r#7,C.1,C.77"), "wide.csv"))
    assert FinalLabel.objects.count() == 4


@pytest.mark.django_db(transaction=True)
def test_two_imports_at_once_into_one_study_each_end_as_one_alone_would(tmp_path):
    """Both used to make the same study, annotators and reports, and the second ended on a unique constraint."""
    from django.db import connection

    from tests.concurrency import at_once

    if connection.vendor != "postgresql":
        pytest.skip("two writers at once need PostgreSQL")
    same = _write(tmp_path, LONG.replace(",A,", ",A.1,"), "same.csv")
    other = _write(tmp_path, LONG.replace(",A,", ",A.2,"), "other.csv")
    outcomes = at_once(lambda: import_labels("At once", same), lambda: import_labels("At once", same))
    assert outcomes == [None, None]
    assert Study.objects.filter(name="At once").count() == 1 and Label.objects.count() == 5
    # A file that gives someone another label meets the first one's labels, and says so.
    outcomes = at_once(lambda: import_labels("At once too", same), lambda: import_labels("At once too", other))
    refused = [o for o in outcomes if o is not None]
    assert len(refused) == 1 and isinstance(refused[0], ImportError_) and "never overwritten" in str(refused[0])
    assert Label.objects.filter(study__name="At once too").count() == 5
