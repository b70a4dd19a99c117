"""Figures as Concord writes them: intervals in brackets with a true minus sign, never a dash between two
numbers that may be negative."""
from __future__ import annotations

from concord.numbers import interval, number


def test_an_interval_of_negative_figures_reads_plainly():
    assert interval(-0.2271, -0.1984) == "[\u22120.227, \u22120.198]"
    assert interval(0.0, 0.2038833, 1, percent=True) == "[0.0 %, 20.4 %]"
    assert interval(None, 0.3) == "—"
    assert number(-0.0001) == "0.000" and number(-0.197) == "\u22120.197" and number(None) == "—"
