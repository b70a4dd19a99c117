"""Pure: keyword matching on match text (see normalise.match_text).

Terms in scripts written with spaces match on word boundaries, case-insensitively; multi-word terms
match across any run of white space; terms with dots or hyphens (torch.distributed, multi-GPU) match
as written. Terms in scripts written without spaces (大模型) match anywhere inside the text, since
those scripts have no word boundaries to look for. Word characters and white space are Python's
(str.isalnum or "_"; str.isspace), whatever finds the candidates.

Whole repositories pass through here, so candidates are found in C. Hyperscan scans the text once for
every term and reports each term at most once, with patterns that accept a little more than the rule
(word boundaries on ASCII letters and digits only; any non-ASCII character counts as white space between
words): on ASCII text they are the rule exactly, and on other text each term reported is confirmed by the
rule in Python. Hyperscan is built for x86-64 only; elsewhere one Aho-Corasick pass (pyahocorasick) finds
every occurrence of every word and Python checks the boundaries of each.
"""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

import ahocorasick

from .scanning import Scanner, hyperscan

_SPACELESS_SCRIPTS = ("CJK", "HIRAGANA", "KATAKANA", "THAI", "LAO", "KHMER", "MYANMAR", "HANGUL")
# Hyperscan's compiling grows faster than the list (0.05 s for the study's 68 terms, 0.5 s for 1,000, 26 s for
# 20,000, in every worker process of every import); past this many terms an uploaded list matches on the automaton,
# which is built in a second at any size.
HYPERSCAN_MAX_TERMS = 1000
# Python's white space in ASCII (str.isspace: \x1c-\x1f too), or any character outside ASCII.
_LOOSE_SPACE = r"(?:[\t\n\x0b\x0c\r \x1c-\x1f]|[^\x00-\x7f])+"


def _is_spaceless_script(ch: str) -> bool:
    name = unicodedata.name(ch, "")
    return any(script in name for script in _SPACELESS_SCRIPTS)


def _is_word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def normalise_term(term: str) -> str:
    return " ".join(term.lower().split())


def _edges(word: str) -> tuple[bool, bool]:
    """Whether the rule wants a word boundary before and after this word of a term."""
    if any(_is_spaceless_script(ch) for ch in word):
        return False, False
    return _is_word_char(word[0]), _is_word_char(word[-1])


def _rule(words: tuple[str, ...]) -> re.Pattern:
    """The rule itself for one term, as a Python pattern (its \\w and \\s are str.isalnum/_ and str.isspace)."""
    parts = []
    for word in words:
        before, after = _edges(word)
        parts.append(("(?<!\\w)" if before else "") + re.escape(word) + ("(?!\\w)" if after else ""))
    return re.compile(r"\s+".join(parts))


def _loose(words: tuple[str, ...]) -> bytes:
    """A Hyperscan pattern that accepts every text the rule accepts, and on ASCII text no other."""
    parts = []
    for word in words:
        before, after = _edges(word)
        body = "".join(f"\\x{ord(ch):02x}" if ch.isascii() and not ch.isalnum() else ch for ch in word)
        # Hyperscan's \b knows only ASCII word characters: beside a non-ASCII letter it would refuse what the
        # rule accepts, so there the boundary is left to the confirmation.
        parts.append(("\\b" if before and word[0].isascii() else "") + body
                     + ("\\b" if after and word[-1].isascii() else ""))
    return _LOOSE_SPACE.join(parts).encode()


class KeywordMatcher:
    """Built once per keyword list; `matches(text)` gives the terms found in one issue's match text."""

    def __init__(self, terms: Iterable[str], engine: str | None = None):
        """engine: "hyperscan" or "automaton"; by default Hyperscan where it is installed, for lists of up to
        HYPERSCAN_MAX_TERMS terms."""
        self.terms = sorted({normalise_term(t) for t in terms if t.strip()})
        self._words = [tuple(term.split(" ")) for term in self.terms]
        self._single = {words[0] for words in self._words if len(words) == 1}
        self._phrases = [(i, words) for i, words in enumerate(self._words) if len(words) > 1]
        self._rules = [(words[0], _rule(words)) for words in self._words]
        self._scanner = self._hyperscan() if self._wants_hyperscan(engine) else None
        if self.terms and self._scanner is None:
            self._build_automaton()
        self.engine = "hyperscan" if self._scanner else "automaton"

    def _wants_hyperscan(self, engine: str | None) -> bool:
        return bool(self.terms) and engine != "automaton" and hyperscan is not None and (
            engine == "hyperscan" or len(self.terms) <= HYPERSCAN_MAX_TERMS)

    def _hyperscan(self):
        try:
            return Scanner([_loose(words) for words in self._words], utf8=True)
        except hyperscan.error:  # a list Hyperscan cannot compile still matches, on the automaton
            return None

    def matches(self, text: str) -> set[str]:
        """Terms found in `text`, which must already be lower-case match text."""
        if not self.terms:
            return set()
        if self._scanner is None:
            return self._automaton_matches(text)
        # A lone surrogate (never in stored text) cannot be encoded; "?" is as little a word character as it.
        hits = self._scanner.found(text.encode("utf-8", "replace"))
        if not hits or text.isascii():
            return {self.terms[i] for i in hits}
        return {self.terms[i] for i in hits if self._confirmed(text, i)}

    def _confirmed(self, text: str, index: int) -> bool:
        first, rule = self._rules[index]
        # Every match of the rule begins with the term's first word: try the rule only where that word is.
        at = text.find(first)
        while at >= 0:
            if rule.match(text, at):
                return True
            at = text.find(first, at + 1)
        return False

    def _build_automaton(self) -> None:
        # Every piece the automaton looks for is one word of a term; the value says which boundaries it needs.
        self._automaton = ahocorasick.Automaton()
        for words in self._words:
            for word in words:
                self._automaton.add_word(word, (word, *_edges(word)))
        self._automaton.make_automaton()

    def _automaton_matches(self, text: str) -> set[str]:
        words = self._bounded_words(text)
        found = words & self._single
        for i, phrase in self._phrases:
            # Each word was seen on its own; the phrase still has to appear with only white space between.
            if words.issuperset(phrase) and self._confirmed(text, i):
                found.add(self.terms[i])
        return found

    def _bounded_words(self, text: str) -> set[str]:
        found = set()
        size = len(text)
        for end, (word, before, after) in self._automaton.iter(text):
            if word in found:  # a word repeated in a report is checked once it has been found
                continue
            start = end - len(word) + 1
            if before and start > 0 and _is_word_char(text[start - 1]):
                continue
            if after and end + 1 < size and _is_word_char(text[end + 1]):
                continue
            found.add(word)
        return found
