"""Pure: raw issue Markdown → text for matching or reading. The original is always kept for display."""
from __future__ import annotations

import re

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


# Code blocks as CommonMark draws them, found by one regular expression over the whole text, so that no line
# becomes an object of its own (splitting into lines and walking them was half of what making match text cost).
# Every line is taken as "\n" and its text; the text is given a blank line first, so that code on the first line
# follows a blank line as code elsewhere must:
# - a fence (``` or ~~~ after at most three spaces) hides every line up to a line holding the same run (or a longer
#   one) and nothing but white space, or to the end;
# - indented code (four spaces or a tab, and more than white space) begins after a blank line or a closed fence and
#   runs on over indented and blank lines. An indented line cannot interrupt a paragraph, so after prose it stays
#   prose (list continuations). Blank lines among code lines stay, as blank lines.
#
# Every repetition outside the closing-fence lookahead is possessive (*+): each can only end where it does, so the
# engine need not note a way back at every line of a block (a tenth of the time on issue bodies).
_CODE_LINE = r"\n(?: {4}|\t)[^\S\n]*+\S[^\n]*+"
_BLANK_LINE = r"\n[^\S\n]*+(?=\n|\Z)"
_INDENTED = rf"{_CODE_LINE}(?:{_CODE_LINE}|{_BLANK_LINE})*+"


def _fence(name: str, char: str) -> str:
    closing = rf" *(?P={name}){char}*[^\S\n]*{char}*(?=\n|\Z)"
    return rf" {{0,3}}(?P<{name}>{char}{{3,}})[^\n]*+(?:\n(?!{closing})[^\n]*+)*+(?:\n{closing})?"


# One literal "\n" first, so that the regex engine skips from line to line at C speed.
_CODE_BLOCK = re.compile(rf"\n(?:(?:{_fence('ticks', '`')}|{_fence('tildes', '~')})(?P<after_fence>{_INDENTED})?"
                         rf"|(?P<blank>[^\S\n]*+(?=\n|\Z))(?P<after_blank>{_INDENTED}))")
_BLANK_LINES = re.compile(_BLANK_LINE)


def _kept_of_block(match: re.Match) -> str:
    # What stays of a block: the blank line before indented code, and the blank lines among its lines.
    if (blank := match.group("blank")) is not None:
        return "\n" + blank + "".join(_BLANK_LINES.findall(match.group("after_blank")))
    after = match.group("after_fence")
    return "".join(_BLANK_LINES.findall(after)) if after else ""


def strip_code_blocks(markdown: str) -> str:
    """Drop fenced code (``` or ~~~, closed or not) and indented code blocks (see _CODE_BLOCK)."""
    return _CODE_BLOCK.sub(_kept_of_block, "\n\n" + markdown)[2:]


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
