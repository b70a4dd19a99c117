"""Pure: keyword matching on match text (see normalise.match_text).

Terms in scripts written with spaces match on word boundaries, case-insensitively; multi-word terms
match across any run of white space; terms with dots or hyphens (torch.distributed, multi-GPU) match
as written. Terms in scripts written without spaces (大模型) match anywhere inside the text, since
those scripts have no word boundaries to look for.

One Aho-Corasick pass (pyahocorasick, in C) finds every candidate in a single scan of the text;
Python then only checks the boundaries of the few hits. Whole repositories pass through here.
"""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

import ahocorasick

_SPACELESS_SCRIPTS = ("CJK", "HIRAGANA", "KATAKANA", "THAI", "LAO", "KHMER", "MYANMAR", "HANGUL")


def _is_spaceless_script(ch: str) -> bool:
    name = unicodedata.name(ch, "")
    return any(script in name for script in _SPACELESS_SCRIPTS)


def _is_word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def normalise_term(term: str) -> str:
    return " ".join(term.lower().split())


class KeywordMatcher:
    """Built once per keyword list; `matches(text)` gives the terms found in one issue's match text."""

    def __init__(self, terms: Iterable[str]):
        self.terms = sorted({normalise_term(t) for t in terms if t.strip()})
        # Every piece the automaton looks for: a whole term, or one word of a multi-word term.
        # The value says whether the piece needs word boundaries around it.
        self._automaton = ahocorasick.Automaton()
        self._phrases: list[tuple[tuple[str, ...], str, re.Pattern]] = []
        self._whole: set[str] = set()
        for term in self.terms:
            words = tuple(term.split(" "))
            for piece in words:
                bounded = not any(_is_spaceless_script(ch) for ch in piece)
                self._automaton.add_word(piece, (piece, bounded))
            if len(words) == 1:
                self._whole.add(term)
            else:
                pattern = re.compile(r"\s+".join(re.escape(w) for w in words))
                self._phrases.append((words, term, pattern))
        if self.terms:
            self._automaton.make_automaton()

    def _pieces(self, text: str) -> set[str]:
        found = set()
        size = len(text)
        for end, (piece, bounded) in self._automaton.iter(text):
            if piece in found:  # a word repeated in a report is checked once it has been found
                continue
            if bounded:
                start = end - len(piece) + 1
                if _is_word_char(piece[0]) and start > 0 and _is_word_char(text[start - 1]):
                    continue
                if _is_word_char(piece[-1]) and end + 1 < size and _is_word_char(text[end + 1]):
                    continue
            found.add(piece)
        return found

    def matches(self, text: str) -> set[str]:
        """Terms found in `text`, which must already be lower-case match text."""
        if not self.terms:
            return set()
        pieces = self._pieces(text)
        found = pieces & self._whole
        for words, term, pattern in self._phrases:
            # Each word was seen on its own; the phrase still has to appear with only white space between.
            if pieces.issuperset(words) and any(
                self._bounded(text, m.start(), m.end()) for m in pattern.finditer(text)
            ):
                found.add(term)
        return found

    @staticmethod
    def _bounded(text: str, start: int, end: int) -> bool:
        before = start == 0 or not _is_word_char(text[start - 1]) or not _is_word_char(text[start])
        after = end == len(text) or not _is_word_char(text[end]) or not _is_word_char(text[end - 1])
        return before and after
