"""Issue text is written by strangers: Markdown, then the allow-list sanitiser, and nothing runs."""
from __future__ import annotations

from html.parser import HTMLParser

import pytest

from concord.markdown import render_markdown


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, list]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))


@pytest.mark.parametrize(
    "hostile",
    [
        "<script>alert(1)</script>",
        '<img src="x" onerror="alert(1)">',
        "[click](javascript:alert(1))",
        '<a href="javascript:alert(1)">x</a>',
        "<iframe src='https://evil.example'></iframe>",
        '<div style="background:url(javascript:alert(1))" onclick="alert(1)">x</div>',
        "<svg><script>alert(1)</script></svg>",
    ],
)
def test_nothing_executable_survives(hostile):
    parser = _Tags()
    parser.feed(render_markdown(hostile))
    for tag, attrs in parser.tags:
        assert tag not in {"script", "iframe", "svg", "style", "object", "embed"}
        for name, value in attrs:
            assert not name.startswith("on") and name != "style"
            assert not (value or "").strip().lower().startswith("javascript:")


def test_markdown_still_renders():
    html = render_markdown("# Title\n\n**bold** and `code`\n\n```\nx = 1\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |")
    assert "<h1>Title</h1>" in html and "<strong>bold</strong>" in html and "<pre><code>x = 1" in html
    assert "<table>" in html


def test_links_get_rel_nofollow():
    assert 'rel="nofollow noopener noreferrer"' in render_markdown("[x](https://example.org)")
