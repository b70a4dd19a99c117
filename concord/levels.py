"""The codebook's three levels as people read them: one spelling, in the reader's language, for every page,
notice and sentence that names a level."""
from __future__ import annotations

from django.utils.translation import gettext_lazy as _

NAMES = {"type": _("type"), "theme": _("theme"), "sub_theme": _("sub-theme")}


def level_name(level: str) -> str:
    """A level's name in the active language; an unknown code is shown as it is."""
    return str(NAMES.get(level, level))
