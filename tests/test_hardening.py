"""Smaller safety rules: the tie-breaker sees disagreements only, the API schema is for
people with an account, passwords pass Django's four validators, the API is throttled, the lock-out counts the
client's address (behind a proxy, the one the proxy wrote), and a server without a secret refuses to start."""
from __future__ import annotations

import pytest
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.test import Client, RequestFactory
from django.urls import reverse
from rest_framework.throttling import SimpleRateThrottle

from concord.client_ip import client_ip
from ingest.models import Keyword, KeywordList, Source
from ingest.services.screening import cast_vote, draw_keyword_sample
from tests.factories import make_issue, make_user

pytestmark = pytest.mark.django_db


def test_the_tiebreaker_cannot_read_votes_on_items_the_screeners_agreed_on(client_as):
    a, b, c = make_user("scr-a"), make_user("scr-b"), make_user("scr-c")
    keyword_list = KeywordList.objects.create(name="k")
    keyword = keyword_list.keywords.create(term="llm", status=Keyword.Status.CANDIDATE)
    source = Source.objects.create(full_name="o/r", keyword_list=keyword_list)
    make_issue(source, title="llm one")
    make_issue(source, title="llm two")
    sample = draw_keyword_sample(keyword, (a, b, c), seed=1, size=2)
    agreed, split = sample.items.order_by("position")
    cast_vote(a, agreed, True, "AGREED-NOTE-A")
    cast_vote(b, agreed, True, "AGREED-NOTE-B")
    cast_vote(a, split, True, "SPLIT-NOTE-A")
    cast_vote(b, split, False, "SPLIT-NOTE-B")
    client = client_as(c)
    # The judge endpoint without a verdict answers with the item's page: no votes of an agreed item on it.
    page = client.post(reverse("ingest:item_judge", args=[sample.pk, agreed.pk]), {}).content.decode()
    assert "AGREED-NOTE" not in page and "scr-a" not in page
    page = client.post(reverse("ingest:item_judge", args=[sample.pk, split.pk]), {}).content.decode()
    assert "SPLIT-NOTE-A" in page and "SPLIT-NOTE-B" in page


def test_the_api_schema_needs_a_login(client_as, admin):
    assert Client().get(reverse("api:schema")).status_code in (401, 403)
    assert client_as(make_user("somebody")).get(reverse("api:schema")).status_code == 200


@pytest.mark.parametrize("password", ["volunteer1", "12345678901", "password123", "short"])
def test_weak_passwords_are_refused(password):
    user = make_user("volunteer1")
    with pytest.raises(ValidationError):
        validate_password(password, user)


def test_a_good_password_passes():
    validate_password("amber-falcon-tessellate", make_user("volunteer2"))


def _at(monkeypatch, seconds: float) -> None:
    # The throttles count in fixed windows of the clock; a test must not straddle two of them by chance.
    monkeypatch.setattr(SimpleRateThrottle, "timer", lambda self: seconds)


def test_the_api_is_throttled_per_user_and_for_strangers(monkeypatch, client_as):
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", {"user": "3/minute", "anon": "2/minute"})
    _at(monkeypatch, 6_000_000 + 15.0)
    client = client_as(make_user("script"))
    answers = [client.get(reverse("api:study_list")) for _ in range(4)]
    assert [answer.status_code for answer in answers] == [200, 200, 200, 429]
    assert answers[-1]["Retry-After"] == "45"  # the rest of the minute
    # Another user has an allowance of their own.
    assert client_as(make_user("other")).get(reverse("api:study_list")).status_code == 200
    # The next minute, a new allowance.
    _at(monkeypatch, 6_000_000 + 60.0)
    assert client.get(reverse("api:study_list")).status_code == 200


def test_requests_handled_by_different_throttle_objects_share_one_count(monkeypatch):
    # Each request makes its own throttle object (in any process); the count lives in the cache alone.
    from django.contrib.auth.models import AnonymousUser
    from rest_framework.request import Request

    from concord.throttling import AnonThrottle

    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", {"anon": "5/minute"})
    _at(monkeypatch, 6_000_000.0)
    request = Request(RequestFactory().get("/", REMOTE_ADDR="203.0.113.9"))
    request.user = AnonymousUser()
    throttles = [AnonThrottle() for _ in range(2)]
    assert [throttles[n % 2].allow_request(request, None) for n in range(6)] == [True] * 5 + [False]


def test_the_api_stays_open_while_the_cache_is_away(monkeypatch):
    from django.contrib.auth.models import AnonymousUser
    from rest_framework.request import Request

    from concord.throttling import AnonThrottle

    class Away:  # django-redis with IGNORE_EXCEPTIONS while Redis is down: every command answers None
        def incr(self, *args, **kwargs):
            return None

        def add(self, *args, **kwargs):
            return None

    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", {"anon": "1/minute"})
    monkeypatch.setattr(SimpleRateThrottle, "cache", Away())
    request = Request(RequestFactory().get("/", REMOTE_ADDR="203.0.113.10"))
    request.user = AnonymousUser()
    assert all(AnonThrottle().allow_request(request, None) for _ in range(3))



def test_the_anonymous_throttle_counts_by_address(monkeypatch):
    # Every endpoint needs a login today (refused before throttles are counted); the anonymous throttle
    # guards any that may not, counted per client address.
    from concord.throttling import AnonThrottle

    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", {"anon": "2/minute"})
    _at(monkeypatch, 6_000_000.0)
    from django.contrib.auth.models import AnonymousUser
    from rest_framework.request import Request

    def allowed(address):
        request = Request(RequestFactory().get("/", REMOTE_ADDR=address))
        request.user = AnonymousUser()
        return AnonThrottle().allow_request(request, None)

    assert [allowed("203.0.113.5") for _ in range(3)] == [True, True, False]
    assert allowed("203.0.113.6")


def _request(remote: str, forwarded: str | None = None):
    extra = {"HTTP_X_FORWARDED_FOR": forwarded} if forwarded is not None else {}
    return RequestFactory().get("/", REMOTE_ADDR=remote, **extra)


def test_without_a_proxy_the_forwarding_header_is_not_believed(settings):
    settings.CLIENT_IP_HEADER, settings.TRUSTED_PROXY_COUNT = "", 0
    assert client_ip(_request("203.0.113.5", "198.51.100.1")) == "203.0.113.5"


def test_behind_one_proxy_the_address_it_appended_counts(settings):
    settings.CLIENT_IP_HEADER, settings.TRUSTED_PROXY_COUNT = "HTTP_X_FORWARDED_FOR", 1
    assert client_ip(_request("10.0.0.2", "203.0.113.5")) == "203.0.113.5"
    # A client that forges entries of its own cannot choose its address: the proxy's entry is the last one.
    assert client_ip(_request("10.0.0.2", "1.1.1.1, 2.2.2.2, 203.0.113.5")) == "203.0.113.5"
    # No header, or rubbish where the proxy's entry should be: the connection's address.
    assert client_ip(_request("10.0.0.2")) == "10.0.0.2"
    assert client_ip(_request("10.0.0.2", "not-an-address")) == "10.0.0.2"


def test_behind_a_proxy_one_attacker_does_not_lock_out_everyone(settings):
    settings.CLIENT_IP_HEADER, settings.TRUSTED_PROXY_COUNT = "HTTP_X_FORWARDED_FOR", 1
    make_user("target")
    attacker = Client(REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="203.0.113.66")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        attacker.post(reverse("login"), {"username": "target", "password": "wrong"})
    assert attacker.post(reverse("login"), {"username": "target", "password": "pw-target"}).status_code == 429
    # The real owner, through the same proxy from their own address, still gets in.
    owner = Client(REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="198.51.100.7")
    assert owner.post(reverse("login"), {"username": "target", "password": "pw-target"}).status_code == 302


@pytest.mark.parametrize("path", ["/accounts/login/", "/no-such-page/", "/api/studies/", "/admin/login/"])
def test_every_response_carries_a_strict_content_security_policy(path):
    policy = Client().get(path).headers["Content-Security-Policy"]
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    assert directives["script-src"] == "'self'" and directives["style-src"] == "'self'"
    assert directives["object-src"] == "'none'" and directives["base-uri"] == "'self'"
    assert directives["frame-ancestors"] == "'none'"
    assert "unsafe" not in policy


def test_no_template_has_an_inline_script_or_handler():
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    offending = []
    for template in root.glob("*/templates/**/*.html"):
        if ".venv" in template.parts:
            continue
        text = template.read_text(encoding="utf-8")
        if re.search(r"<script(?![^>]*\bsrc=)[^>]*>|\son[a-z]+\s*=|\sstyle\s*=|javascript:", text):
            offending.append(str(template.relative_to(root)))
    assert not offending


HOSTILE_NUMBERS = ["²", "٣", "9" * 5000, "99999999999999999999", "-1", "1\x00", " 1", "1e3"]


@pytest.mark.parametrize("value", HOSTILE_NUMBERS)
def test_numbers_in_query_strings_and_forms_never_give_a_500(client_as, study, lead, value):
    issue = study.issues.first()
    client = client_as(lead)
    for url, data in ((reverse("annotation:history", args=[study.pk]), {"issue": value}),
                      (reverse("api:label_history", args=[study.pk]), {"issue": value}),
                      (reverse("api:label_list", args=[study.pk]), {"round": value, "issue": value}),
                      (reverse("annotation:previous", args=[study.pk]), {"position": value})):
        assert client.get(url, data).status_code in (200, 302), (url, value)
    posts = ((reverse("annotation:study_advance", args=[study.pk]),
              {"expected_phase": "independent", "expected_round": value, "confirm": "yes"}),
             (reverse("annotation:stop_labeling", args=[study.pk]), {"expected_round": value, "confirm": "yes"}),
             (reverse("annotation:label_submit", args=[study.pk, issue.pk]), {"type": value}))
    for url, data in posts:
        assert client.post(url, data).status_code in (302, 400), (url, value)
    study.refresh_from_db()
    assert study.phase == "independent"


@pytest.mark.parametrize("username", ["x" * 300, "bad\x00name", "é" * 151])
def test_a_hostile_login_name_is_refused_with_the_form_not_a_500(username):
    response = Client().post(reverse("login"), {"username": username, "password": "whatever"})
    if "\x00" in username:  # refused at the door, before any view (concord.request_limits), naming the field
        assert response.status_code == 400 and "Field &#x27;username&#x27;: contains a NUL" in response.content.decode()
    else:
        assert response.status_code == 200 and "Log in" in response.content.decode()  # the form again, refused


@pytest.mark.parametrize("value", ["\x00", "a\x00b", "#" * 5000])
def test_hostile_search_text_never_gives_a_500(client_as, study, lead, value):
    client = client_as(lead)
    for url in (reverse("annotation:issue_list", args=[study.pk]), reverse("api:report_list", args=[study.pk])):
        assert client.get(url, {"q": value, "code": value}).status_code == 200, url


@pytest.mark.parametrize(("username", "password"), [
    ("bad\x00name", "whatever"), ("lead", "pw\x00"), ("\ud800", "x"), ("x" * 300, "y"), ("name", "z" * 5000)])
def test_hostile_basic_credentials_are_refused_with_a_4xx_not_a_500(lead, username, password):
    import base64

    token = base64.b64encode(f"{username}:{password}".encode("utf-8", "surrogatepass")).decode()
    response = Client().get(reverse("api:study_list"), HTTP_AUTHORIZATION=f"Basic {token}")
    assert response.status_code in (401, 403), response.content[:300]
