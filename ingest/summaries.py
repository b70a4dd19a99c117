"""Pure: the short summary an annotator reads first. A placeholder for the pluggable summariser (issue 4)."""
from __future__ import annotations

from .normalise import plain_text

SUMMARY_WORDS = 60


def first_lines_summary(body: str | None, max_words: int = SUMMARY_WORDS) -> str:
    """The opening words of the body's prose (code and markup left out), cut at max_words."""
    words = " ".join(line for line in plain_text(body).split("\n") if line).split()
    summary = " ".join(words[:max_words])
    return summary + (" …" if len(words) > max_words else "")
