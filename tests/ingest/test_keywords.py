from __future__ import annotations

import pytest

from ingest.keywords import KeywordMatcher
from ingest.normalise import match_text


def _found(terms, text):
    return KeywordMatcher(terms).matches(match_text(text))


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
    ],
)
def test_matching_rules(term, text, hit):
    assert (term in _found([term], text)) is hit


def test_each_issue_gets_every_term_it_matched():
    terms = ["LLM", "quantization", "tensor parallel", "oom"]
    assert _found(terms, "OOM with tensor  parallel and no quantization") == {"oom", "tensor parallel", "quantization"}


def test_terms_are_case_and_space_normalised():
    assert KeywordMatcher(["  Large   Language Model ", "LLM", "llm"]).terms == ["large language model", "llm"]
