"""Keyword lists from JSON files ({name, source?, keywords: [{term, origin, status?}]}); loading twice
changes nothing. A file's keywords are taken as validated (status "accepted", as the study's lists are)
unless an entry says "candidate"."""
from __future__ import annotations

import json
from pathlib import Path

from django.db import transaction

from ..keywords import normalise_term
from ..models import Keyword, KeywordList

SHIPPED_LISTS = Path(__file__).resolve().parent.parent / "keyword_lists"


class KeywordFileError(ValueError):
    """A keyword list file of the wrong shape; the message names the file and the entry."""


@transaction.atomic
def load_keyword_list(path) -> KeywordList:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8-sig"))
    except OSError as exc:
        raise KeywordFileError(f"{path}: cannot be read: {exc.strerror}") from exc
    except json.JSONDecodeError as exc:
        raise KeywordFileError(f"{path}: line {exc.lineno}: not valid JSON: {exc.msg}") from exc
    if not (isinstance(data, dict) and isinstance(data.get("name"), str) and isinstance(data.get("keywords"), list)):
        raise KeywordFileError(f"{path}: expected an object with 'name' and a list 'keywords'")
    entries = []
    for i, entry in enumerate(data["keywords"]):
        term = entry.get("term") if isinstance(entry, dict) else entry
        origin = entry.get("origin", Keyword.Origin.OTHER) if isinstance(entry, dict) else Keyword.Origin.OTHER
        if not isinstance(term, str) or not term.strip():
            raise KeywordFileError(f"{path}: keywords[{i}]: field 'term' is missing or empty")
        if origin not in Keyword.Origin.values:
            raise KeywordFileError(f"{path}: keywords[{i}]: origin {origin!r} is not one of {Keyword.Origin.values}")
        status = entry.get("status", Keyword.Status.ACCEPTED) if isinstance(entry, dict) else Keyword.Status.ACCEPTED
        if status not in Keyword.Status.values:
            raise KeywordFileError(f"{path}: keywords[{i}]: status {status!r} is not one of {Keyword.Status.values}")
        entries.append((normalise_term(term), origin, status))
    keyword_list, _ = KeywordList.objects.update_or_create(
        name=data["name"].strip(), defaults={"description": data.get("source", "")}
    )
    for term, origin, status in entries:
        # The status only for a new keyword: loading again never undoes a screening decision.
        Keyword.objects.update_or_create(keyword_list=keyword_list, term=term, defaults={"origin": origin},
                                         create_defaults={"origin": origin, "status": status})
    return keyword_list


def load_shipped_lists() -> list[KeywordList]:
    """The study's keyword lists for PyTorch, TensorFlow and MindSpore, as shipped with Concord."""
    return [load_keyword_list(path) for path in sorted(SHIPPED_LISTS.glob("*.json"))]
