"""The language-model rater against a real HTTP server on 127.0.0.1 replaying recorded answers: good, fenced,
malformed JSON, a refusal, a 429 before the answer, a timeout before the answer, a server that keeps failing,
and an endpoint where nothing listens. Every call is logged; a re-run costs no call that was answered."""
from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import pytest
from werkzeug import Response

from concord.errors import FieldError
from machines.models import LlmCall, MachineLabel, MachineRun
from machines.services.raters import add_rater
from machines.services.runs import run, start_run
from tests.factories import make_issue, make_study, make_user

pytestmark = pytest.mark.django_db
ANSWERS = json.loads((Path(__file__).resolve().parent / "data" / "llm-answers.json").read_text())
TITLES = ["good", "fenced", "malformed", "refusal", "rate_limited", "slow", "server_error"]


@pytest.fixture
def fast_llm(settings):
    settings.LLM_ATTEMPTS = 2
    settings.LLM_TIMEOUT_SECONDS = 0.5
    settings.INGEST_HTTP_BACKOFF_SECONDS = 0
    settings.LLM_API_KEY = "sk-test"
    # The operator lets raters' own endpoints reach this machine's loopback, where the replay server listens.
    settings.LLM_ALLOWED_NETWORKS = "127.0.0.1"


def _replay(httpserver, asked: list[str]):
    seen: dict[str, int] = {}

    def handler(request):
        body = json.loads(request.data)
        title = body["messages"][1]["content"].split("\n", 1)[0].removeprefix("Title: ")
        asked.append(title)
        seen[title] = seen.get(title, 0) + 1
        if title == "rate_limited" and seen[title] == 1:
            return Response(json.dumps(ANSWERS["rate_limited"]), status=429, content_type="application/json")
        if title == "slow" and seen[title] == 1:
            time.sleep(0.8)  # past the 0.5 s timeout; the retry is answered once this one is done
        if title == "server_error":
            return Response(json.dumps(ANSWERS["server_error"]), status=500, content_type="application/json")
        answer = ANSWERS[title] if title in {"fenced", "malformed", "refusal"} else ANSWERS["good"]
        return Response(json.dumps(answer), status=200, content_type="application/json")

    httpserver.expect_request("/v1/chat/completions", method="POST").respond_with_handler(handler)


def _study(titles=TITLES):
    lead = make_user()
    return make_study(lead, [make_user()], issues=[make_issue(title=t) for t in titles]), lead


def test_every_outcome_is_logged_and_labeled_or_recorded_unparseable(httpserver, fast_llm, settings):
    asked: list[str] = []
    _replay(httpserver, asked)
    settings.LLM_ENDPOINTS = {"replay": {"base_url": httpserver.url_for("/v1"), "api_key": "sk-test"}}
    study, lead = _study()
    rater = add_rater(study, name="qwen", kind="llm", raw_settings={
        "endpoint": "replay", "model": "qwen2.5-7b", "temperature": "0", "seed": "7"})
    done = run(start_run(rater, by=lead, send=False))
    assert done.status == "succeeded", done.message
    labels = {m.issue.title: m for m in MachineLabel.objects.filter(run=done).select_related("issue")}
    assert labels["good"].chain == ("C", "C.1", None)
    assert labels["fenced"].chain == ("NR", None, None)
    assert labels["rate_limited"].chain == ("C", "C.1", None)  # answered after backing off
    assert labels["slow"].chain == ("C", "C.1", None)  # answered on the retry after a timeout
    for title in ("malformed", "refusal", "server_error"):
        assert labels[title].unparseable and labels[title].chain is None
    assert (done.done, done.unparseable, done.failed) == (6, 2, 1)
    assert done.model_reported == "Qwen/Qwen2.5-7B-Instruct"
    assert "You label GitHub and Gitee issue reports" in done.prompt and len(done.prompt_hash) == 64
    calls = {c.issue.title: c for c in LlmCall.objects.select_related("issue")}
    assert calls["good"].prompt_tokens == 2210 and calls["good"].completion_tokens == 14
    assert calls["good"].seconds is not None and calls["good"].model == "qwen2.5-7b"
    assert calls["refusal"].failure == "refused: I can't help with that request."
    assert "500" in calls["server_error"].failure and calls["server_error"].seconds is None
    sent = json.loads(httpserver.log[0][0].data)
    assert sent["temperature"] == 0 and sent["seed"] == 7 and sent["model"] == "qwen2.5-7b"
    assert httpserver.log[0][0].headers["Authorization"] == "Bearer sk-test"

    # Again: every answered call comes from the cache; only the call that got no answer is sent again.
    asked.clear()
    again = run(start_run(rater, by=lead, send=False))
    assert asked == ["server_error", "server_error"]  # two attempts, as LLM_ATTEMPTS says
    assert again.cached == 6 and again.done == 6


def test_k_runs_per_report_measure_the_models_agreement_with_itself(httpserver, fast_llm):
    asked: list[str] = []
    _replay(httpserver, asked)
    study, lead = _study(["good", "fenced"])
    rater = add_rater(study, name="qwen-k3", kind="llm", raw_settings={
        "base_url": httpserver.url_for("/v1"), "model": "m", "runs": "3"})
    done = run(start_run(rater, by=lead, send=False))
    assert done.total == 6 and done.done == 6
    assert sorted(MachineLabel.objects.filter(run=done).values_list("attempt", flat=True)) == [0, 0, 1, 1, 2, 2]
    assert len(asked) == 6  # each run of a report is its own call: the attempt is part of the cache key


def test_an_endpoint_where_nothing_listens_stops_the_run_after_three_reports(fast_llm):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    study, lead = _study([f"r{n}" for n in range(6)])
    rater = add_rater(study, name="down", kind="llm",
                      raw_settings={"base_url": f"http://127.0.0.1:{port}/v1", "model": "m"})
    done = run(start_run(rater, by=lead, send=False))
    assert done.status == "failed"
    assert "no answer for 3 reports in a row" in done.message and f"127.0.0.1:{port}" in done.message
    assert LlmCall.objects.count() == 3 and MachineRun.objects.get().failed == 3


@pytest.mark.parametrize("raw, field", [
    ({"base_url": "ftp://x/v1", "model": "m"}, "base_url"),
    ({"base_url": "http://127.0.0.1:1/v1", "model": "m" * 201}, "model"),
    ({"base_url": "http://127.0.0.1:1/v1", "model": "m", "runs": "11"}, "runs"),
    ({"base_url": "http://127.0.0.1:1/v1", "model": "m", "temperature": "nan"}, "temperature"),
    ({"base_url": "http://127.0.0.1:1/v1", "model": "m", "seed": "9" * 30}, "seed"),
    ({"base_url": "http://127.0.0.1:1/v1", "model": "m\x00"}, "model"),
])
def test_settings_are_checked_against_their_limits(raw, field, fast_llm):
    study, _ = _study(["x"])
    with pytest.raises(FieldError) as caught:
        add_rater(study, name="bad", kind="llm", raw_settings=raw)
    assert caught.value.field == field
