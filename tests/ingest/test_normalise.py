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


def _reference_strip(markdown: str) -> str:
    """Code blocks as first written: the rule walked line by line (slower, but plain)."""
    kept, fence, previous_blank, in_indented = [], "", True, False
    for line in markdown.split("\n"):
        if fence:
            stripped = line.lstrip(" ")
            if stripped.startswith(fence) and not stripped[len(fence):].strip(fence[0]).strip():
                fence, previous_blank = "", True
            continue
        if opening := re.match(r" {0,3}(`{3,}|~{3,})", line):
            fence, in_indented = opening.group(1), False
            continue
        is_blank = not line.strip()
        if line.startswith(("    ", "\t")) and not is_blank and (previous_blank or in_indented):
            in_indented = True
            continue
        if not is_blank:
            in_indented = False
        kept.append(line)
        previous_blank = is_blank
    return "\n".join(kept)


_LINE_PIECES = ["", " ", "    ", "\t", "```", "````", "~~~", "   ```py", "    ```", "code", "\u3000", "\x0c", "~~~~ ",
                "``` x", "- a", "\u00a0", "`x`", "~", "`", " ` ", "~~~`", "\r"]


@settings(max_examples=5000, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_LINE_PIECES), max_size=3).map("".join), max_size=10).map("\n".join))
def test_code_blocks_are_the_ones_the_line_by_line_rule_finds(text):
    from ingest import normalise

    assert normalise.strip_code_blocks(text) == _reference_strip(text)
    assert normalise.strip_code_blocks(text + "\n") == _reference_strip(text + "\n")
