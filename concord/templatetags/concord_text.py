from __future__ import annotations

from django import template
from django.utils.html import format_html

from concord import audit, form_tokens, stats_words
from concord.levels import level_name
from concord.markdown import render_markdown
from concord.weburl import web_url

register = template.Library()


@register.filter(name="markdown")
def markdown_filter(text: str | None):
    """Render untrusted issue text: Markdown, then the sanitiser. The only road to HTML for it."""
    return render_markdown(text)


@register.filter(name="web_url")
def web_url_filter(url: str | None) -> str:
    """Every URL that came from data reaches an href through this filter: http(s) links, or nothing."""
    return web_url(url)


@register.simple_tag
def once_field():
    """A form's one-time token (concord.form_tokens): the action it asks for happens once however often it is sent."""
    return format_html('<input type="hidden" name="{}" value="{}">', form_tokens.FIELD, form_tokens.new_token())


@register.filter(name="level_name")
def level_name_filter(level: str) -> str:
    """A codebook level's code (`sub_theme`) as the reader names it."""
    return level_name(level)


@register.filter(name="stats_words")
def stats_words_filter(text):
    """A sentence a statistics module wrote (a method, why a figure is undefined) in the reader's language."""
    return stats_words.translate(text)


@register.filter(name="audit_action")
def audit_action_filter(action: str) -> str:
    """An audit entry's action, stored in English, as the reader names it."""
    return audit.action_name(action)
