from __future__ import annotations

from django import template

from concord import numbers

register = template.Library()


@register.simple_tag
def interval(low, high, digits: int = 3, percent: bool = False) -> str:
    """{% interval f.ci_low f.ci_high %} → [−0.227, −0.198]"""
    return numbers.interval(low, high, digits, percent=percent)


@register.filter
def signed(value, digits: int = 3) -> str:
    """A figure with a true minus sign: {{ f.value|signed }} → −0.197"""
    return numbers.number(value, digits)
