"""Charts that do not mislead: an undefined figure is said in words, never drawn at 0; values
sit in their own column to the right of every bar; codes in the codebook's order."""
from __future__ import annotations

import re

from agreement.templatetags.agreement_charts import LABEL, VALUE, WIDTH, bar_chart, interval_chart


def _numbers(svg: str, pattern: str) -> list[float]:
    return [float(v) for v in re.findall(pattern, svg)]


def test_an_undefined_kappa_is_not_a_dot_at_zero():
    svg = str(interval_chart([("Bug", 0.5, 0.4, 0.6), ("Question", None, None, None)], "kappa"))
    assert svg.count("<circle") == 1 and svg.count('class="ci"') == 1
    assert 'class="value undefined" text-anchor="end">undefined</text>' in svg
    # The word is anchored at its end inside the drawing, so it cannot be cut off.
    assert f'x="{WIDTH - 2}"' in svg


def test_values_sit_right_of_every_bar_and_negative_bars_grow_left():
    svg = str(bar_chart([("C.1", 1.0), ("C.2", -0.5), ("C.3", None)], "per category", -1.0, 1.0))
    ends = [x + w for x, w in zip(_numbers(svg, r'<rect x="([\d.]+)"'), _numbers(svg, r'width="([\d.]+)" height'),
                                  strict=True)]
    assert len(ends) == 2 and max(ends) <= WIDTH - VALUE
    zero = LABEL + (WIDTH - LABEL - VALUE - 8) / 2
    assert abs(_numbers(svg, r'<rect x="([\d.]+)"')[1] + _numbers(svg, r'width="([\d.]+)" height')[1] - zero) < 0.2
    assert svg.count(">undefined</text>") == 1


def test_long_labels_are_cut_with_the_whole_label_in_the_tooltip():
    name = "C.9.ii Memory management across tensor-parallel ranks"
    svg = str(bar_chart([(name, 0.3)], "x"))
    assert f"<title>{name}</title>C.9.ii Memory managem…</text>" in svg
