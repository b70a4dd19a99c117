from __future__ import annotations

from django import template

from ..wording import changed_fields

register = template.Library()


@register.filter
def wording_changes(entry) -> list:
    """What a rename, a clarification or new instructions changed, field by field, word by word."""
    if len(entry.before) != 1 or len(entry.after) != 1:
        return []
    return changed_fields(entry.before[0], entry.after[0])
