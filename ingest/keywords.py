"""Pure: keyword matching on match text (see normalise.match_text).

Terms in scripts written with spaces match on word boundaries, case-insensitively; multi-word terms
match across any run of white space; terms with dots or hyphens (torch.distributed, multi-GPU) match
as written. Terms in scripts written without spaces (大模型) match anywhere inside the text, since
those scripts have no word boundaries to look for.
"""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

_WORD = re.compile(r"\w+")
_SPACELESS_SCRIPTS = ("CJK", "HIRAGANA", "KATAKANA", "THAI", "LAO", "KHMER", "MYANMAR", "HANGUL")


def _is_spaceless_script(ch: str) -> bool:
    name = unicodedata.name(ch, "")
    return any(script in name for script in _SPACELESS_SCRIPTS)


def normalise_term(term: str) -> str:
    return " ".join(term.lower().split())


class KeywordMatcher:
    """Built once per keyword list; `matches(text)` gives the terms found in one issue's match text."""

    def __init__(self, terms: Iterable[str]):
        self.terms = sorted({normalise_term(t) for t in terms if t.strip()})
        self._single: set[str] = set()
        self._substring: list[str] = []
        # Phrase terms are checked only when their first word occurs at all: a set look-up per term
        # instead of a regex scan per term, which keeps whole-repository ingests fast.
        self._phrases: list[tuple[str, str, re.Pattern]] = []
        for term in self.terms:
            if any(_is_spaceless_script(ch) for ch in term):
                self._substring.append(term)
            elif _WORD.fullmatch(term):
                self._single.add(term)
            else:
                words = _WORD.findall(term)
                pattern = r"\s+".join(re.escape(part) for part in term.split(" "))
                boundary_start = r"(?<!\w)" if term[0].isalnum() or term[0] == "_" else ""
                boundary_end = r"(?!\w)" if term[-1].isalnum() or term[-1] == "_" else ""
                self._phrases.append(
                    (words[0] if words else "", term, re.compile(boundary_start + pattern + boundary_end))
                )

    def matches(self, text: str) -> set[str]:
        """Terms found in `text`, which must already be lower-case match text."""
        words = set(_WORD.findall(text))
        found = words & self._single
        for first, term, pattern in self._phrases:
            if (not first or first in words) and pattern.search(text):
                found.add(term)
        found.update(t for t in self._substring if t in text)
        return found
