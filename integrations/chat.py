"""One chat completion from any OpenAI-compatible endpoint (a local vLLM, Ollama or llama.cpp server, or a hosted
one), for the summaries and the machine raters alike: the retrying HTTP client's retries, back-off on 429 and
5xx and timeouts, the address guard where the endpoint is not the operator's, and what a call log keeps — the
model as the endpoint named it, the tokens, the time taken."""
from __future__ import annotations

import time
from dataclasses import dataclass

from .guard import AddressGuard
from .http import ApiClient, FetchError, NoAnswer, Refused


class CallFailed(Exception):
    """No usable answer: the message names the URL and what went wrong."""


class EndpointDown(CallFailed):
    """No answer at all after every retry: the next report would fare no better."""


class EndpointRefused(EndpointDown):
    """The endpoint's address may not be reached from here; nothing was sent."""


@dataclass(frozen=True)
class Reply:
    content: str
    model: str
    prompt_tokens: int | None
    completion_tokens: int | None
    seconds: float
    refusal: str = ""


def _count(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**31 else None


def chat_endpoint(base_url: str, *, agent: str, api_key: str = "", timeout: float = 60.0, attempts: int = 4,
                  backoff: float = 2.0, guard: AddressGuard | None = None) -> tuple[str, ApiClient]:
    """The chat-completions URL of an OpenAI-compatible server and an HTTP client for it; with `guard`, the
    client reaches only the addresses it allows."""
    headers = {"User-Agent": agent}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    # A bare 429 from an inference server is load, not a quota: back off and retry like a 5xx.
    return base_url.rstrip("/") + "/chat/completions", ApiClient(
        headers=headers, attempts=attempts, backoff=backoff, timeout=timeout, max_wait=300, fallback_rate_wait=None,
        guard=guard)


class ChatClient:
    """`agent`: the User-Agent the endpoint's logs see (which part of Concord called)."""

    def __init__(self, base_url: str, model: str, *, agent: str, api_key: str = "", timeout: float = 60.0,
                 attempts: int = 4, backoff: float = 2.0, guard: AddressGuard | None = None):
        self.url, self.client = chat_endpoint(base_url, agent=agent, api_key=api_key, timeout=timeout,
                                              attempts=attempts, backoff=backoff, guard=guard)
        self.model = model

    def complete(self, system: str, user: str, *, temperature: float | None = None, seed: int | None = None) \
            -> Reply:
        payload: dict = {"model": self.model, "messages": [{"role": "system", "content": system},
                                                            {"role": "user", "content": user}]}
        if temperature is not None:
            payload["temperature"] = temperature
        if seed is not None:
            payload["seed"] = seed
        started = time.monotonic()
        try:
            answer = self.client.post(self.url, payload)
        except Refused as exc:
            raise EndpointRefused(str(exc)) from exc
        except NoAnswer as exc:
            raise EndpointDown(str(exc)) from exc
        except FetchError as exc:
            raise CallFailed(str(exc)) from exc
        data = answer.data
        try:
            message = data["choices"][0]["message"]
        except (KeyError, IndexError, TypeError) as exc:
            raise CallFailed(f"POST {answer.url} → {answer.status}, but not a chat completion") from exc
        if not isinstance(message, dict):
            raise CallFailed(f"POST {answer.url} → {answer.status}, but the message is not an object")
        content = message.get("content")
        refusal = message.get("refusal")
        usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
        model = data.get("model") if isinstance(data.get("model"), str) else ""
        return Reply(content=content if isinstance(content, str) else "", model=model[:200],
                     prompt_tokens=_count(usage.get("prompt_tokens")),
                     completion_tokens=_count(usage.get("completion_tokens")),
                     seconds=round(time.monotonic() - started, 3),
                     refusal=refusal if isinstance(refusal, str) else "")
