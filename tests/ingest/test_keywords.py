from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ingest import keywords
from ingest.keywords import KeywordMatcher
from ingest.normalise import match_text

# Hyperscan where it is built; the Aho-Corasick automaton everywhere. Both must give what the rule gives.
ENGINES = ["hyperscan", "automaton"] if keywords.hyperscan is not None else ["automaton"]


@pytest.fixture(params=ENGINES)
def engine(request):
    return request.param


def _found(terms, text, engine=None):
    return KeywordMatcher(terms, engine=engine).matches(match_text(text))


@pytest.mark.parametrize(
    ("term", "text", "hit"),
    [
        ("llm", "An LLM crashed", True),
        ("llm", "llms are many", False),  # word boundary: no plural by accident
        ("gpt", "GPT-4 output", True),
        ("gpt", "gpt2 weights", False),
        ("yi", "yield from", False),
        ("large language model", "a Large\n  Language   model", True),
        ("torch.distributed", "import torch.distributed as dist", True),
        ("torch.distributed", "torch distributed", False),
        ("multi-gpu", "Multi-GPU training", True),
        ("jit_compile", "set jit_compile=True", True),
        ("int8", "int8quant", False),
        ("大模型", "我们在大模型训练中遇到错误", True),
        ("昇腾", "使用昇腾910B", True),
        ("llama", "see `llama` in inline code", False),  # inline code is not prose
        ("llama", "```\nllama\n```\nnothing", False),
        # Word characters and white space are Python's, beyond ASCII too.
        ("llm", "éllm", False),
        ("llm", "llm² and more", False),
        ("llm", "«llm»", True),
        ("café", "un café noir", True),
        ("café", "cafés", False),
        ("naïve bayes", "a naïve\u3000bayes model", True),
        ("naïve bayes", "naïve\u00a0\u2028bayes", True),
        ("few shot", "few\x1cshot", True),
        ("few shot", "few-shot", False),
        ("数据 集", "用数据 集训练", True),
    ],
)
def test_matching_rules(term, text, hit, engine):
    assert (term in _found([term], text, engine)) is hit


TERMS = ["llm", "café", "naïve bayes", "a_b", "x.y", "-flag", "c++", "大模型", "large language model", "gpt"]
PIECES = ["llm", "café", "naïve", "bayes", "a_b", "x.y", "-flag", "c++", "大模型", "large", "language", "model", "gpt",
          " ", "\n", "\u00a0", "\u3000", "\x1c", "\t", "é", "x", "_", "1", "-", ".", "β", "²", "½", "\u0301", "?"]
MATCHERS = {engine: KeywordMatcher(TERMS, engine=engine) for engine in ENGINES}


def _rule(term: str, text: str) -> bool:
    """The rule, plainly: words apart by white space; a word boundary at each end that is a word character, except
    in a script written without spaces."""
    parts = []
    for word in term.split(" "):
        bounded = not re.search(r"[\u4e00-\u9fff]", word)
        parts.append(("(?<!\\w)" if bounded and re.match(r"\w", word) else "") + re.escape(word)
                     + ("(?!\\w)" if bounded and re.match(r"\w", word[-1]) else ""))
    return re.search(r"\s+".join(parts), text) is not None


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=12).map("".join))
def test_every_engine_finds_what_the_rule_finds(text):
    for engine, matcher in MATCHERS.items():
        assert matcher.matches(text) == {term for term in TERMS if _rule(term, text)}, engine


def test_each_issue_gets_every_term_it_matched(engine):
    terms = ["LLM", "quantization", "tensor parallel", "oom"]
    found = _found(terms, "OOM with tensor  parallel and no quantization", engine)
    assert found == {"oom", "tensor parallel", "quantization"}


def test_terms_are_case_and_space_normalised():
    assert KeywordMatcher(["  Large   Language Model ", "LLM", "llm"]).terms == ["large language model", "llm"]


@pytest.mark.skipif(keywords.hyperscan is None, reason="Hyperscan is not built for this processor")
def test_a_list_hyperscan_cannot_compile_matches_on_the_automaton(monkeypatch):
    def refuse(self, patterns, utf8=False):
        raise keywords.hyperscan.error("pattern too large")

    monkeypatch.setattr(keywords.Scanner, "__init__", refuse)
    matcher = KeywordMatcher(["llm", "few shot"])
    assert matcher.engine == "automaton" and matcher.matches("an llm, few  shot") == {"llm", "few shot"}


@pytest.mark.skipif(keywords.hyperscan is None, reason="Hyperscan is not built for this processor")
def test_a_long_list_matches_on_the_automaton_which_builds_in_a_moment(monkeypatch):
    monkeypatch.setattr(keywords, "HYPERSCAN_MAX_TERMS", 2)
    assert KeywordMatcher(["llm", "gpt"]).engine == "hyperscan"
    matcher = KeywordMatcher(["llm", "gpt", "few shot"])
    assert matcher.engine == "automaton" and matcher.matches("gpt and few shot") == {"gpt", "few shot"}
