"""Keyword lists from JSON files ({name, source?, keywords: [{term, origin, status?}]}); loading twice
changes nothing. A file's keywords are taken as validated (status "accepted", as the study's lists are)
unless an entry says "candidate"."""
from __future__ import annotations

import json
from pathlib import Path

from django.db import transaction

from concord.textcheck import length_problem, text_problem

from ..keywords import normalise_term
from ..models import Keyword, KeywordList

SHIPPED_LISTS = Path(__file__).resolve().parent.parent / "keyword_lists"


class KeywordFileError(ValueError):
    """A keyword list file of the wrong shape; the message names the file and the entry."""


def _read(path) -> dict:
    """The file's JSON, refused with a message naming the file and what is wrong."""
    name = Path(path).name
    try:
        return json.loads(Path(path).read_text(encoding="utf-8-sig"))
    except OSError as exc:
        raise KeywordFileError(f"{path}: cannot be read: {exc.strerror}") from exc
    except json.JSONDecodeError as exc:
        raise KeywordFileError(f"{name}:{exc.lineno}: not valid JSON: {exc.msg}") from exc
    except UnicodeDecodeError as exc:
        raise KeywordFileError(f"{name}: not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    except RecursionError as exc:
        raise KeywordFileError(f"{name}: nested too deeply to be a keyword list") from exc
    except ValueError as exc:  # an integer of more than 4,300 digits
        raise KeywordFileError(f"{name}: not usable JSON ({exc})") from exc


def _entry(name: str, i: int, entry, term_limit: int) -> tuple[str, str, str]:
    """One keyword of the list: its term, normalised, its origin and its status."""
    where = f"keywords[{i}]"
    if not isinstance(entry, dict | str):
        raise KeywordFileError(f"{name}: {where}: {type(entry).__name__} (expected a term or an object with "
                               "'term')")
    fields = entry if isinstance(entry, dict) else {"term": entry}
    term = fields.get("term")
    origin = fields.get("origin", Keyword.Origin.OTHER)
    status = fields.get("status", Keyword.Status.ACCEPTED)
    if not isinstance(term, str) or not term.strip():
        raise KeywordFileError(f"{name}: {where}: term: missing or empty (expected text)")
    _check(name, f"{where}: term", normalise_term(term), term_limit)
    if origin not in Keyword.Origin.values:
        raise KeywordFileError(f"{name}: {where}: origin: {str(origin)[:40]!r} is not one of "
                               f"{', '.join(Keyword.Origin.values)}")
    if status not in Keyword.Status.values:
        raise KeywordFileError(f"{name}: {where}: status: {str(status)[:40]!r} is not one of "
                               f"{', '.join(Keyword.Status.values)}")
    return normalise_term(term), origin, status


@transaction.atomic
def load_keyword_list(path) -> KeywordList:
    name = Path(path).name
    data = _read(path)
    if not (isinstance(data, dict) and isinstance(data.get("name"), str) and isinstance(data.get("keywords"), list)):
        raise KeywordFileError(f"{name}: top level: expected an object with 'name' and a list 'keywords'")
    source = data.get("source", "")
    if not isinstance(source, str):
        raise KeywordFileError(f"{name}: source: {type(source).__name__} (expected text)")
    _check(name, "name", data["name"], KeywordList._meta.get_field("name").max_length)
    _check(name, "source", source, None)
    if not data["name"].strip():
        raise KeywordFileError(f"{name}: name: empty (expected the list's name)")
    term_limit = Keyword._meta.get_field("term").max_length
    entries = [_entry(name, i, entry, term_limit) for i, entry in enumerate(data["keywords"])]
    keyword_list, _ = KeywordList.objects.update_or_create(
        name=data["name"].strip(), defaults={"description": data.get("source", "")}
    )
    for term, origin, status in entries:
        # The status only for a new keyword: loading again never undoes a screening decision.
        Keyword.objects.update_or_create(keyword_list=keyword_list, term=term, defaults={"origin": origin},
                                         create_defaults={"origin": origin, "status": status})
    return keyword_list


def _check(name: str, field: str, value: str, limit: int | None) -> None:
    if problem := text_problem(value) or (length_problem(value, limit) if limit else None):
        raise KeywordFileError(f"{name}: {field}: {problem}")


def load_shipped_lists() -> list[KeywordList]:
    """The study's keyword lists for PyTorch, TensorFlow and MindSpore, as shipped with Concord."""
    return [load_keyword_list(path) for path in sorted(SHIPPED_LISTS.glob("*.json"))]
