"""Summaries and pre-verdicts of issues, from a pluggable backend chosen by settings (DESIGN step 5).

`summariser_from_settings()` gives the extractive backend (built in, no network) unless SUMMARY_BACKEND=llm,
which calls an OpenAI-compatible chat-completions endpoint.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass

from django.conf import settings

WINDOW_WORDS = 300


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
    """The first `words` words of the body, the part the study summarised (section 4.1)."""
    parts = (body or "").split(" ")
    out, count = [], 0
    for part in parts:
        out.append(part)
        count += len(part.split())
        if count >= words:
            break
    return " ".join(out)


def content_hash(title: str, body: str | None) -> str:
    """What a summary depends on: the title and the summarised window of the body."""
    return hashlib.sha256(f"{title}\n{window(body)}".encode()).hexdigest()


def summariser_from_settings():
    if settings.SUMMARY_BACKEND == "llm":
        from .openai_compat import ChatSummariser

        return ChatSummariser.from_settings()
    from .extractive import ExtractiveSummariser

    return ExtractiveSummariser()
