"""Every hostile file of the corpus, through every importer that takes it, on the command line and through the
web upload: each ends with a message naming the file, the line or path, and the field;
a non-zero exit (CommandError) or an error on the page; and every table's row count unchanged.

The proof is on PostgreSQL (CI), which refuses what SQLite stores: lengths, NUL, lone surrogates, ranges.
"""
from __future__ import annotations

import html

import pytest
from django.apps import apps
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse

from ingest.models import IngestRun, Source
from tests.factories import make_study

from .corpus import CASES, Case, write

pytestmark = pytest.mark.django_db

# Rows that a request writes whatever it carries: the session of the logged-in client, login records.
BOOKKEEPING = {"django_session", "axes_accessattempt", "axes_accesslog"}


def row_counts() -> dict[str, int]:
    counts = {}
    for model in apps.get_models(include_auto_created=True):
        table = model._meta.db_table
        if table not in BOOKKEEPING and not model._meta.proxy:
            counts[table] = model._default_manager.count()
    return counts


def _changed(before: dict[str, int]) -> dict[str, tuple[int, int]]:
    after = row_counts()
    return {t: (before[t], after[t]) for t in before if before[t] != after[t]}


def _says(message: str, case: Case) -> None:
    assert "Traceback" not in message and "Error(" not in message, message
    missing = [e for e in case.expect if e not in message]
    assert not missing, f"{case.id}: {missing} not in: {message[:600]}"


def _command(case: Case, path) -> list:
    if case.importer == "issues":
        return ["import_issues", str(path), "--source", "hostile/repo"]
    if case.importer == "labels":
        return ["import_labels", "Hostile labels", str(path)]
    if case.importer == "codebook":
        return ["load_codebook", str(path)]
    if case.importer == "keywords":
        return ["load_keywords", str(path)]
    if case.importer == "backup":
        return ["import_study", str(path)]
    raise AssertionError(case.importer)


@pytest.mark.parametrize("case", [c for c in CASES if c.importer != "interviews"], ids=lambda c: c.id)
def test_on_the_command_line(case, tmp_path):
    path = write(case, tmp_path)
    before = row_counts()
    with pytest.raises(CommandError) as refused:
        call_command(*_command(case, path))
    _says(str(refused.value), case)
    assert _changed(before) == {}


@pytest.fixture
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


@pytest.mark.parametrize("case", [c for c in CASES if c.importer == "issues"], ids=lambda c: c.id)
def test_uploaded_issue_files(case, client_as, admin, media, django_capture_on_commit_callbacks):
    """A refused upload is recorded as a failed run on its source (which existed before), and nothing else."""
    source = Source.objects.create(full_name="hostile/repo")
    client = client_as(admin)
    before = row_counts()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("ingest:source_ingest", args=[source.pk]),
                               {"upload": "1", "file": SimpleUploadedFile(case.name, case.content)})
    assert response.status_code == 302
    if not case.content:
        page = client.get(reverse("ingest:source_detail", args=[source.pk])).content.decode()
        assert "The submitted file is empty" in page and _changed(before) == {}
        return
    run = IngestRun.objects.get(source=source)
    assert run.status == IngestRun.Status.FAILED and "Nothing was imported" in run.message
    _says(run.message, case)
    page = html.unescape(client.get(reverse("ingest:source_detail", args=[source.pk])).content.decode())
    _says(page[page.index("Nothing was imported") - 2000:], case)
    assert _changed(before) == {"ingest_ingestrun": (0, 1)}


@pytest.mark.parametrize("case", [c for c in CASES if c.importer == "codebook"], ids=lambda c: c.id)
def test_uploaded_codebooks(case, client_as, admin):
    client = client_as(admin)
    before = row_counts()
    response = client.post(reverse("taxonomy:import"), {"file": SimpleUploadedFile(case.name, case.content)})
    assert response.status_code == 400
    _says(html.unescape(response.content.decode()), case)
    assert _changed(before) == {}


@pytest.mark.parametrize("case", [c for c in CASES if c.importer == "interviews"], ids=lambda c: c.id)
def test_uploaded_interview_files(case, client_as, lead):
    study = make_study(lead, name="Interviews")
    client = client_as(lead)
    kind = "interviewees" if case.content.startswith(b"Roles") else "quotes"
    before = row_counts()
    response = client.post(reverse("interviews:interviews", args=[study.pk]),
                           {"kind": kind, "file": SimpleUploadedFile(case.name, case.content)})
    assert response.status_code == 400
    _says(html.unescape(response.content.decode()), case)
    assert _changed(before) == {}


def test_the_corpus_is_large_enough():
    # At least 60 hostile files, one per class of fault.
    assert len(CASES) >= 60 and len({c.id for c in CASES}) == len(CASES)


def test_the_importers_limits_are_the_columns():
    """Worker processes check records against constants (they import no models); these must be Issue's own."""
    from ingest.importers.limits import MAX_LENGTH
    from ingest.models import Issue

    assert MAX_LENGTH == {name: Issue._meta.get_field(name).max_length for name in MAX_LENGTH}


def test_raters_named_on_the_command_line(tmp_path, capsys):
    path = tmp_path / "named.csv"
    path.write_text("Issue_URL,alice,bob,Final_Label\nhttps://github.com/o/r/issues/1,C.1,C.2,C.1\n")
    with pytest.raises(CommandError, match="named.csv:1: column 'alice' is not the report, a rater"):
        call_command("import_labels", "Named raters", str(path))
    call_command("import_labels", "Named raters", str(path), "--raters", "alice,bob")
    assert "2 labels imported" in capsys.readouterr().out
    with pytest.raises(CommandError, match="no column named 'carol'"):
        call_command("import_labels", "Named raters", str(path), "--raters", "alice,carol")
