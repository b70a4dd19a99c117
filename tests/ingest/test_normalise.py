from ingest.normalise import match_text, plain_text
from ingest.summaries import first_lines_summary


def test_code_and_markup_are_removed_for_matching():
    body = (
        "## Bug\r\nRunning **LLaMA** with `tp=2`:\r\n```python\nimport torch  # oom here\n```\n"
        "    indented code\n<!-- template -->Done"
    )
    text = match_text(body)
    assert "import torch" not in text and "indented code" not in text and "template" not in text
    assert "running llama with tp=2:" in text and "done" in text


def test_words_with_underscores_survive():
    assert plain_text("Set TORCH_CUDA_ARCH_LIST and _this_") == "Set TORCH_CUDA_ARCH_LIST and this"


def test_summary_is_the_opening_prose_cut_at_a_word_limit():
    body = "```\nlog\n```\n" + " ".join(f"w{i}" for i in range(100))
    summary = first_lines_summary(body, max_words=5)
    assert summary == "w0 w1 w2 w3 w4 …"
