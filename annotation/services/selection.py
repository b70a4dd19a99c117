"""Which reports go into a study: by source, keyword, screening verdict and date, or a saved list."""
from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field

from django.db.models import QuerySet

from concord.errors import FieldError
from ingest.models import Issue, Keyword, Source
from ingest.selectors import decisions

VERDICTS = {"included": True, "excluded": False, "undecided": None}
_ISSUE_URL = re.compile(r"^https?://(?:www\.)?(?:github\.com|gitee\.com)/([^/]+/[^/]+)/issues/([^/?#\s]+)")
_SHORT = re.compile(r"^([\w.-]+/[\w.-]+)#(\w+)$")


class SelectionError(FieldError):
    """A selection that cannot be made."""


@dataclass
class Selection:
    sources: list[Source] = field(default_factory=list)
    keywords: list[Keyword] = field(default_factory=list)
    verdict: str = ""  # "", or a key of VERDICTS
    created_from: dt.date | None = None
    created_to: dt.date | None = None
    saved_list: str = ""


def parse_saved_list(text: str) -> list[int]:
    """Issue ids for lines like `owner/repo#123` or an issue's URL; every line must name a stored issue."""
    wanted: list[tuple[int, str, str]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        match = _ISSUE_URL.match(line) or _SHORT.match(line)
        if not match:
            raise SelectionError("saved_list", f"line {number}: {line!r} is neither owner/repo#number nor an issue URL")
        wanted.append((number, match.group(1), match.group(2)))
    found = {
        (name.lower(), num): pk
        for pk, name, num in Issue.objects.filter(number__in={w[2] for w in wanted})
        .values_list("pk", "source__full_name", "number")
    }
    ids = []
    for number, repo, num in wanted:
        pk = found.get((repo.lower(), num))
        if pk is None:
            raise SelectionError("saved_list", f"line {number}: {repo}#{num} is not among the stored issues")
        ids.append(pk)
    return list(dict.fromkeys(ids))


def select_reports(selection: Selection) -> QuerySet[Issue]:
    """The issues a set-up form describes; a saved list, when given, is taken as it is."""
    if selection.saved_list.strip():
        return Issue.objects.filter(pk__in=parse_saved_list(selection.saved_list))
    issues = Issue.objects.filter(kept=True)
    if selection.sources:
        issues = issues.filter(source__in=selection.sources)
    if selection.keywords:
        issues = issues.filter(matched_keywords__in=selection.keywords).distinct()
    if selection.created_from:
        issues = issues.filter(created_at__date__gte=selection.created_from)
    if selection.created_to:
        issues = issues.filter(created_at__date__lte=selection.created_to)
    if selection.verdict:
        if selection.verdict not in VERDICTS:
            raise SelectionError("verdict", f"one of {', '.join(VERDICTS)}")
        wanted = VERDICTS[selection.verdict]
        sources = selection.sources or Source.objects.filter(pk__in=issues.values("source_id").distinct())
        ids = [pk for source in sources for pk, d in decisions(source).items() if d.included is wanted]
        issues = issues.filter(pk__in=ids)
    return issues
