from __future__ import annotations

from django import template

from concord.markdown import render_markdown

register = template.Library()


@register.filter(name="markdown")
def markdown_filter(text: str | None):
    """Render untrusted issue text: Markdown, then the sanitiser. The only road to HTML for it."""
    return render_markdown(text)
