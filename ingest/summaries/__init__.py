"""Summaries and pre-verdicts of issues, from a pluggable backend chosen by settings.

`summariser_from_settings()` gives the extractive backend (built in, no network) unless SUMMARY_BACKEND=llm,
which calls an OpenAI-compatible chat-completions endpoint.
"""
from __future__ import annotations

import hashlib
import itertools
import re
from dataclasses import dataclass

from django.conf import settings

WINDOW_WORDS = 300
_WORD = re.compile(r"\S+")


class Verdict:
    RELEVANT = "relevant"
    NOT_RELEVANT = "not_relevant"
    UNCLEAR = "unclear"
    ALL = (RELEVANT, NOT_RELEVANT, UNCLEAR)


@dataclass(frozen=True)
class SummaryResult:
    text: str
    verdict: str
    reason: str


def window(body: str | None, words: int = WINDOW_WORDS) -> str:
    """The first `words` words of the body, the part the study summarised (section 4.1): the body up to the
    space after its `words`-th word (stored summaries are keyed by a hash of it, so it never changes)."""
    body = body or ""
    # Read with every report shown: only the first words are looked at, however long the body is.
    first = list(itertools.islice(_WORD.finditer(body), words))
    if not first or len(first) < words:
        return body
    cut = body.find(" ", first[-1].end())
    return body if cut < 0 else body[:cut]


def content_hash(title: str, body: str | None) -> str:
    """What a summary depends on: the title and the summarised window of the body."""
    return hashlib.sha256(f"{title}\n{window(body)}".encode()).hexdigest()


def summariser_from_settings():
    if settings.SUMMARY_BACKEND == "llm":
        from .openai_compat import ChatSummariser  # cycle: the backends import this package's types

        return ChatSummariser.from_settings()
    from .extractive import ExtractiveSummariser  # cycle: as above

    return ExtractiveSummariser()
