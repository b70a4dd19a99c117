"""Keyboard numbers come from codes, so they do not move when the codebook grows or shrinks."""
from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from taxonomy.codes import keys_for, number_of, roman, sort_key


@given(st.integers(min_value=1, max_value=3999))
def test_a_roman_numeral_reads_back_as_its_number(n):
    assert number_of(f"C.9.{roman(n)}") == n


def test_numbers_of_the_codebooks_codes():
    assert [number_of(c) for c in ("A", "C", "C.11", "C.9.ii", "C.9.xiv", "C.0", "C.9.iiii", "Other")] == [
        1, 3, 11, 2, 14, None, None, None]


def test_a_retired_or_split_sibling_leaves_the_others_keys_alone():
    before = keys_for(["C.1", "C.2", "C.3", "C.4"])
    after = keys_for(["C.1", "C.2", "C.4", "C.5", "C.6"])  # C.3 retired, split into C.5 and C.6
    assert before[3] == after[2] == 4


def test_codes_outside_the_numbering_fall_back_to_positions():
    assert keys_for(["C.1", "Memory", "C.3"]) == [1, 2, 3]
    assert keys_for(["C.1", "C.1"]) == [1, 2]


def test_codes_sort_in_the_codebooks_order():
    labels = ["C.10", "NR", "C.9.ix", "C.2", "C.9.iv", "C.1", "A", "C.9.v", "Other 10", "Other 9", "C"]
    assert sorted(labels, key=sort_key) == [
        "A", "C", "C.1", "C.2", "C.9.iv", "C.9.v", "C.9.ix", "C.10", "NR", "Other 9", "Other 10"]
