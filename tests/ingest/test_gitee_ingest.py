"""The Gitee v5 fetcher against answers in Gitee's shape, served from 127.0.0.1."""
from __future__ import annotations

import pytest

from ingest.models import IngestRun, Issue, Source
from ingest.services.api import run_api_ingest, start_api_run
from ingest.services.keywords import SHIPPED_LISTS, load_keyword_list
from tests.ingest.replay import serve_gitee

pytestmark = pytest.mark.django_db


def test_pages_by_total_page_with_string_numbers_and_comments(api_settings, httpserver):
    serve_gitee(httpserver)
    source = Source.objects.create(platform=Source.Platform.GITEE, full_name="mindspore/mindformers")
    run = run_api_ingest(start_api_run(source))
    assert run.status == IngestRun.Status.SUCCEEDED, run.message
    assert (run.fetched, run.created, run.total) == (3, 3, 3)
    issue = Issue.objects.get(number="I8SLI3")
    assert issue.closed_at is not None and issue.author == "ascend-user"
    assert issue.comments == [{"author": "mf-maintainer", "body": "请升级到 CANN 7.0 后重试。",
                               "created_at": "2024-01-04T10:00:00+08:00"}]
    assert Issue.objects.get(number="I8TQ2A").state == "progressing"


def test_chinese_keywords_match_inside_sentences(api_settings, httpserver):
    serve_gitee(httpserver)
    keywords = load_keyword_list(SHIPPED_LISTS / "mindspore.json")
    keywords.keywords.create(term="大模型", status="accepted")
    source = Source.objects.create(platform=Source.Platform.GITEE, full_name="mindspore/mindformers",
                                   kind=Source.Kind.FRAMEWORK, keyword_list=keywords)
    run = run_api_ingest(start_api_run(source))
    # The docs typo matches nothing; neither does the LLaMA2 question: "llama2" is not the word "llama",
    # and this list has no "pipeline parallel".
    assert run.filtered_out == 2
    qwen = Issue.objects.get(number="I8SLI3")
    assert qwen.kept and set(qwen.matched_keywords.values_list("term", flat=True)) >= {"大模型", "qwen", "ascend"}
    # "HCCL error" sits in inline code, which matching ignores.
    assert not qwen.matched_keywords.filter(term="hccl error").exists()
    assert not Issue.objects.get(number="I8UU7B").kept


def test_token_goes_as_access_token_parameter(api_settings, httpserver):
    api_settings.GITEE_TOKEN = "gitee-secret"
    httpserver.expect_request("/repos/o/r/issues").respond_with_json([], headers={"total_page": "1"})
    run = run_api_ingest(start_api_run(Source.objects.create(platform=Source.Platform.GITEE, full_name="o/r")))
    assert run.status == IngestRun.Status.SUCCEEDED
    assert httpserver.log[0][0].args["access_token"] == "gitee-secret"
