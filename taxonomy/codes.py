"""Pure: how the codebook numbers its categories (A, C.6, C.6.iv)."""
from __future__ import annotations


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
