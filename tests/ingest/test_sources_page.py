"""The sources page: admins add sources, start ingests (API or file) and watch their runs."""
from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from ingest.models import IngestRun, Issue, Source, SummaryBatch
from tests.ingest.replay import GITHUB_REPO, serve_github_listing

pytestmark = pytest.mark.django_db


@pytest.fixture
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


def test_only_admins_see_sources(client_as, annotator_a, admin):
    assert client_as(annotator_a).get(reverse("ingest:source_list")).status_code == 403
    assert client_as(admin).get(reverse("ingest:source_list")).status_code == 200


def test_add_a_source(client_as, admin):
    response = client_as(admin).post(reverse("ingest:source_list"), {
        "platform": "github", "full_name": "pytorch/pytorch", "display_name": "PyTorch", "kind": "toolkit",
        "created_from": "2023-01-01", "created_to": "2025-04-30",
    })
    source = Source.objects.get()
    assert response.status_code == 302 and source.display_name == "PyTorch"
    assert str(source.created_to) == "2025-04-30"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"full_name": "justaname"}, "expected OWNER/NAME"),
        ({"kind": "framework"}, "choose a keyword list"),
        ({"created_from": "2025-01-01", "created_to": "2023-01-01"}, "ends before it starts"),
    ],
)
def test_bad_source_form_says_which_field(client_as, admin, data, message):
    form = {"platform": "github", "full_name": "o/r", "kind": "toolkit", **data}
    response = client_as(admin).post(reverse("ingest:source_list"), form)
    assert response.status_code == 400 and message in response.content.decode()
    assert not Source.objects.exists()


def test_upload_a_file_imports_it_and_shows_the_run(client_as, admin, media, django_capture_on_commit_callbacks):
    source = Source.objects.create(full_name="o/r")
    upload = SimpleUploadedFile("issues.jsonl", b'{"number": 1, "title": "A"}\n{"number": 2, "title": "B"}\n')
    client = client_as(admin)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("ingest:source_ingest", args=[source.pk]), {"upload": "1", "file": upload})
    assert response.status_code == 302
    run = IngestRun.objects.get()
    assert run.status == IngestRun.Status.SUCCEEDED and run.created == 2
    page = client.get(reverse("ingest:source_detail", args=[source.pk])).content.decode()
    assert "Succeeded" in page and "2 read: 2 new" in page


def test_a_bad_upload_shows_file_and_line_and_imports_nothing(
    client_as, admin, media, django_capture_on_commit_callbacks
):
    source = Source.objects.create(full_name="o/r")
    upload = SimpleUploadedFile("issues.jsonl", b'{"number": 1, "title": "A"}\n{oops\n')
    client = client_as(admin)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("ingest:source_ingest", args=[source.pk]), {"upload": "1", "file": upload})
    page = client.get(reverse("ingest:source_detail", args=[source.pk])).content.decode()
    assert "issues.jsonl:2: not valid JSON" in page and "Nothing was imported" in page
    assert not Issue.objects.exists()


def test_fetch_button_runs_an_api_ingest(
    client_as, admin, api_settings, httpserver, django_capture_on_commit_callbacks
):
    serve_github_listing(httpserver)
    source = Source.objects.create(full_name=GITHUB_REPO)
    with django_capture_on_commit_callbacks(execute=True):
        client_as(admin).post(reverse("ingest:source_ingest", args=[source.pk]), {"fetch": "1"})
    run = IngestRun.objects.get()
    assert run.kind == IngestRun.Kind.API and run.status == IngestRun.Status.SUCCEEDED and run.created == 13


def test_progress_polls_while_running_and_stops_when_finished(client_as, admin):
    source = Source.objects.create(full_name="o/r")
    run = IngestRun.objects.create(source=source, kind=IngestRun.Kind.API, status=IngestRun.Status.RUNNING,
                                   fetched=250, total=1000, created=200)
    client = client_as(admin)
    url = reverse("ingest:run_progress", args=[run.pk])
    running = client.get(url, headers={"HX-Request": "true"})
    html = running.content.decode()
    assert running.status_code == 200 and 'hx-trigger="every 2s"' in html and "25 %" in html and "<html" not in html
    run.status = IngestRun.Status.SUCCEEDED
    run.save()
    finished = client.get(url, headers={"HX-Request": "true"})
    assert finished.status_code == 286 and "every 2s" not in finished.content.decode()
    assert running.get("HX-Trigger") is None and finished["HX-Trigger"] == "ingest-finished"
    # The source's page re-reads its counts from itself when a run finishes.
    page = client.get(reverse("ingest:source_detail", args=[source.pk])).content.decode()
    assert 'id="source-counts"' in page and 'hx-trigger="ingest-finished from:body"' in page


def test_the_ingest_command_shows_progress_and_counts(api_settings, httpserver, capsys):
    from django.core.management import call_command

    serve_github_listing(httpserver)
    call_command("ingest_source", GITHUB_REPO, "--platform", "github")
    captured = capsys.readouterr()
    assert "13 fetched: 13 new" in captured.out
    assert "new 13" in captured.err  # the terminal progress bar
    assert Source.objects.get().full_name == GITHUB_REPO


def test_the_ingest_command_fails_loudly_on_a_bad_repository(api_settings, httpserver):
    from django.core.management import CommandError, call_command

    httpserver.expect_request("/repos/no/such/issues").respond_with_json({"message": "Not Found"}, status=404)
    with pytest.raises(CommandError, match="404"):
        call_command("ingest_source", "no/such")


def test_summarise_button_makes_summaries_and_shows_the_batch(client_as, admin, django_capture_on_commit_callbacks):
    from ingest.models import Summary
    from tests.factories import make_issue

    source = Source.objects.create(full_name="o/r")
    make_issue(source, title="OOM", body="Loading the model fails with an out of memory error on A100.")
    client = client_as(admin)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("ingest:source_ingest", args=[source.pk]), {"summarise": "1"})
    assert Summary.objects.get().text.startswith("Loading the model fails")
    page = client.get(reverse("ingest:source_detail", args=[source.pk])).content.decode()
    assert "1 made, 0 from the cache, 0 failed" in page


def test_a_run_whose_heartbeat_stopped_is_shown_interrupted_and_runs_again_in_one_click(
    client_as, admin, media, settings, django_capture_on_commit_callbacks
):
    """A killed import stayed "running" for ever."""
    import datetime as dt
    import secrets

    from django.utils import timezone

    from concord.form_tokens import FIELD

    media.mkdir(parents=True)
    path = media / "issues.jsonl"
    path.write_text('{"number": 1, "title": "A"}\n{"number": 2, "title": "B"}\n')
    source = Source.objects.create(full_name="o/r")
    long_ago = timezone.now() - dt.timedelta(seconds=settings.JOB_HEARTBEAT_STALE_SECONDS + 60)
    dead = IngestRun.objects.create(source=source, kind="file", status="running", file_path=str(path),
                                    file_format="jsonl", fetched=1, started_at=long_ago, heartbeat_at=long_ago)
    alive = IngestRun.objects.create(source=source, kind="file", status="running", file_path=str(path),
                                     file_format="jsonl", started_at=long_ago, heartbeat_at=timezone.now())
    client = client_as(admin)
    page = client.get(reverse("ingest:source_detail", args=[source.pk])).content.decode()
    dead.refresh_from_db()
    alive.refresh_from_db()
    assert dead.status == "failed" and "Interrupted: no heartbeat since" in dead.message
    assert alive.status == "running"  # still beating
    assert "Interrupted: no heartbeat since" in page and "Run this file again" in page
    token = secrets.token_hex(16)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("ingest:run_retry", args=[dead.pk]), {FIELD: token})
        client.post(reverse("ingest:run_retry", args=[dead.pk]), {FIELD: token})  # a double click: once
    again = IngestRun.objects.get(retry_of=dead)
    assert again.status == "succeeded" and again.created == 2 and Issue.objects.count() == 2


def test_a_summary_batch_whose_heartbeat_stopped_is_shown_interrupted(client_as, admin, settings):
    import datetime as dt

    from django.utils import timezone

    source = Source.objects.create(full_name="o/r")
    long_ago = timezone.now() - dt.timedelta(seconds=settings.JOB_HEARTBEAT_STALE_SECONDS + 60)
    batch = SummaryBatch.objects.create(source=source, backend="extractive", prompt_version="1", status="running",
                                        made=4, started_at=long_ago, heartbeat_at=long_ago)
    page = client_as(admin).get(reverse("ingest:source_detail", args=[source.pk])).content.decode()
    batch.refresh_from_db()
    assert batch.status == "failed" and "The 4 summaries made are kept" in batch.message
    assert "Interrupted: no heartbeat since" in page


def test_a_failed_run_is_run_again_once_from_two_tabs(client_as, admin, media, django_capture_on_commit_callbacks):
    """Two forms with two tokens (two tabs, or two admins) ask for one re-run: the second is refused."""
    import secrets

    from concord.form_tokens import FIELD

    media.mkdir(parents=True)
    path = media / "issues.jsonl"
    path.write_text('{"number": 1, "title": "A"}\n')
    failed = IngestRun.objects.create(source=Source.objects.create(full_name="o/r"), kind="file", status="failed",
                                      file_path=str(path), file_format="jsonl")
    client = client_as(admin)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("ingest:run_retry", args=[failed.pk]), {FIELD: secrets.token_hex(16)})
        page = client.post(reverse("ingest:run_retry", args=[failed.pk]), {FIELD: secrets.token_hex(16)},
                           follow=True).content.decode()
    assert IngestRun.objects.filter(retry_of=failed).count() == 1
    assert "it was run again already" in page


def test_an_upload_over_the_limit_is_refused_before_it_is_read(client_as, admin, media, settings):
    settings.UPLOAD_MAX_MB = 1
    source = Source.objects.create(full_name="o/r")
    line = b'{"number": 1, "title": "' + b"x" * 1000 + b'"}\n'
    upload = SimpleUploadedFile("issues.jsonl", line * 1100)  # about 1.1 MB
    response = client_as(admin).post(reverse("ingest:source_ingest", args=[source.pk]), {"upload": "1",
                                                                                       "file": upload})
    assert response.status_code == 413 and "at most 1 MB" in response.content.decode()
    assert not IngestRun.objects.exists() and not Issue.objects.exists()
    # The length the client announces is what counts: the body is not read to find out.
    small = SimpleUploadedFile("issues.jsonl", line)
    response = client_as(admin).post(reverse("ingest:source_ingest", args=[source.pk]), {"upload": "1",
                                     "file": small}, CONTENT_LENGTH=str(2 * 2**20))
    assert response.status_code == 413 and not IngestRun.objects.exists()
