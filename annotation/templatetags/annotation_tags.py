from __future__ import annotations

from django import template
from django.utils.formats import date_format
from django.utils.html import format_html, format_html_join

register = template.Library()


@register.filter
def get_item(mapping: dict, key):
    return mapping.get(key) if mapping else None


@register.filter
def next_key(siblings) -> str:
    """The keyboard number after the siblings' own (for "Not relevant", after the types), with as many digits as
    theirs (`codebook_tree` pads the types' keys for it)."""
    numbers = [int(node.key) for node in siblings]
    width = max((len(node.key) for node in siblings), default=1)
    return str(max(numbers, default=0) + 1).zfill(width)


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


@register.simple_tag
def sparkline(per_day, peak: int):
    """Labels per day as small bars (SVG: no inline style, which the Content-Security-Policy forbids); the days
    and counts are in the text alternative."""
    per_day = list(per_day)
    height, width = 20, 6
    bars = format_html_join("", '<rect x="{}" y="{}" width="5" height="{}"><title>{}: {}</title></rect>', (
        (i * width, height - h, h, day.isoformat(), n)
        for i, (day, n) in enumerate(per_day) for h in [max(1, round(height * n / peak)) if n else 0]))
    # The day as the reader's locale writes a month and day ("November 23", "11月23日").
    said = ", ".join(f"{date_format(day, 'MONTH_DAY_FORMAT')}: {n}" for day, n in per_day)
    return format_html('<svg class="sparkline" role="img" aria-label="{}" viewBox="0 0 {} {}" width="{}" '
                       'height="{}">{}</svg>', said, width * len(per_day), height, width * len(per_day), height, bars)
