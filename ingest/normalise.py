"""Pure: raw issue Markdown → plain text. The original text is always kept untouched for display."""
from __future__ import annotations

import re

_FENCED = re.compile(r"^ {0,3}(```|~~~).*?^ {0,3}\1[^\n]*$", re.MULTILINE | re.DOTALL)
_UNCLOSED_FENCE = re.compile(r"^ {0,3}(```|~~~).*\Z", re.MULTILINE | re.DOTALL)
_INDENTED = re.compile(r"(?:^(?: {4}|\t).*(?:\n|$))+", re.MULTILINE)
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_TAG = re.compile(r"</?[a-zA-Z][^>]*>")
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_INLINE_CODE = re.compile(r"`([^`]*)`")
_LINE_MARKUP = re.compile(r"^\s{0,3}(?:#{1,6}\s+|>\s?|[-*+]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+)", re.MULTILINE)
_EMPHASIS = re.compile(r"(\*\*|\*|~~)(?=\S)(.+?)(?<=\S)\1")
# Underscores inside words (TORCH_CUDA_ARCH_LIST, snake_case) are not emphasis.
_UNDERSCORE_EMPHASIS = re.compile(r"(?<!\w)(__|_)(?=\S)(.+?)(?<=\S)\1(?!\w)")
_RULE = re.compile(r"^\s*(?:[-*_]\s*){3,}$|^\s*\|?[-:| ]+\|[-:| ]*$", re.MULTILINE)


def plain_text(markdown: str | None) -> str:
    """Markdown syntax, HTML comments and tags, fenced and indented code removed; line breaks kept."""
    text = (markdown or "").replace("\r\n", "\n").replace("\r", "\n")
    text = _HTML_COMMENT.sub(" ", text)
    text = _FENCED.sub(" ", text)
    text = _UNCLOSED_FENCE.sub(" ", text)
    text = _INDENTED.sub(" ", text)
    text = _IMAGE.sub(r"\1", text)
    text = _LINK.sub(r"\1", text)
    text = _INLINE_CODE.sub(r"\1", text)
    text = _TAG.sub(" ", text)
    text = _RULE.sub(" ", text)
    text = _LINE_MARKUP.sub("", text)
    text = _EMPHASIS.sub(r"\2", text)
    text = _UNDERSCORE_EMPHASIS.sub(r"\2", text)
    return "\n".join(" ".join(line.split()) for line in text.split("\n")).strip()


def match_text(markdown: str | None) -> str:
    """DESIGN step 2: what keyword matching reads: lower-case plain text."""
    return plain_text(markdown).lower()
