from __future__ import annotations

from django import template

register = template.Library()


@register.filter
def get_item(mapping: dict, key):
    return mapping.get(key) if mapping else None


@register.filter
def next_key(siblings) -> int:
    """The keyboard number after the siblings' own (for "Not relevant", after the types)."""
    return max((node.key for node in siblings), default=0) + 1


@register.filter
def percent(value) -> str:
    """A share as a percentage with two decimals (0.2438 → "24.38 %")."""
    return "" if value is None else f"{100 * float(value):.2f} %"


@register.filter
def pvalue(value) -> str:
    """A p-value to four decimals, or "< 0.0001" rather than a misleading 0.0000."""
    if value is None:
        return "—"
    return "< 0.0001" if float(value) < 0.0001 else f"{float(value):.4f}"
