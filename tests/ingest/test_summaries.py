"""Summaries: the built-in extractive backend, and an OpenAI-compatible endpoint served from 127.0.0.1
with its failure modes (429, 5xx, slowness, non-JSON, answers that are not what was asked)."""
from __future__ import annotations

import json
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from werkzeug import Response

from ingest.models import Source, Summary
from ingest.services.summaries import run_summary_batch, summary_for_display
from ingest.summaries import Verdict, content_hash, window
from ingest.summaries.extractive import ExtractiveSummariser, rule_verdict, summarise_text
from ingest.summaries.openai_compat import PROMPT_VERSION, ChatSummariser
from tests.factories import make_issue

pytestmark = pytest.mark.django_db

TEMPLATE_BODY = (
    "Hi team, thanks for the great work!\n\n"
    "### Before submitting a new issue...\n- [x] I searched the existing issues\n\n"
    "### Describe the bug\nLoading Llama-2-70B with tensor parallel 4 fails with an out of memory error "
    "on A100 40GB although the weights should fit.\n\n"
    "```\nTraceback (most recent call last):\n  File \"x.py\", line 3\n"
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n```\n"
)


def test_extractive_summary_prefers_the_problem_and_the_error_line_over_greetings():
    text = summarise_text("OOM with TP=4", TEMPLATE_BODY)
    assert "out of memory error on A100" in text
    assert "torch.OutOfMemoryError: CUDA out of memory" in text
    assert "thanks" not in text.lower() and "searched the existing issues" not in text


def _window_as_first_written(body, words):
    # The definition stored summaries' content hashes were made with: split on spaces, count words.
    out, count = [], 0
    for part in (body or "").split(" "):
        out.append(part)
        count += len(part.split())
        if count >= words:
            break
    return " ".join(out)


@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab. \n\t\u3000\u00a0\u2028\x1c\x85")), max_size=40), st.integers(1, 6))
def test_the_summarised_window_is_the_one_stored_hashes_were_made_with(body, words):
    assert window(body, words) == _window_as_first_written(body, words)


def test_extractive_summary_reads_only_the_first_300_words():
    body = "Intro words here. " * 100 + "The real failure is a segfault in the allocator."
    assert "segfault" not in summarise_text("t", body)


@pytest.mark.parametrize(
    ("title", "terms", "filtered", "verdict", "says"),
    [
        ("LLaMA fine-tuning hangs", {"llama", "fsdp"}, True, Verdict.RELEVANT, "in the title"),
        ("Hangs at step 3", {"fsdp", "bf16"}, True, Verdict.RELEVANT, "2 keywords"),
        ("Hangs at step 3", {"fsdp"}, True, Verdict.UNCLEAR, "only one keyword"),
        ("Docs typo", set(), True, Verdict.NOT_RELEVANT, "no keyword"),
        ("Anything", set(), False, Verdict.UNCLEAR, "no keyword list"),
    ],
)
def test_rule_verdicts_say_they_are_a_rule(title, terms, filtered, verdict, says):
    got, reason = rule_verdict(title, terms, filtered)
    assert got == verdict and reason.startswith("rule:") and says in reason


def _completion(content: str) -> dict:
    return {"id": "cmpl-1", "object": "chat.completion", "model": "test-model",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]}


GOOD = json.dumps({"summary": "Llama-2-70B runs out of memory with TP=4.", "verdict": "relevant",
                   "reason": "LLM serving memory"})


@pytest.fixture
def chat(httpserver):
    def make(timeout: float = 2.0, attempts: int = 3) -> ChatSummariser:
        return ChatSummariser(httpserver.url_for("/v1"), "test-model", api_key="sk-test", timeout=timeout,
                              attempts=attempts, backoff=0.01)

    return make


@pytest.fixture
def source(db):
    return Source.objects.create(full_name="vllm-project/vllm")


def _batch(source, summariser):
    from ingest.models import SummaryBatch

    batch = SummaryBatch.objects.create(source=source, backend=summariser.name, model=summariser.model,
                                        prompt_version=summariser.prompt_version)
    return run_summary_batch(batch, summariser)


def test_llm_summary_is_requested_in_chat_completions_format(httpserver, chat, source):
    httpserver.expect_request("/v1/chat/completions", method="POST").respond_with_json(_completion(GOOD))
    issue = make_issue(source, title="OOM with TP=4", body=TEMPLATE_BODY)
    batch = _batch(source, chat())
    summary = Summary.objects.get(issue=issue)
    assert (summary.status, summary.verdict, summary.prompt_version) == ("ok", "relevant", PROMPT_VERSION)
    assert summary.text.startswith("Llama-2-70B") and batch.made == 1
    request = httpserver.log[0][0]
    sent = request.get_json()
    assert sent["model"] == "test-model" and sent["messages"][0]["role"] == "system"
    assert "Title: OOM with TP=4" in sent["messages"][1]["content"]
    assert request.headers["Authorization"] == "Bearer sk-test"
    assert summary_for_display(issue) == summary.text


def test_a_rerun_costs_nothing_and_equal_content_shares_one_request(httpserver, chat, source):
    httpserver.expect_request("/v1/chat/completions").respond_with_json(_completion(GOOD))
    make_issue(source, title="Same", body="same body")
    make_issue(source, title="Same", body="same body")
    first = _batch(source, chat())
    assert (first.made, first.cached) == (1, 1) and len(httpserver.log) == 1
    second = _batch(source, chat())
    assert second.total == 0 and len(httpserver.log) == 1


def test_429_then_success_and_slow_answers_are_retried(httpserver, chat, source):
    httpserver.expect_oneshot_request("/v1/chat/completions").respond_with_json({"error": "busy"}, status=429)

    def slow(request):
        time.sleep(0.6)
        return Response(json.dumps(_completion(GOOD)), content_type="application/json")

    httpserver.expect_oneshot_request("/v1/chat/completions").respond_with_handler(slow)
    httpserver.expect_request("/v1/chat/completions").respond_with_json(_completion(GOOD))
    make_issue(source)
    batch = _batch(source, chat(timeout=0.3, attempts=4))
    assert batch.made == 1 and batch.failed == 0 and len(httpserver.log) >= 3


@pytest.mark.parametrize(
    ("respond", "reason"),
    [
        (lambda h: h.respond_with_data("<html>proxy error</html>", content_type="text/html"), "not JSON"),
        (lambda h: h.respond_with_json({"unexpected": True}), "not a chat completion"),
        (lambda h: h.respond_with_json(_completion("Sure! It is about LLMs.")), "holds no JSON object"),
        (lambda h: h.respond_with_json(_completion('{"summary": "x", "verdict": "maybe"}')), "'maybe'"),
    ],
)
def test_failures_are_recorded_with_the_reason_and_the_batch_goes_on(httpserver, chat, source, respond, reason):
    respond(httpserver.expect_oneshot_request("/v1/chat/completions"))
    httpserver.expect_request("/v1/chat/completions").respond_with_json(_completion(GOOD))
    broken, fine = make_issue(source, title="first"), make_issue(source, title="second")
    batch = _batch(source, chat(attempts=2))
    failed = Summary.objects.get(issue=broken)
    assert failed.status == "failed" and reason in failed.error and "/v1/chat/completions" in failed.error
    assert Summary.objects.get(issue=fine).status == "ok"
    assert (batch.failed, batch.made) == (1, 1) and reason in batch.message


def test_a_persistent_5xx_marks_the_summary_failed_naming_url_and_status(httpserver, chat, source):
    httpserver.expect_request("/v1/chat/completions").respond_with_data("down", status=503)
    issue = make_issue(source)
    batch = _batch(source, chat(attempts=2))
    failed = Summary.objects.get(issue=issue)
    assert failed.status == "failed" and "/v1/chat/completions → 503 after 2 tries" in failed.error
    assert batch.status == "succeeded" and batch.failed == 1


def test_a_failed_summary_is_made_again_by_the_next_batch(httpserver, chat, source):
    httpserver.expect_oneshot_request("/v1/chat/completions").respond_with_data("x", content_type="text/plain")
    httpserver.expect_request("/v1/chat/completions").respond_with_json(_completion(GOOD))
    issue = make_issue(source)
    _batch(source, chat(attempts=1))
    assert Summary.objects.get(issue=issue).status == "failed"
    _batch(source, chat(attempts=1))
    assert Summary.objects.get(issue=issue).status == "ok"


def test_extractive_batches_need_no_network_and_the_page_never_waits(source):
    issue = make_issue(source, title="OOM", body=TEMPLATE_BODY)
    assert "out of memory" in summary_for_display(issue)  # nothing made yet: built on the spot
    batch = _batch(source, ExtractiveSummariser())
    summary = Summary.objects.get(issue=issue)
    assert batch.made == 1 and summary.backend == "extractive" and summary.reason.startswith("rule:")
    assert summary.content_hash == content_hash(issue.title, issue.body)


def _dead_port() -> int:
    """A port on 127.0.0.1 where nothing listens: bound, then closed."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_dead_endpoint_stops_the_batch_after_three_issues_and_says_failed(source):
    # Nothing listens there, so every issue would spend every retry.
    url = f"http://127.0.0.1:{_dead_port()}/v1"
    summariser = ChatSummariser(url, "test-model", timeout=1, attempts=2, backoff=0.01)
    issues = [make_issue(source, title=f"report {n}") for n in range(6)]
    batch = _batch(source, summariser)
    assert batch.status == "failed" and batch.failed == 3 and batch.made == 0
    assert "no answer for 3 issues in a row" in batch.message and f"{url}/chat/completions" in batch.message
    assert "3 issues not tried" in batch.message
    # Each issue tried has its own recorded reason; the others are left for the next batch.
    assert Summary.objects.filter(status="failed").count() == 3
    assert not Summary.objects.filter(issue__in=issues[3:]).exists()


def test_an_endpoint_that_answers_again_resets_the_count(httpserver, source):
    # Two issues get no answer (the server is not there yet), then it answers: the batch goes on and succeeds.
    summariser = ChatSummariser(httpserver.url_for("/v1"), "test-model", timeout=1, attempts=1, backoff=0.01)
    httpserver.expect_request("/v1/chat/completions").respond_with_json(_completion(GOOD))
    for n in range(4):
        make_issue(source, title=f"report {n}")
    calls = {"n": 0}
    real_post = summariser.chat.client.post

    def flaky(url, payload):
        calls["n"] += 1
        if calls["n"] in (1, 2):
            from integrations.http import NoAnswer

            raise NoAnswer(f"POST {url}: no answer after 1 tries (ConnectionError)")
        return real_post(url, payload)

    summariser.chat.client.post = flaky
    batch = _batch(source, summariser)
    assert batch.status == "succeeded" and (batch.failed, batch.made) == (2, 2)
