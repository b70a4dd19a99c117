"""Pure: the built-in summariser. From the title and the first 300 words of the body it keeps the
sentences that state the problem and the error line, and skips greetings and issue-template boilerplate.
No network, no model download; its pre-verdict is a keyword rule that says it is a rule."""
from __future__ import annotations

import re

from ..normalise import plain_text
from . import SummaryResult, Verdict, window

NAME = "extractive"
PROMPT_VERSION = "extractive-1"
MAX_WORDS = 60

_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+|\n+")
_ERROR_LINE = re.compile(r"^\s*(?:[\w.]+(?:Error|Exception|Fault)|Traceback|FAILED|fatal|panic)\b.*$", re.MULTILINE)
_PROBLEM = re.compile(
    r"\b(error|fail\w*|crash\w*|bug|wrong|cannot|can't|unable|doesn't|does not|not work\w*|hang\w*|oom|"
    r"out of memory|slow\w*|expected|instead|how (?:to|do|can)|support|request|feature|nan|incorrect|"
    r"broken|mismatch\w*|timeout|segfault|killed)\b",
    re.IGNORECASE,
)
_BOILERPLATE = re.compile(
    r"^(hi|hello|hey|thanks?|thank you|dear|greetings)\b|before submitting|checklist|search(ed)? the "
    r"(existing )?issues|your current environment|describe the bug|to reproduce|steps to reproduce|"
    r"additional context|\bi have read\b|\bplease\b.*\b(template|fill)\b",
    re.IGNORECASE,
)


def _sentences(text: str) -> list[str]:
    # Three words, or (in scripts written without spaces) a dozen characters, make a sentence.
    return [s.strip() for s in _SENTENCE.split(text) if len(s.strip().split()) >= 3 or len(s.strip()) >= 12]


def summarise_text(title: str, body: str | None, max_words: int = MAX_WORDS) -> str:
    raw = window(body)
    errors = [line.strip() for line in _ERROR_LINE.findall(raw)]
    scored = []
    for index, sentence in enumerate(_sentences(plain_text(raw))):
        if _BOILERPLATE.search(sentence):
            continue
        score = len(_PROBLEM.findall(sentence)) * 2 - index * 0.1  # earlier sentences win ties
        scored.append((score, index, sentence))
    best = sorted(sorted(scored, reverse=True)[:3], key=lambda item: item[1])
    parts = [s for _score, _index, s in best]
    # The last error line of a traceback names the failure; keep it unless a sentence already quotes it.
    if errors and not any(errors[-1] in p for p in parts):
        parts.append(errors[-1])
    words = " ".join(parts).split()
    text = " ".join(words[:max_words]) + (" …" if len(words) > max_words else "")
    # Pages show the title beside the summary, so it is repeated only when the body gives nothing.
    return text or title.strip()


def rule_verdict(title: str, matched_terms: set[str], keyword_filtered: bool) -> tuple[str, str]:
    """Keyword evidence, stated as such: a term in the title or two different terms → relevant;
    one term in the body → unclear; none → not relevant (or unclear where no keyword list applies)."""
    if not keyword_filtered:
        return Verdict.UNCLEAR, "rule: no keyword list applies to this source, so a reviewer decides"
    in_title = sorted(t for t in matched_terms if t in title.lower())
    if in_title:
        return Verdict.RELEVANT, f"rule: keyword {', '.join(in_title)} in the title"
    if len(matched_terms) >= 2:
        shown = ", ".join(sorted(matched_terms)[:5])
        return Verdict.RELEVANT, f"rule: {len(matched_terms)} keywords in the body ({shown})"
    if matched_terms:
        return Verdict.UNCLEAR, f"rule: only one keyword ({next(iter(matched_terms))}), in the body"
    return Verdict.NOT_RELEVANT, "rule: no keyword of the list matched"


class ExtractiveSummariser:
    name = NAME
    model = ""
    prompt_version = PROMPT_VERSION

    def summarise(self, title: str, body: str | None, matched_terms: set[str],
                  keyword_filtered: bool) -> SummaryResult:
        verdict, reason = rule_verdict(title, matched_terms, keyword_filtered)
        return SummaryResult(text=summarise_text(title, body), verdict=verdict, reason=reason)
