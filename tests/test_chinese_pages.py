"""Every page in Chinese: the access matrix's world in every phase, each page opened by every role that may open
it with a Chinese browser, and no English word left on it but names, identifiers, codes and the study's own data
(its codebook, reports, people and guide are English here). Visible text counts, and the words a screen reader or
a hover shows (title, placeholder, aria-label, alt); code, preformatted text and form values do not."""
from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from django.test import Client
from django.urls import get_resolver, reverse

from tests.test_access_matrix import GET, MATRIX, ROLES, _expected, _walk, _world

pytestmark = pytest.mark.django_db

SKIPPED_TAGS = {"script", "style", "code", "pre", "textarea", "kbd", "samp"}
ATTRIBUTES = {"title", "placeholder", "aria-label", "alt"}


class Text(HTMLParser):
    def __init__(self):
        super().__init__()
        self.skipping, self.parts = 0, []

    def handle_starttag(self, tag, attrs):
        if tag in SKIPPED_TAGS:
            self.skipping += 1
        for name, value in attrs:
            if name in ATTRIBUTES and value:
                self.parts.append(value)
        if tag == "input" and dict(attrs).get("type") in {"submit", "button"} and dict(attrs).get("value"):
            self.parts.append(dict(attrs)["value"])

    def handle_endtag(self, tag):
        if tag in SKIPPED_TAGS and self.skipping:
            self.skipping -= 1

    def handle_data(self, data):
        if not self.skipping:
            self.parts.append(data)


# Names (of people, methods, formats and platforms) and the loanwords Chinese papers on software engineering keep.
NAMES = {
    "concord", "github", "gitee", "openid", "connect", "markdown", "fleiss", "fleiss'", "krippendorff",
    "krippendorff's", "cohen", "cohen's", "gwet", "gwet's", "brennan", "prediger", "wilson", "wilson's", "waudby-smith",
    "ramdas", "ramdas's", "guest", "namey", "chen", "calderon", "reichart", "dror", "benjamini-yekutieli",
    "angelopoulos", "duchi", "zrnic", "ahmed", "kendall", "kendall's", "spearman", "spearman's", "borda", "cramér's",
    "fisher", "dirichlet", "maxqda", "nvivo", "atlas", "ti", "openai", "kappa", "alpha", "alpha-binary", "epsilon",
    "bootstrap", "binary", "webhook", "webhooks", "standard", "issue", "issues", "token", "score", "lines", "gh",
    "json", "tf-idf", "et", "al", "english", "csv", "jsonl",
}
# Identifiers and codes: addresses, dotted names (C.9.ii, label.saved), owner/repo, header names.
IDENTIFIERS = re.compile(r"\b\dxx\b|(?<!\w)\.\w+|\S+://\S+|\S+@\S+|\b\w+(?:[./#_]\w+)+\b|\b[a-z]+(?:-[a-z]+)+(?=:)|\bwebhook-\w+")


def data_words() -> set[str]:
    """Every word of the study's own data (names, titles, bodies, definitions, guides): shown as people wrote it."""
    from django.apps import apps
    from django.db import models

    words = set()
    for model in apps.get_models():
        if model._meta.app_label not in {"annotation", "ingest", "taxonomy", "codebook", "machines", "interviews",
                                         "agreement", "auth", "findings"}:
            continue
        fields = [f.name for f in model._meta.concrete_fields
                  if isinstance(f, models.CharField | models.TextField | models.JSONField)]
        for row in model.objects.values_list(*fields) if fields else []:
            words |= {w.lower() for w in re.findall(r"[A-Za-z][A-Za-z'’-]*[A-Za-z]", str(row))}
    return words


def english(html: str, allowed: set[str]) -> list[str]:
    parser = Text()
    parser.feed(html)
    text = IDENTIFIERS.sub(" ", " ".join(parser.parts))
    words = re.findall(r"[A-Za-z][A-Za-z'’-]*[A-Za-z]", text)
    return sorted({w for w in words if w.lower() not in allowed and w.lower() not in NAMES and not w.isupper()
                   and not _cut_short(w.lower(), allowed)})


def _cut_short(word: str, allowed: set[str]) -> bool:
    # A chart shortens a long category name ("Compatib…"): the start of a word of the data is data.
    return any(w.startswith(word) for w in allowed)


@pytest.mark.slow
@pytest.mark.parametrize("phase", ["pilot", "independent", "review", "adjudication", "closed"])
def test_no_english_is_left_on_any_page(phase):
    users, values = _world(phase)
    allowed = data_words()
    found = {}
    for name, pattern in _walk(get_resolver().url_patterns):
        if name.startswith("admin:") or MATRIX[name][1] != GET:
            continue
        url = reverse(name, kwargs={k: values[k] for k in pattern.pattern.converters})
        for role in ROLES:
            if not _expected(name, role, phase)[0]:
                continue
            client = Client(HTTP_ACCEPT_LANGUAGE="zh-hans")
            if role != "anonymous":
                client.force_login(users[role])
            response = client.get(url)
            if response.status_code != 200 or "html" not in response.get("Content-Type", ""):
                continue
            left = english(response.content.decode(), allowed)
            if left:
                # A page may make data of its own on first sight (an interview guide's default questions).
                allowed |= data_words()
                left = english(response.content.decode(), allowed)
            if left:
                found[f"{name} ({role})"] = left
    assert not found, "\n".join(f"{page}: {' '.join(words)}" for page, words in found.items())


def test_the_walk_would_see_english_where_some_is_left(admin):
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(admin)
    page = client.get(reverse("notices")).content.decode()
    assert english(page, data_words())
    with_title = '<p>说明 <span title="Click here">？</span><code>label.saved</code> https://example.org/a</p>'
    assert english(with_title, set()) == ["Click", "here"]


@pytest.mark.django_db
def test_each_language_has_its_own_catalogue_address(client, admin):
    """The labeling script's messages are fetched at an address of the page's language: a browser that cached
    the English catalogue fetches the Chinese one after switching (one address for every language kept the
    first one it fetched, with a start-time Last-Modified)."""
    client.force_login(admin)
    english = client.get(reverse("annotation:study_list")).content.decode()
    assert reverse("javascript_catalog", args=["en"]) in english
    client.post(reverse("choose_language"), {"language": "zh-hans", "next": "/"})
    chinese = client.get(reverse("annotation:study_list")).content.decode()
    assert reverse("javascript_catalog", args=["zh-hans"]) in chinese
    # Each address answers in its own language, whatever the person's language is.
    zh_in_english = Client().get(reverse("javascript_catalog", args=["zh-hans"]))
    assert zh_in_english.status_code == 200 and "Last-Modified" in zh_in_english
    for said in ("(type the next digit)", "Nothing chosen yet"):
        assert f'"{said}": "\\u' in zh_in_english.content.decode()  # translated, in the catalogue's escapes
        assert f'"{said}"' not in client.get(reverse("javascript_catalog", args=["en"])).content.decode()
    assert Client().get("/jsi18n/xx/").status_code == 404
