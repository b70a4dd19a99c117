from __future__ import annotations

from django import template
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from ..wording import FIELDS, PILOT_REASON, changed_fields

register = template.Library()
# The wording fields in the reader's language (the pure module names them in English).
FIELD_NAMES = {"Name": _("Name"), "Definition": _("Definition"), "Includes": _("Includes"),
               "Excludes": _("Excludes"), "Instructions": _("Instructions")}
assert set(FIELD_NAMES) == set(FIELDS.values())


@register.filter
def wording_changes(entry) -> list:
    """What a rename, a clarification or new instructions changed, field by field, word by word."""
    if len(entry.before) != 1 or len(entry.after) != 1:
        return []
    return [(FIELD_NAMES.get(label, label), runs) for label, runs in changed_fields(entry.before[0], entry.after[0])]


@register.filter
def stored_reason(reason: str) -> str:
    """A change's reason as written, except the one Concord writes itself, shown in the reader's language."""
    return gettext(PILOT_REASON) if reason == PILOT_REASON else reason
