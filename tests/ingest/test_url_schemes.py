"""Issue URLs from data: only http(s) links are stored at import, others are dropped with a
warning naming the line while the report keeps its number, and every URL reaches an href through one filter."""
from __future__ import annotations

import json

import pytest
from django.template import Context, Template
from hypothesis import given, settings
from hypothesis import strategies as st

from concord.weburl import web_url
from ingest.models import Issue
from ingest.services.files import import_file
from tests.factories import make_source

HOSTILE = [
    "javascript:alert(document.domain)",
    "JavaScript:alert(1)",
    "  javascript:alert(1)",
    "\x01\x02javascript:alert(1)",
    "java\tscript:alert(1)",
    "jav\nascript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "vbscript:msgbox(1)",
    "//evil.example/x",
    "https:no-host",
    "http://[::1",
]


@pytest.mark.parametrize("url", HOSTILE)
def test_hostile_urls_are_not_web_links(url):
    assert web_url(url) == ""


@pytest.mark.parametrize("url", ["https://github.com/o/r/issues/1", "HTTP://gitee.com/o/r/issues/I1",
                                 "  https://github.com/o/r/issues/2  "])
def test_web_links_pass(url):
    assert web_url(url) == url.strip()


@pytest.mark.parametrize("url", HOSTILE)
def test_the_template_filter_refuses_other_schemes(url):
    html = Template('{% load concord_text %}<a href="{{ url|web_url }}">x</a>').render(Context({"url": url}))
    assert html == '<a href="">x</a>'


@pytest.mark.django_db
@pytest.mark.parametrize("fmt", ["jsonl", "gh", "csv"])
def test_an_import_drops_a_javascript_url_with_a_warning_naming_the_line(tmp_path, fmt):
    good, bad = "https://github.com/o/r/issues/1", " JavaScript:alert(document.cookie)"
    if fmt == "csv":
        path = tmp_path / "issues.csv"
        path.write_text(f"number,title,body,url\n1,first,b,{good}\n2,second,b,{bad}\n", encoding="utf-8")
    else:
        key, extra = ("html_url", {}) if fmt == "jsonl" else ("url", {"createdAt": "2024-01-01T00:00:00Z"})
        rows = [{"number": 1, "title": "first", "body": "b", key: good, **extra},
                {"number": 2, "title": "second", "body": "b", key: bad, **extra}]
        path = tmp_path / ("issues.jsonl" if fmt == "jsonl" else "gh.json")
        path.write_text("\n".join(json.dumps(r) for r in rows) if fmt == "jsonl" else json.dumps(rows),
                        encoding="utf-8")
    run = import_file(str(path), make_source("o/r"), file_format=fmt)
    assert run.status == "succeeded" and run.created == 2
    assert dict(Issue.objects.values_list("number", "url")) == {"1": good, "2": ""}
    where = {"csv": "issues.csv:3: url:", "jsonl": "issues.jsonl:2: html_url:", "gh": "gh.json:1: url:"}[fmt]
    assert "1 warning" in run.message and f"{where} not an http(s) link" in run.message


@pytest.mark.django_db
def test_pages_render_no_link_for_a_stored_javascript_url(client_as, study, annotator_a, lead):
    from django.urls import reverse

    from taxonomy.models import Category

    study.issues.update(url="javascript:alert(document.domain)")
    issue = study.issues.first()
    category = Category.objects.filter(codebook=study.codebook, level="theme").first()
    category.examples.add(issue)
    pages = [(annotator_a, reverse("annotation:queue", args=[study.pk])),
             (annotator_a, reverse("annotation:issue_label", args=[study.pk, issue.pk])),
             (lead, reverse("codebook:codebook", args=[study.pk])),
             (lead, reverse("codebook:details", args=[study.pk, category.pk]))]
    for user, url in pages:
        html = client_as(user).get(url).content.decode()
        assert "javascript:" not in html, url


def _web_url_by_urlsplit(value) -> str:
    """The filter as first written, every value through urlsplit: the reference for its quicker path."""
    from urllib.parse import urlsplit

    from concord.weburl import _EDGES, _INSIDE, WEB_SCHEMES

    if not isinstance(value, str) or not value:
        return ""
    url = _INSIDE.sub("", value.strip(_EDGES))
    try:
        parts = urlsplit(url)
    except ValueError:
        return ""
    return url if parts.scheme.lower() in WEB_SCHEMES and parts.netloc else ""


@settings(max_examples=3000, deadline=None)
@given(st.sampled_from(["http://", "https://", "HTTP://", "http:/", "javascript:", "", " http://"])
       .flatmap(lambda scheme: st.text(alphabet="ab.-:9[]@/?#% \t\n\x00é\\", max_size=20)
                .map(lambda rest: scheme + rest)))
def test_the_quick_path_for_plain_links_reads_every_value_as_urlsplit_does(value):
    assert web_url(value) == _web_url_by_urlsplit(value)
