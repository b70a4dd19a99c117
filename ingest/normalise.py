"""Pure: raw issue Markdown → text for matching or reading. The original is always kept for display."""
from __future__ import annotations

import re

_FENCE_OPEN = re.compile(r" {0,3}(`{3,}|~{3,})")
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
_TAG = re.compile(r"</?[a-zA-Z][^>\n]*>")
_IMAGE = re.compile(r"!\[([^\]\n]*)\]\([^)\n]*\)")
_LINK = re.compile(r"\[([^\]\n]*)\]\([^)\n]*\)")
# A code span: a run of backticks, text without backticks or line breaks, the same run again. Written to
# begin with a literal backtick, which lets the regex engine skip to the next one at C speed (eight times
# faster on issue bodies than `(`+)…\1`, which matches the same spans).
_INLINE_CODE = re.compile(r"`(`*)[^`\n]++`\1")
_INLINE_CODE_KEEP = re.compile(r"`(`*)([^`\n]++)`\1")
_LINE_MARKUP = re.compile(r"^\s{0,3}(?:#{1,6}\s+|>\s?|[-*+]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+)", re.MULTILINE)
_EMPHASIS = re.compile(r"(\*\*|\*|~~)(?=\S)(.+?)(?<=\S)\1")
# Underscores inside words (TORCH_CUDA_ARCH_LIST, snake_case) are not emphasis.
_UNDERSCORE_EMPHASIS = re.compile(r"(?<!\w)(__|_)(?=\S)([^_\n]+?)(?<=\S)\1(?!\w)")
_RULE = re.compile(r"^\s*(?:[-*_]\s*){3,}$|^\s*\|?[-:| ]+\|[-:| ]*$", re.MULTILINE)


def strip_code_blocks(markdown: str) -> str:
    """Drop fenced code (``` or ~~~, closed or not) and indented code blocks, in one pass over the lines.

    An indented line is code only where CommonMark says so: after a blank line or more code, since an
    indented line cannot interrupt a paragraph (list continuations stay prose).
    """
    kept: list[str] = []
    fence = ""
    previous_blank = True
    in_indented = False
    for line in markdown.split("\n"):
        if fence:
            stripped = line.lstrip(" ")
            if stripped.startswith(fence) and not stripped[len(fence):].strip(fence[0]).strip():
                fence = ""
                previous_blank = True  # a closed fence ends a block, so indented code may follow
            continue
        # A fence needs three backticks or tildes: most lines are passed over without the regex.
        opening = _FENCE_OPEN.match(line) if ("```" in line or "~~~" in line) else None
        if opening:
            fence = opening.group(1)
            in_indented = False
            continue
        is_blank = not line.strip()
        if (line.startswith("    ") or line.startswith("\t")) and not is_blank and (previous_blank or in_indented):
            in_indented = True
            continue
        if not is_blank:
            in_indented = False
        kept.append(line)
        previous_blank = is_blank
    return "\n".join(kept)


def _has_code_block(text: str) -> bool:
    return "```" in text or "~~~" in text or "\n    " in text or "\n\t" in text or text.startswith(("    ", "\t"))


def _common(markdown: str | None) -> str:
    # Each step first asks, at C speed, whether its syntax occurs at all: most issues lack most of it,
    # and whole repositories pass through here.
    text = markdown or ""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "<!--" in text:
        text = _HTML_COMMENT.sub(" ", text)
    if _has_code_block(text):
        text = strip_code_blocks(text)
    if "](" in text:
        text = _LINK.sub(r"\1", _IMAGE.sub(r"\1", text))
    if "<" in text:
        text = _TAG.sub(" ", text)
    return text


def match_text(markdown: str | None) -> str:
    """What keyword matching reads: lower-case, no Markdown syntax, no code of any kind.

    Emphasis and list markers are punctuation, which word-boundary matching skips anyway, so they
    are left in place; that keeps this fast enough for whole repositories.
    """
    text = _common(markdown)
    if "`" in text:
        text = _INLINE_CODE.sub(" ", text)
    return text.lower()


def plain_text(markdown: str | None) -> str:
    """Readable plain text (for summaries): markup removed, inline code kept as words, lines collapsed."""
    text = _INLINE_CODE_KEEP.sub(r"\2", _common(markdown))
    text = _RULE.sub(" ", text)
    text = _LINE_MARKUP.sub("", text)
    text = _EMPHASIS.sub(r"\2", text)
    text = _UNDERSCORE_EMPHASIS.sub(r"\2", text)
    return "\n".join(" ".join(line.split()) for line in text.split("\n")).strip()
