"""Summaries and pre-verdicts from any OpenAI-compatible chat-completions endpoint (a local vLLM, Ollama
or llama.cpp server, or a hosted one): LLM_BASE_URL, LLM_MODEL, LLM_API_KEY.

The prompt is versioned: a summary records the version it was made with, and the cache key includes it.
"""
from __future__ import annotations

import json
import re

from django.conf import settings

from integrations.chat import CallFailed, ChatClient
from integrations.chat import EndpointDown as NoEndpoint

from . import SummaryResult, Verdict, window

NAME = "llm"
PROMPT_VERSION = "2025-11-1"
SYSTEM_PROMPT = (
    "You screen GitHub and Gitee issue reports of deep-learning frameworks for a study of challenges that "
    "arise with large language models (LLMs). Answer with one JSON object and nothing else: "
    '{"summary": "<at most 60 words: the problem, its error or symptom, its context>", '
    '"verdict": "relevant" | "not relevant" | "unclear", "reason": "<one line>"}. '
    '"relevant" means the issue is about training, fine-tuning, serving or running LLMs, or features they '
    "need; a keyword that appears only in a user name, a file path or an unrelated component name is not "
    'enough. Say "unclear" when the text does not let you decide. Write the summary in English.'
)
_JSON_OBJECT = re.compile(r"\{.*\}", re.DOTALL)
_VERDICTS = {"relevant": Verdict.RELEVANT, "not relevant": Verdict.NOT_RELEVANT, "not_relevant": Verdict.NOT_RELEVANT,
             "unclear": Verdict.UNCLEAR}


class SummaryError(Exception):
    """The endpoint failed or answered something unusable; the message says which, with the URL."""


class EndpointDown(SummaryError):
    """The endpoint gave no answer at all after every retry: the next issue would fare no better."""


def user_prompt(title: str, body: str | None) -> str:
    # Section 4.1 of the study: the title and the first 300 words of the body.
    return f"Title: {title}\n\nBody (first 300 words):\n{window(body)}"


def parse_answer(content: str) -> SummaryResult:
    match = _JSON_OBJECT.search(content or "")
    if not match:
        raise SummaryError(f"the model's answer holds no JSON object: {content[:120]!r}")
    try:
        data = json.loads(match.group())
    except json.JSONDecodeError as exc:
        raise SummaryError(f"the model's answer is not valid JSON ({exc.msg}): {content[:120]!r}") from exc
    summary = data.get("summary")
    verdict = _VERDICTS.get(str(data.get("verdict", "")).strip().lower())
    if not isinstance(summary, str) or not summary.strip():
        raise SummaryError("the model's answer has no 'summary'")
    if verdict is None:
        raise SummaryError(f"the model's verdict {data.get('verdict')!r} is not relevant, not relevant or unclear")
    return SummaryResult(text=summary.strip(), verdict=verdict, reason=str(data.get("reason", "")).strip())


class ChatSummariser:
    name = NAME
    prompt_version = PROMPT_VERSION

    def __init__(self, base_url: str, model: str, api_key: str = "", timeout: float = 60.0, attempts: int = 4,
                 backoff: float = 2.0):
        self.chat = ChatClient(base_url, model, agent="concord-summaries", api_key=api_key, timeout=timeout,
                               attempts=attempts, backoff=backoff)
        self.model = model

    @classmethod
    def from_settings(cls) -> ChatSummariser:
        return cls(settings.LLM_BASE_URL, settings.LLM_MODEL, settings.LLM_API_KEY,
                   timeout=settings.LLM_TIMEOUT_SECONDS, attempts=settings.LLM_ATTEMPTS,
                   backoff=settings.INGEST_HTTP_BACKOFF_SECONDS)

    def summarise(self, title: str, body: str | None, matched_terms: set[str] = frozenset(),
                  keyword_filtered: bool = False) -> SummaryResult:
        try:
            reply = self.chat.complete(SYSTEM_PROMPT, user_prompt(title, body), temperature=0)
        except NoEndpoint as exc:
            raise EndpointDown(str(exc)) from exc
        except CallFailed as exc:
            raise SummaryError(str(exc)) from exc
        try:
            return parse_answer(reply.content)
        except SummaryError as exc:
            raise SummaryError(f"POST {self.chat.url}: {exc}") from exc
