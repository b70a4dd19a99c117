"""A category in its reader's language: a codebook may give each category a name, definition and notes in a
second language; a reader of that language sees those first, and the codebook's own a hover away (and the other
way round for everyone else)."""
from __future__ import annotations

from django.utils import translation

from .models import Category, Codebook
from .selectors import codebook_tree

FIELDS = ("name", "definition", "inclusion", "exclusion")
# Their second-language fields, under the same names in codebook files (JSON) as in the model.
SECOND = tuple(f"{field}_second" for field in FIELDS)


def reads_second(codebook: Codebook) -> bool:
    return bool(codebook.second_language) and translation.get_language() == codebook.second_language


def word(category: Category, field: str, second: bool) -> str:
    """`field` as the reader sees it: in the second language where they read it and it is given."""
    return (getattr(category, f"{field}_second") if second else "") or getattr(category, field)


def other(category: Category, field: str, second: bool) -> str:
    """The text in the other language, for the hover; "" where there is none or it says the same."""
    text = getattr(category, field) if second else getattr(category, f"{field}_second")
    return "" if text == word(category, field, second) else text


def in_reader_language(types: list[Category], codebook: Codebook) -> list[Category]:
    """Give every node of a `codebook_tree` `.shown` and `.other`: its four texts for this reader and in the
    other language."""
    second = reads_second(codebook)
    stack = list(types)
    while stack:
        node = stack.pop()
        node.shown = {f: word(node, f, second) for f in FIELDS}
        node.other = {f: other(node, f, second) for f in FIELDS}
        stack.extend(getattr(node, "kids", []))
    return types


def reader_tree(codebook: Codebook) -> list[Category]:
    """The codebook's live tree (`codebook_tree`), each node in this reader's language."""
    return in_reader_language(codebook_tree(codebook), codebook)
