"""Every state-changing form of every page, as every role in every phase, submitted exactly as rendered (its
hidden values untouched, its confirmation ticked, its required fields filled): it may succeed, or be refused
for a reason of its own, but never because the page sent a stale or wrong hidden value — nothing changed
between the page and the press."""
from __future__ import annotations

import re
from urllib.parse import urldefrag, urlsplit

import lxml.html
import pytest
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import Resolver404, resolve

from tests.test_access_matrix import PHASES, _world
from tests.test_links import ROLES, SKIPPED, _links

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

# What a refusal says when the form named a state other than the one it was shown for.
STALE = re.compile(r"moved on since|changed (since|after) this page|did not say which|reload the page|"
                   r"was shown for|no longer in|is not the (one|state)", re.IGNORECASE)
# Forms that end the walk's own session or account.
NOT_PRESSED = ("/accounts/logout/",)
FILLED = "Written by the forms test"


def _pages(client: Client, start: str = "/", per_view: int = 1) -> list[str]:
    """Same-site pages reachable by links from `start`, one of each kind."""
    seen, kinds, todo, pages = {start}, set(), [start], []
    while todo:
        url = todo.pop()
        response = client.get(url)
        if response.status_code != 200 or response.streaming or "text/html" not in response.get("Content-Type", ""):
            continue
        pages.append(url)
        for href in _links(response.content):
            href = urldefrag(href)[0]
            if not href.startswith("/") or href.startswith(SKIPPED) or href in seen:
                continue
            try:
                kind = resolve(urlsplit(href).path).view_name
            except Resolver404:
                continue
            seen.add(href)
            if kind not in kinds:
                kinds.add(kind)
                todo.append(href)
    return pages


def _values(form) -> dict | None:
    """What a person pressing the form's main button sends: hidden values as rendered, boxes ticked, required
    fields filled, a choice made where none is; None for a form a test cannot fill (a file to upload)."""
    values: dict[str, list[str]] = {}
    radios: dict[str, str] = {}
    for field in form.inputs:
        name = field.get("name")
        if not name or field.get("disabled") is not None:
            continue
        kind = (field.get("type") or "").lower() if field.tag == "input" else field.tag
        if kind == "file":
            return None
        if kind in {"submit", "button", "image", "reset"}:
            continue
        if kind == "checkbox":
            if field.get("checked") is not None or field.get("required") is not None:
                values.setdefault(name, []).append(field.get("value", "on"))
        elif kind == "radio":
            if field.get("checked") is not None:
                radios[name] = field.get("value", "on")
            else:
                radios.setdefault(name, field.get("value", "on"))
        elif kind == "select":
            options = field.xpath(".//option")
            chosen = [o.get("value", o.text or "") for o in options if o.get("selected") is not None]
            if not chosen and options and field.get("multiple") is None:
                chosen = [options[0].get("value", options[0].text or "")]
            values[name] = chosen
        else:
            value = field.value if kind != "textarea" else (field.text or "")
            if not value and field.get("required") is not None:
                value = "2" if kind == "number" else FILLED
            values.setdefault(name, []).append(value or "")
    for name, value in radios.items():
        values[name] = [value]
    return values


def _said(client: Client, response) -> str:
    text = " ".join(str(m) for m in get_messages(response.wsgi_request)) if hasattr(response, "wsgi_request") else ""
    if response.status_code == 200 and "text/html" in response.get("Content-Type", ""):
        tree = lxml.html.fromstring(response.content)
        text += " " + " ".join(e.text_content() for e in tree.xpath(
            "//*[contains(@class, 'error') or @role='alert' or contains(@class, 'messages')]"))
    return text


@pytest.mark.parametrize("phase", PHASES)
def test_every_form_submitted_as_rendered_is_never_refused_for_its_own_hidden_values(phase):
    users, _ = _world(phase)
    wrong, pressed = [], set()
    for role in ROLES:
        client = Client()
        client.force_login(users[role])
        for page_url in _pages(client):
            page = client.get(page_url)
            if page.status_code != 200:
                continue
            for index, form in enumerate(lxml.html.fromstring(page.content).forms):
                action = form.get("action") or page_url
                if (form.get("method") or "get").lower() != "post" or action.startswith(NOT_PRESSED):
                    continue
                try:
                    kind = resolve(urlsplit(action).path).view_name
                except Resolver404:
                    wrong.append(f"{phase} {role} {page_url}: a form posts to {action}, which is no page")
                    continue
                if (role, kind) in pressed:
                    continue
                pressed.add((role, kind))
                # The page as the person sees it right before pressing: fresh, with this form's values.
                fresh = lxml.html.fromstring(client.get(page_url).content).forms
                values = _values(fresh[index]) if index < len(fresh) else None
                if values is None:
                    continue
                response = client.post(action, values)
                said = _said(client, response)
                if response.status_code >= 500:
                    wrong.append(f"{phase} {role} {kind} from {page_url}: {response.status_code}")
                elif STALE.search(said):
                    wrong.append(f"{phase} {role} {kind} from {page_url}: refused as stale: {said.strip()[:200]}")
    assert len(pressed) > 10, "the walk pressed too few forms to prove anything"
    assert not wrong, "\n".join(wrong)
