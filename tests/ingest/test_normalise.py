import re

from hypothesis import given, settings
from hypothesis import strategies as st

from ingest.normalise import match_text, plain_text


def test_code_and_markup_are_removed_for_matching():
    body = (
        "## Bug\r\nRunning **LLaMA** with `tp=2`:\r\n```python\nimport torch  # oom here\n```\n"
        "    indented code\n<!-- template -->Done"
    )
    text = match_text(body)
    assert "import torch" not in text and "indented code" not in text and "template" not in text
    assert "running **llama** with" in text and "tp=2" not in text and "done" in text


def test_words_with_underscores_survive():
    assert plain_text("Set TORCH_CUDA_ARCH_LIST and _this_") == "Set TORCH_CUDA_ARCH_LIST and this"


def test_unclosed_fence_hides_the_rest_and_tilde_fences_count():
    assert match_text("before\n~~~\ncode llama\n~~~\nafter\n```\nnever closed llama") == "before\nafter"


def test_indented_lines_inside_a_paragraph_or_list_are_prose():
    text = match_text("- item one\n    continued with llama\n\nparagraph\n\n    real code\n")
    assert "continued with llama" in text and "real code" not in text


def test_summary_text_keeps_inline_code_words():
    assert plain_text("Use `torch.compile` with **bf16**") == "Use torch.compile with bf16"


# The code-span patterns as first written: slower (the engine tries a group at every character) but plain.
_REFERENCE_SPAN = re.compile(r"(`+)[^`\n]+?\1")
_REFERENCE_SPAN_KEEP = re.compile(r"(`+)([^`\n]+?)\1")


@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet="`a b\nx_*", max_size=40))
def test_code_spans_are_the_ones_the_plain_pattern_finds(text):
    from ingest import normalise

    assert normalise._INLINE_CODE.sub(" ", text) == _REFERENCE_SPAN.sub(" ", text)
    assert normalise._INLINE_CODE_KEEP.sub(r"\2", text) == _REFERENCE_SPAN_KEEP.sub(r"\2", text)
