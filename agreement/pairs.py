"""Which confused pair of categories a page is asked about: a query string is untrusted, so each part is checked
against the study's codebook and refused with its name."""
from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

from django.utils.translation import gettext as _

from annotation.models import NOT_RELEVANT
from concord.errors import FieldError
from taxonomy.models import Category

from .reports import LEVELS

CODE_LIMIT = 40  # longer than any code a codebook makes (C.10.iii)


@dataclass(frozen=True)
class AskedPair:
    level: str  # the dashboard's level, whose snapshot holds the pair's figures
    at: str  # where the two were confused: "type", or the level
    first: str
    second: str

    @property
    def query(self) -> str:
        return urlencode({"level": self.level, "at": self.at, "a": self.first, "b": self.second})


def asked_pair(study, params) -> AskedPair:
    """The pair named by `level`, `at`, `a` and `b`; FieldError naming the first that is wrong."""
    level = params.get("level") or "theme"
    if level not in LEVELS:
        raise FieldError("level", _("one of %(levels)s") % {"levels": ", ".join(LEVELS)})
    at = params.get("at") or level
    if at not in ("type", level):
        raise FieldError("at", _("type or %(level)s, the level of the figures") % {"level": level})
    codes = []
    for name in ("a", "b"):
        code = params.get(name) or ""
        if not code or len(code) > CODE_LIMIT or "\x00" in code:
            raise FieldError(name, _("a code of this study's codebook (%(limit)s characters at most) or %(none)s")
                             % {"limit": CODE_LIMIT, "none": NOT_RELEVANT})
        codes.append(code)
    if codes[0] == codes[1]:
        raise FieldError("b", _("the other category of the pair, not the same one again"))
    known = set(Category.objects.filter(codebook=study.codebook_id, code__in=codes).values_list("code", flat=True))
    for name, code in zip(("a", "b"), codes, strict=True):
        if code != NOT_RELEVANT and code not in known:
            raise FieldError(name, _("%(code)s is not a code of this study's codebook") % {"code": repr(code)})
    return AskedPair(level, at, *codes)
