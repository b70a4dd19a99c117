"""The one way issue text written by strangers becomes HTML: Markdown, then an allow-list sanitiser."""
from __future__ import annotations

import nh3
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

# Raw HTML in issue bodies (<details>, <img>, <br>) is common, so the parser passes it on and
# the sanitiser below, not the parser, decides what survives.
_parser = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])

ALLOWED_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "code", "del", "details", "div", "em", "h1", "h2", "h3",
    "h4", "h5", "h6", "hr", "i", "img", "kbd", "li", "ol", "p", "pre", "s", "span", "strong", "sub",
    "summary", "sup", "table", "tbody", "td", "th", "thead", "tr", "ul",
}
ALLOWED_ATTRIBUTES = {
    "a": {"href", "title"},
    "img": {"src", "alt", "title", "width", "height"},
    "code": {"class"},
    "td": {"align"},
    "th": {"align"},
    "ol": {"start"},
}
ALLOWED_URL_SCHEMES = {"http", "https", "mailto"}


def render_markdown(text: str | None) -> SafeString:
    html = _parser.render(text or "")
    clean = nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=ALLOWED_URL_SCHEMES,
        link_rel="nofollow noopener noreferrer",
    )
    # Safe only because nh3 has just removed every tag, attribute and URL scheme not allowed above.
    return mark_safe(clean)  # noqa: S308
