from django import template

from ..guide_words import shown

register = template.Library()


@register.filter(name="guide_words")
def guide_words(text: str, node=None) -> str:
    """The shipped guide's words in the reader's language (interviews.guide_words)."""
    return shown(text, node)
