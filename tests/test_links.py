"""Every link a page shows answers for the person it is shown to: a crawler follows the links of every page, as
each role, in every phase of a study, and no link may lead to a 403, a 404 or a server error."""
from __future__ import annotations

from collections import defaultdict
from urllib.parse import urldefrag, urlsplit

import lxml.html
import pytest
from django.test import Client
from django.urls import Resolver404, resolve

from tests.test_access_matrix import PHASES, _world

pytestmark = pytest.mark.django_db

ROLES = ["annotator", "lead_blind", "lead_open", "admin"]
# Django's own admin site has its own links; the log-out link ends the walk's session.
SKIPPED = ("/admin/", "/accounts/logout/", "/static/")
# Pages of one kind differ only in their arguments (a category, a page of a list): a few of each are enough.
PER_VIEW = 3


def _links(html: bytes) -> list[str]:
    try:
        tree = lxml.html.fromstring(html)
    except (lxml.etree.ParserError, ValueError):
        return []
    return [a.get("href") for a in tree.iter("a") if a.get("href")]


def crawl(client: Client, start: str = "/") -> list[str]:
    """Follow every same-site link from `start`; what a shown link answered that it should not have."""
    wrong = []
    seen = {start}
    per_view = defaultdict(int)
    todo = [(start, "(start)")]
    while todo:
        url, found_on = todo.pop()
        response = client.get(url)
        if response.status_code in {403, 404} or response.status_code >= 500:
            wrong.append(f"{url} → {response.status_code} (linked from {found_on})")
            continue
        if response.status_code in {301, 302}:
            location = response["Location"]
            if location.startswith("/") and location not in seen and not location.startswith("/accounts/login"):
                seen.add(location)
                todo.append((location, url))
            continue
        if response.streaming or "text/html" not in response.get("Content-Type", ""):
            continue
        for href in _links(response.content):
            href = urldefrag(href)[0]
            parts = urlsplit(href)
            if parts.scheme or parts.netloc or not href.startswith("/") or href.startswith(SKIPPED):
                continue
            if href in seen:
                continue
            try:
                view = resolve(parts.path).view_name
            except Resolver404:
                wrong.append(f"{href} → no such page (linked from {url})")
                continue
            seen.add(href)
            per_view[view] += 1
            if per_view[view] <= PER_VIEW:
                todo.append((href, url))
    return wrong


@pytest.mark.parametrize("phase", PHASES)
def test_every_shown_link_answers_for_every_role(phase):
    users, _ = _world(phase)
    wrong = []
    for role in ROLES:
        client = Client()
        client.force_login(users[role])
        wrong += [f"{phase} {role}: {line}" for line in crawl(client)]
    assert not wrong, "\n".join(wrong)
