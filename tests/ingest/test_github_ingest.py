"""The GitHub fetcher against recorded answers served from 127.0.0.1: pages, pull requests, rate limits,
transient failures, garbage, bad repositories and tokens, and resuming."""
from __future__ import annotations

import copy
import json
import time

import pytest
from werkzeug import Response

from ingest.models import IngestRun, Issue, Source
from ingest.services.api import run_api_ingest, start_api_run
from tests.ingest.replay import GITHUB_REPO, github_pages, serve_github_listing

pytestmark = pytest.mark.django_db


@pytest.fixture
def source(db):
    return Source.objects.create(full_name=GITHUB_REPO, display_name="Fixture repo")


def _ingest(source, **kwargs) -> IngestRun:
    return run_api_ingest(start_api_run(source, **kwargs))


def test_all_pages_are_followed_by_link_header_with_comments(api_settings, httpserver, source):
    serve_github_listing(httpserver)
    run = _ingest(source)
    assert run.status == IngestRun.Status.SUCCEEDED, run.message
    assert (run.fetched, run.created, run.updated) == (13, 13, 0)
    assert sorted(int(n) for n in Issue.objects.values_list("number", flat=True)) == list(range(1, 14))
    issue = Issue.objects.get(number="13")
    assert issue.title == "Test issue 13" and issue.author == "octokit-fixture-user-a"
    assert issue.comments[0]["author"] == "jacquev6" and issue.comment_count == 42
    first = httpserver.log[0][0]
    assert first.args["state"] == "all" and first.args["per_page"] == "100"
    assert first.headers["Authorization"] == "Bearer test-token"
    assert run.high_water is not None


def test_pull_requests_in_the_listing_are_left_out(api_settings, httpserver, source):
    pages = github_pages()
    pages[0] = copy.deepcopy(pages[0])
    pages[0]["response"][0]["pull_request"] = {"url": "https://api.github.com/repos/x/y/pulls/13"}
    serve_github_listing(httpserver, pages)
    run = _ingest(source)
    assert run.skipped_pull_requests == 1 and run.created == 12
    assert not Issue.objects.filter(number="13").exists()


def test_a_rate_limit_answer_waits_for_the_reset_time(api_settings, httpserver, source):
    reset = int(time.time()) + 2
    page_one = github_pages()[0]
    seen: list[float] = []

    def first_page(request):
        seen.append(time.time())
        if len(seen) == 1:
            return Response('{"message": "API rate limit exceeded"}', status=403, content_type="application/json",
                            headers={"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(reset)})
        link = page_one["headers"]["link"].replace("https://api.github.com", httpserver.url_for("").rstrip("/"))
        return Response(json.dumps(page_one["response"]), content_type="application/json", headers={"Link": link})

    httpserver.expect_request(f"/repos/{GITHUB_REPO}/issues").respond_with_handler(first_page)
    serve_github_listing(httpserver)
    run = _ingest(source)
    assert run.status == IngestRun.Status.SUCCEEDED and run.created == 13
    # Asked again only once the reset time had passed, never before.
    assert len(seen) == 2 and seen[1] >= reset


def test_secondary_rate_limit_honours_retry_after(api_settings, httpserver, source):
    httpserver.expect_oneshot_request(f"/repos/{GITHUB_REPO}/issues").respond_with_json(
        {"message": "You have exceeded a secondary rate limit"}, status=403, headers={"Retry-After": "1"}
    )
    serve_github_listing(httpserver)
    started = time.monotonic()
    run = _ingest(source)
    assert run.status == IngestRun.Status.SUCCEEDED
    assert time.monotonic() - started >= 1.0


def test_a_502_is_retried_then_succeeds(api_settings, httpserver, source):
    httpserver.expect_oneshot_request(f"/repos/{GITHUB_REPO}/issues").respond_with_data("Bad gateway", status=502)
    serve_github_listing(httpserver)
    run = _ingest(source)
    assert run.status == IngestRun.Status.SUCCEEDED and run.created == 13 and run.errors == 0


def test_persistent_5xx_fails_the_run_naming_url_and_status(api_settings, httpserver, source):
    httpserver.expect_request(f"/repos/{GITHUB_REPO}/issues").respond_with_data("Unavailable", status=503)
    run = _ingest(source)
    assert run.status == IngestRun.Status.FAILED
    assert f"/repos/{GITHUB_REPO}/issues" in run.message and "503" in run.message


def test_a_malformed_page_keeps_what_came_before_and_the_next_run_resumes(api_settings, httpserver, source):
    pages = github_pages()
    httpserver.expect_oneshot_request("/repositories/1000/issues", query_string="per_page=3&page=3").respond_with_data(
        "<html>garbage</html>", status=200, content_type="text/html"
    )
    serve_github_listing(httpserver, pages)
    run = _ingest(source)
    assert run.status == IngestRun.Status.FAILED
    assert "/repositories/1000/issues" in run.message and "not JSON" in run.message
    assert run.fetched == 6 and Issue.objects.count() == 6
    assert run.high_water is not None

    httpserver.clear_log()
    second = _ingest(source)
    assert second.status == IngestRun.Status.SUCCEEDED
    assert httpserver.log[0][0].args["since"] == run.high_water.isoformat()
    assert Issue.objects.count() == 13


def test_incremental_run_asks_only_for_issues_updated_since_the_last_one(api_settings, httpserver, source):
    serve_github_listing(httpserver)
    first = _ingest(source)
    httpserver.clear_log()
    second = _ingest(source)
    assert httpserver.log[0][0].args["since"] == first.high_water.isoformat()
    # The replayed answers are the same: nothing is rewritten, and the run says so.
    assert (second.created, second.updated, second.unchanged) == (0, 0, 13)
    assert Issue.objects.count() == 13


@pytest.mark.parametrize(
    ("status", "body", "expected"),
    [
        (404, {"message": "Not Found"}, "404: Not Found — no such repository"),
        (401, {"message": "Bad credentials"}, "401: Bad credentials — bad or expired token"),
    ],
)
def test_bad_repository_or_token_fails_with_a_clear_message(api_settings, httpserver, source, status, body, expected):
    httpserver.expect_request(f"/repos/{GITHUB_REPO}/issues").respond_with_json(body, status=status)
    run = _ingest(source)
    assert run.status == IngestRun.Status.FAILED and expected in run.message
    assert f"/repos/{GITHUB_REPO}/issues" in run.message
    assert Issue.objects.count() == 0


def test_labeled_issue_keeps_its_labels_when_reingested(api_settings, httpserver, source, lead, annotator_a):
    from tests.factories import label_with, make_study

    serve_github_listing(httpserver)
    _ingest(source)
    issue = Issue.objects.get(number="5")
    study = make_study(lead, [annotator_a], issues=[issue])
    label_with(annotator_a, study, issue, "C.1")
    _ingest(source)
    assert issue.labels.count() == 1 and Issue.objects.count() == 13


def test_a_killed_run_is_marked_and_the_next_one_resumes_from_its_last_page(api_settings, httpserver, source):
    import datetime as dt

    killed = IngestRun.objects.create(source=source, kind=IngestRun.Kind.API, status=IngestRun.Status.RUNNING,
                                      high_water=dt.datetime(2017, 10, 1, tzinfo=dt.UTC), fetched=6)
    serve_github_listing(httpserver)
    run = _ingest(source)
    killed.refresh_from_db()
    assert killed.status == IngestRun.Status.FAILED and f"run {run.pk} resumes" in killed.message
    assert httpserver.log[0][0].args["since"] == "2017-10-01T00:00:00+00:00"
    assert run.status == IngestRun.Status.SUCCEEDED


def test_a_timeout_is_retried_then_succeeds(api_settings, httpserver, source):
    api_settings.INGEST_HTTP_TIMEOUT_SECONDS = 0.3

    def slow(request):
        time.sleep(0.8)
        return Response("[]", content_type="application/json")

    httpserver.expect_oneshot_request(f"/repos/{GITHUB_REPO}/issues").respond_with_handler(slow)
    serve_github_listing(httpserver)
    run = _ingest(source)
    assert run.status == IngestRun.Status.SUCCEEDED and run.created == 13


def test_json_that_is_not_a_list_of_issues_fails_naming_the_url(api_settings, httpserver, source):
    httpserver.expect_request(f"/repos/{GITHUB_REPO}/issues").respond_with_json({"unexpected": "object"})
    run = _ingest(source)
    assert run.status == IngestRun.Status.FAILED
    assert f"/repos/{GITHUB_REPO}/issues" in run.message and "not a list of issues" in run.message
