"""A crawler that sends hostile values to every form field and query parameter it finds, as every role that
can see them: no answer may be a server error.

It opens every page of the access matrix a role may open (tests/test_access_matrix.py builds the world), reads
its forms (fields with their rendered values) and the query parameters of its links and GET forms, then sends
each form once per field and hostile value, the other fields as rendered, with a fresh one-time token; and each
page once per query parameter and hostile value. On PostgreSQL (CI) a value too long or too large for its column
fails in the database rather than passing as it does on SQLite.
"""
from __future__ import annotations

import os
import secrets
from html.parser import HTMLParser
from urllib.parse import parse_qsl, urljoin, urlsplit

import pytest
from django.db import transaction
from django.test import Client
from django.urls import get_resolver, resolve, reverse

from concord.form_tokens import FIELD as ONCE
from tests.test_access_matrix import GET, MATRIX, _expected, _walk, _world

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

HOSTILE = {
    "long": "x" * 5000,
    "nul": "a\x00b",
    "past-64-bits": "9" * 30,
    "negative": "-1",
    "superscript": "²",
    "word": "abc",
    "empty": "",
    "lone-surrogate-escape": "\\ud800",
}
PHASES = os.environ.get("CONCORD_CRAWL_PHASES", "pilot,adjudication").split(",")
ROLES = ["annotator", "lead_open", "admin"]
SKIP_FIELDS = {"csrfmiddlewaretoken", ONCE}


class _Forms(HTMLParser):
    """Forms (method, action, [(name, value)]) and the query parameter names of links, from one page."""

    def __init__(self):
        super().__init__()
        self.forms: list[dict] = []
        self.links: set[tuple[str, str]] = set()
        self._form: dict | None = None
        self._select: str | None = None
        self._textarea: str | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form" and a.get("method", "get").lower() in {"get", "post"}:
            self._form = {"method": a.get("method", "get").lower(), "action": a.get("action") or "", "fields": {}}
            self.forms.append(self._form)
        elif tag == "a" and "?" in (a.get("href") or ""):
            for key, _ in parse_qsl(urlsplit(a["href"]).query, keep_blank_values=True):
                self.links.add((urlsplit(a["href"]).path, key))
        if self._form is None or not a.get("name"):
            return
        fields = self._form["fields"]
        if tag == "input":
            kind = (a.get("type") or "text").lower()
            if kind in {"checkbox", "radio"}:
                if "checked" in a or a["name"] not in fields:
                    fields[a["name"]] = a.get("value", "on") if "checked" in a else fields.get(a["name"], "")
            elif kind not in {"submit", "button", "file", "image", "reset"}:
                fields[a["name"]] = a.get("value", "")
            elif kind == "submit":
                fields.setdefault(a["name"], a.get("value", ""))
        elif tag == "button" and a.get("type", "submit") == "submit":
            fields.setdefault(a["name"], a.get("value", ""))
        elif tag == "select":
            self._select = a["name"]
            fields.setdefault(a["name"], "")
        elif tag == "textarea":
            self._textarea = a["name"]
            fields[a["name"]] = ""
        elif tag == "option" and self._select and (not self._form["fields"][self._select] or "selected" in a):
            self._form["fields"][self._select] = a.get("value", "")

    def handle_data(self, data):
        if self._textarea and self._form is not None:
            self._form["fields"][self._textarea] += data

    def handle_endtag(self, tag):
        if tag == "form":
            self._form = None
        elif tag == "select":
            self._select = None
        elif tag == "textarea":
            self._textarea = None


def _pages(values: dict, role: str, phase: str) -> list[str]:
    urls = []
    for name, pattern in _walk(get_resolver().url_patterns):
        if name.startswith("admin:") or name.startswith("api:") or MATRIX[name][1] != GET:
            continue
        allowed, _ = _expected(name, role, phase)
        if allowed:
            urls.append(reverse(name, kwargs={k: values[k] for k in pattern.pattern.converters}))
    return urls


def _send(client: Client, method: str, url: str, data: dict, wrong: list, what: str) -> None:
    if ONCE in data:
        data = {**data, ONCE: secrets.token_hex(16)}
    try:
        # A savepoint per request, so that one request's database error does not poison the next ones.
        with transaction.atomic():
            response = client.post(url, data) if method == "post" else client.get(url, data)
    except Exception as exc:  # noqa: BLE001 - a test client re-raises the view's exception: that is the 500
        wrong.append(f"{what}: raised {exc!r}"[:300])
        return
    if response.status_code >= 500:
        wrong.append(f"{what}: {response.status_code}")


@pytest.mark.parametrize("phase", PHASES)
def test_no_hostile_value_is_a_server_error(phase, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    users, values = _world(phase)
    wrong: list[str] = []
    tried: set = set()
    for role in ROLES:
        client = Client(raise_request_exception=True)
        client.force_login(users[role])
        for page in _pages(values, role, phase):
            response = client.get(page)
            if response.status_code != 200 or "text/html" not in response.get("Content-Type", ""):
                continue
            parser = _Forms()
            parser.feed(response.content.decode())
            for form in parser.forms:
                action = urljoin(page, form["action"]) if form["action"] else page
                # The codebook page has one change form per category: the same form, tried once per role.
                kind = (role, form["method"], resolve(urlsplit(action).path).view_name, frozenset(form["fields"]))
                if kind in tried:
                    continue
                tried.add(kind)
                for field in form["fields"]:
                    if field in SKIP_FIELDS:
                        continue
                    for label, value in HOSTILE.items():
                        _send(client, form["method"], action, {**form["fields"], field: value}, wrong,
                              f"{phase} {role} {form['method'].upper()} {action} {field}={label}")
            for path, key in parser.links:
                for label, value in HOSTILE.items():
                    _send(client, "get", path, {key: value}, wrong, f"{phase} {role} GET {path}?{key}={label}")
    assert not wrong, f"{len(wrong)} server errors:\n" + "\n".join(sorted(set(wrong))[:80])


@pytest.mark.parametrize(("url_name", "data", "message"), [
    ("findings:subset_define", {"name": "s" * 201}, "name: 201 characters long (at most 200)"),
    ("findings:baseline", {"name": "b" * 201, "size": "1", "seed": "1"}, "name: 201 characters long"),
    ("findings:baseline", {"name": "b", "size": "1", "seed": "9" * 30},
     "is out of range (0 to 9,223,372,036,854,775,807)"),
    ("interviews:participant_add", {"code": "U" * 21, "group": "user"}, "code: 21 characters long (at most 20)"),
    ("interviews:guide", {"text": "Q?", "part": "p" * 201}, "part: 201 characters long (at most 200)"),
    ("interviews:guide", {"text": "Q?", "top": "9" * 30}, "top: "),
])
def test_names_longer_than_their_column_are_refused_naming_the_field(client_as, lead, url_name, data, message):
    """On PostgreSQL these were 500s ("value too long for type character varying")."""
    from findings.models import Subset
    from interviews.models import GuideQuestion, Participant
    from interviews.services import default_guide
    from tests.factories import make_study

    study = make_study(lead)
    default_guide(study)  # made on first sight of the guide page: not part of what the refused post may change
    client = client_as(lead)
    before = (Subset.objects.count(), Participant.objects.count(), GuideQuestion.objects.count())
    response = client.post(reverse(url_name, args=[study.pk]), {**data, ONCE: secrets.token_hex(16)}, follow=True)
    assert response.status_code == 200 and message in response.content.decode()
    assert (Subset.objects.count(), Participant.objects.count(), GuideQuestion.objects.count()) == before


def test_a_split_into_a_name_too_long_is_refused(client_as, lead):
    from taxonomy.models import Category
    from tests.factories import make_study

    study = make_study(lead)
    category = study.codebook.categories.get(code="C.1")
    before = Category.objects.count()
    response = client_as(lead).post(reverse("codebook:change", args=[study.pk, category.pk]), {
        "kind": "split", "parts": f"{'n' * 301}: too long\nfine: ok", "reason": "r",
        "revision": study.codebook.revision}, follow=True)
    assert response.status_code == 200 and "name: 301 characters long (at most 300)" in response.content.decode()
    assert Category.objects.count() == before
