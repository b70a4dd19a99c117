"""Where a language-model rater's calls go. The operator's key goes to the operator's endpoints only, which a lead
picks by name; a rater's own endpoint gets its own key, and may not reach loopback, private or link-local
addresses (checked after the name is resolved, and again on every connection, redirects included) unless the
operator allows them. Real HTTP servers on this machine record what reaches them."""
from __future__ import annotations

import gzip
import io
import json

import pytest
from django.core.management import call_command
from pytest_httpserver import HTTPServer
from werkzeug import Response

from concord.errors import FieldError
from corpus.backup import export_study
from machines.models import LlmCall, MachineRater
from machines.services.raters import add_rater
from machines.services.runs import run, start_run
from tests.factories import make_issue, make_study, make_user

pytestmark = pytest.mark.django_db
ANSWER = {"model": "m", "choices": [{"message": {"content": '{"type": "C", "theme": "C.1"}'}}]}


@pytest.fixture
def operator(settings):
    settings.LLM_ATTEMPTS = 1
    settings.LLM_TIMEOUT_SECONDS = 2
    settings.INGEST_HTTP_BACKOFF_SECONDS = 0
    settings.LLM_API_KEY = "sk-operator"
    settings.LLM_ALLOWED_NETWORKS = ""
    return settings


def _answering(server: HTTPServer) -> HTTPServer:
    server.expect_request("/v1/chat/completions", method="POST").respond_with_json(ANSWER)
    return server


def _study(n: int = 2):
    lead = make_user()
    return make_study(lead, [make_user()], issues=[make_issue(title=f"r{k}") for k in range(n)]), lead


def test_the_operators_endpoint_is_picked_by_name_and_gets_the_operators_key(httpserver, operator):
    operator.LLM_ENDPOINTS = {"local": {"base_url": httpserver.url_for("/v1"), "api_key": "sk-operator"}}
    _answering(httpserver)
    study, lead = _study()
    rater = add_rater(study, name="q", kind="llm", raw_settings={"endpoint": "local", "model": "m"})
    assert rater.settings["endpoint"] == "local" and "base_url" not in rater.settings
    done = run(start_run(rater, by=lead, send=False))
    assert done.status == "succeeded", done.message
    assert [r.headers.get("Authorization") for r, _ in httpserver.log] == ["Bearer sk-operator"] * 2
    # A key of its own makes no sense with the operator's endpoint.
    with pytest.raises(FieldError) as caught:
        add_rater(study, name="k", kind="llm", raw_settings={"endpoint": "local", "model": "m", "api_key": "x"})
    assert caught.value.field == "api_key"
    with pytest.raises(FieldError) as caught:
        add_rater(study, name="u", kind="llm", raw_settings={"endpoint": "elsewhere", "model": "m"})
    assert caught.value.field == "endpoint" and "local" in str(caught.value)


def test_an_own_endpoint_gets_its_own_key_never_the_operators(httpserver, operator, tmp_path):
    operator.LLM_ENDPOINTS = {"default": {"base_url": "https://llm.operator.invalid/v1", "api_key": "sk-operator"}}
    operator.LLM_ALLOWED_NETWORKS = "127.0.0.1/32"  # the operator lets raters reach a local server
    _answering(httpserver)
    study, lead = _study(1)
    own = add_rater(study, name="own", kind="llm",
                    raw_settings={"base_url": httpserver.url_for("/v1"), "model": "m", "api_key": "sk-own"})
    bare = add_rater(study, name="bare", kind="llm", raw_settings={"base_url": httpserver.url_for("/v1"), "model": "n"})
    for rater in (own, bare):
        assert run(start_run(rater, by=lead, send=False)).status == "succeeded"
    assert [r.headers.get("Authorization") for r, _ in httpserver.log] == ["Bearer sk-own", None]
    # The key is never written where a person or another server could read it.
    out = io.StringIO()
    call_command("raters", str(study.pk), format="json", stdout=out)
    assert "sk-own" not in out.getvalue() and "sk-operator" not in out.getvalue()
    backup = tmp_path / "study.gz"
    export_study(study, backup)
    assert b"sk-own" not in gzip.decompress(backup.read_bytes())


@pytest.mark.parametrize("url", [
    "http://127.0.0.1:{port}/v1", "http://localhost:{port}/v1", "http://[::1]:{port}/v1",
    "http://[::ffff:127.0.0.1]:{port}/v1", "http://0.0.0.0:{port}/v1", "http://169.254.169.254/latest",
    "http://10.1.2.3/v1", "http://192.168.0.1/v1", "http://100.64.0.1/v1", "http://no-such-host.invalid/v1",
])
def test_an_own_endpoint_may_not_be_an_internal_address(httpserver, operator, url):
    study, _ = _study(1)
    with pytest.raises(FieldError) as caught:
        add_rater(study, name="in", kind="llm", raw_settings={"base_url": url.format(port=httpserver.port),
                                                               "model": "m"})
    assert caught.value.field == "base_url" and "may call" in str(caught.value)
    assert not MachineRater.objects.exists() and not httpserver.log


def test_a_stored_internal_address_is_refused_when_the_run_connects(httpserver, operator):
    # Settings that never went through the form (an older rater, a restored file): the run checks them itself.
    _answering(httpserver)
    study, lead = _study(5)
    rater = MachineRater.objects.create(study=study, name="old", kind="llm",
                                        settings={"base_url": httpserver.url_for("/v1"), "model": "m"})
    done = run(start_run(rater, by=lead, send=False))
    assert done.status == "failed" and "refused" in done.message and "loopback" in done.message, done.message
    assert not httpserver.log  # nothing was sent, not even once
    assert LlmCall.objects.count() == 1  # it stopped at the first refusal


def test_a_redirect_to_an_internal_address_is_refused(httpserver, operator):
    """The first address is allowed (the operator allows 127.0.0.1); it redirects to 127.0.0.2, which is not."""
    operator.LLM_ALLOWED_NETWORKS = "127.0.0.1/32"
    inside = HTTPServer(host="127.0.0.2", port=0)
    inside.start()
    try:
        _answering(inside)
        target = inside.url_for("/v1/chat/completions")
        httpserver.expect_request("/v1/chat/completions", method="POST").respond_with_response(
            Response(status=307, headers={"Location": target}))
        study, lead = _study(1)
        rater = add_rater(study, name="r", kind="llm", raw_settings={"base_url": httpserver.url_for("/v1"),
                                                                    "model": "m", "api_key": "sk-own"})
        done = run(start_run(rater, by=lead, send=False))
        assert len(httpserver.log) == 1 and not inside.log, inside.log
        assert done.status == "failed" and "127.0.0.2" in done.message, done.message
    finally:
        inside.clear()
        inside.stop()


def test_an_operators_endpoint_gone_from_the_settings_stops_the_run(operator):
    operator.LLM_ENDPOINTS = {}
    study, lead = _study(1)
    rater = MachineRater.objects.create(study=study, name="gone", kind="llm", settings={"endpoint": "x", "model": "m"})
    done = run(start_run(rater, by=lead, send=False))
    assert done.status == "failed" and "not configured" in done.message


def test_the_page_offers_the_operators_endpoints_by_name_only(client, operator):
    operator.LLM_ENDPOINTS = {"local": {"base_url": "http://10.9.8.7:8000/v1", "api_key": "sk-operator"}}
    study, lead = _study(1)
    client.force_login(lead)
    page = client.get(f"/studies/{study.pk}/machines/").content.decode()
    assert '<option value="local">local</option>' in page
    assert "10.9.8.7" not in page and "sk-operator" not in page
    answer = client.post(f"/studies/{study.pk}/machines/add/", {"name": "q", "kind": "llm", "endpoint": "local",
                                                                 "model": "m"})
    assert answer.status_code == 302
    page = client.get(answer["Location"]).content.decode()
    assert "endpoint=local" in page and "10.9.8.7" not in page
    refused = client.post(f"/studies/{study.pk}/machines/add/", {"name": "i", "kind": "llm", "model": "m",
                                                                  "base_url": "http://127.0.0.1:9/v1"})
    assert refused.status_code == 400 and "loopback" in refused.content.decode()
    assert json.loads(json.dumps(MachineRater.objects.get(name="q").settings)) == {
        "endpoint": "local", "model": "m", "temperature": None, "seed": None, "runs": 1,
        "prompt_version": MachineRater.objects.get(name="q").settings["prompt_version"]}


def test_an_answer_one_study_holds_is_never_read_by_another_study(httpserver, operator):
    operator.LLM_ENDPOINTS = {"local": {"base_url": httpserver.url_for("/v1"), "api_key": ""}}
    _answering(httpserver)
    lead = make_user()
    report = make_issue(title="same report")
    first, second = (make_study(lead, [make_user()], issues=[report]) for _ in range(2))
    raters = [add_rater(s, name="q", kind="llm", raw_settings={"endpoint": "local", "model": "m"})
              for s in (first, second)]
    runs = [run(start_run(r, by=lead, send=False)) for r in raters]
    assert [r.cached for r in runs] == [0, 0] and len(httpserver.log) == 2
    # Within one study a re-run reads its own answers.
    assert run(start_run(raters[0], by=lead, send=False)).cached == 1 and len(httpserver.log) == 2
