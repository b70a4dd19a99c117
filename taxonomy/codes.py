"""Pure: how the codebook numbers its categories (A, C.6, C.6.iv)."""
from __future__ import annotations

import re


def roman(n: int) -> str:
    """Lower-case Roman numerals, as the codebook numbers sub-themes (C.6.iv)."""
    numerals = [(1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"), (50, "l"),
                (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")]
    out = []
    for value, letters in numerals:
        while n >= value:
            out.append(letters)
            n -= value
    return "".join(out)


def _from_roman(text: str) -> int | None:
    values = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}
    if not text or any(ch not in values for ch in text):
        return None
    total = 0
    for ch, after in zip(text, [*text[1:], ""], strict=True):
        total += -values[ch] if after and values[after] > values[ch] else values[ch]
    return total if total > 0 and roman(total) == text else None


def number_of(code: str) -> int | None:
    """The number a code gives its category among its siblings: A → 1, C.11 → 11, C.9.ii → 2; None when the
    code does not follow the codebook's numbering."""
    last = code.rsplit(".", 1)[-1]
    if last.isdigit():
        return int(last) or None
    if "." not in code and len(last) == 1 and "A" <= last <= "Z":
        return ord(last) - ord("A") + 1
    return _from_roman(last)


def keys_for(codes: list[str]) -> list[int]:
    """The keyboard number of each sibling, from its code, so that a category keeps its key when others are
    added, split off or retired (codes are never reused). Siblings whose codes do not all follow the numbering,
    or clash, are numbered by position instead."""
    numbers = [number_of(code) for code in codes]
    if None in numbers or len(set(numbers)) != len(numbers):
        return list(range(1, len(codes) + 1))
    return numbers


def padded(numbers: list[int], width_of: int | None = None) -> list[str]:
    """Keys as typed: every key of a list has as many digits as its largest (`width_of`, when a key beyond the
    list's own follows it), so 1 is 01 in a list that has 10 or more. A key is complete when its last digit is
    typed, which no typing speed can change."""
    width = len(str(max([*numbers, width_of or 0], default=0)))
    return [str(n).zfill(width) for n in numbers]


_CODE = re.compile(r"[A-Z](?:\.\d+)*(?:\.[ivxlcdm]+)?")


def sort_key(label: str) -> list:
    """Codes in the codebook's order (C.2 before C.10, C.9.iv before C.9.ix); other labels with their digit runs
    compared as numbers, after the codes."""
    if _CODE.fullmatch(label):
        return [(0, ord(part), "") if part.isalpha() and part.isupper() else
                (0, int(part) if part.isdigit() else _from_roman(part) or 0, "") for part in label.split(".")]
    return [(1, 0, "")] + [(0, int(part), "") if part.isdigit() else (1, 0, part)
                           for part in re.split(r"(\d+)", label)]
