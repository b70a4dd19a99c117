"""Small inline SVG charts for the agreement dashboard: no script, readable without colour, with text
alternatives. Every value is escaped by format_html."""
from __future__ import annotations

from django import template
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _

register = template.Library()

# The value column is wide enough for "undefined" and "-0.123"; labels longer than their column are cut with
# an ellipsis (the whole label is in the tooltip and the table beside the chart).
WIDTH, ROW, LABEL, VALUE = 460, 22, 150, 64
LABEL_CHARS = 22


def _label(text: str) -> str:
    text = str(text)
    return text if len(text) <= LABEL_CHARS else text[:LABEL_CHARS - 1] + "…"


def _n(value: float) -> str:
    # format_html escapes its arguments into text first, so numbers are formatted here.
    return f"{value:.1f}"


def _x(value: float, low: float, high: float) -> str:
    span = WIDTH - LABEL - VALUE - 8
    return _n(LABEL + span * (min(max(value, low), high) - low) / (high - low))


def _axis(low: float, high: float, height: int):
    ticks = [low + (high - low) * i / 4 for i in range(5)]
    return format_html_join("", '<line x1="{0}" y1="0" x2="{0}" y2="{1}" class="grid"/>'
                                '<text x="{0}" y="{2}" class="tick">{3}</text>',
                            ((_x(t, low, high), height - 14, height - 2, f"{t:.2f}") for t in ticks))


@register.simple_tag
def interval_chart(rows, title: str, low: float = 0.0, high: float = 1.0):
    """rows: (label, value, ci_low, ci_high) — a dot for the value and a line for its interval; an undefined value
    draws nothing on the axis (a dot at 0 would read as "no agreement") and says so in words."""
    rows = list(rows)
    height = ROW * len(rows) + 20
    body = format_html_join("", (
        '<text x="0" y="{0}" class="label"><title>{1}</title>{2}</text>{3}'
        '<text x="{4}" y="{0}" class="value{5}" text-anchor="end">{6}</text>'),
        ((ROW * i + 15, label, _label(label), _mark(value, ci_low, ci_high, ROW * i + 11, low, high, label),
          WIDTH - 2, "" if value is not None else " undefined", f"{value:.3f}" if value is not None else _("undefined"))
         for i, (label, value, ci_low, ci_high) in enumerate(rows)))
    return _svg(title, height, _axis(low, high, height), body)


def _mark(value, ci_low, ci_high, y, low, high, label):
    if value is None:
        return ""
    return format_html('{}<circle cx="{}" cy="{}" r="4" class="dot"><title>{}: {}</title></circle>',
                       _ci(ci_low, ci_high, y, low, high), _x(value, low, high), y, label, f"{value:.3f}")


def _svg(title: str, height: int, axis, body):
    return format_html('<svg class="chart" role="img" aria-label="{}" viewBox="0 0 {} {}" width="{}">{}{}</svg>',
                       title, WIDTH, height, WIDTH, axis, body)


def _ci(ci_low, ci_high, y, low, high):
    if ci_low is None or ci_high is None:
        return ""
    return format_html('<line x1="{}" y1="{}" x2="{}" y2="{}" class="ci"/>',
                       _x(ci_low, low, high), y, _x(ci_high, low, high), y)


@register.simple_tag
def bar_chart(rows, title: str, low: float = 0.0, high: float = 1.0):
    """rows: (label, value) as horizontal bars from 0, the value in its own column to the right of every bar."""
    rows = list(rows)
    height = ROW * len(rows) + 20
    body = format_html_join("", (
        '<text x="0" y="{0}" class="label"><title>{1}</title>{2}</text>{3}'
        '<text x="{4}" y="{0}" class="value{5}" text-anchor="end">{6}</text>'),
        ((ROW * i + 15, label, _label(label), _bar(value, ROW * i + 5, low, high, label), WIDTH - 2,
          "" if value is not None else " undefined", f"{value:.3f}" if value is not None else _("undefined"))
         for i, (label, value) in enumerate(rows)))
    return _svg(title, height, _axis(low, high, height), body)


def _bar(value, y, low, high, label):
    if value is None:
        return ""
    start, end = sorted((float(_x(0.0, low, high)), float(_x(value, low, high))))
    return format_html('<rect x="{}" y="{}" width="{}" height="12" class="bar"><title>{}: {}</title></rect>',
                       _n(start), y, _n(end - start), label, f"{value:.3f}")


@register.simple_tag
def trend_chart(points, title: str):
    """points: (label, value) in time order, as a line; the y axis runs from 0 to 1."""
    points = [(label, v) for label, v in points if v is not None]
    if len(points) < 2:
        return format_html('<p class="muted">{}</p>', _("One snapshot so far; the line appears with the next."))
    w, h, pad = WIDTH, 120, 30
    xs = [pad + (w - 2 * pad) * i / (len(points) - 1) for i in range(len(points))]
    ys = [h - pad - (h - 2 * pad) * min(max(v, 0.0), 1.0) for _, v in points]
    line = " ".join(f"{x:.1f},{y:.1f}" for x, y in zip(xs, ys, strict=True))
    dots = format_html_join("", '<circle cx="{}" cy="{}" r="3" class="dot"><title>{}: {}</title></circle>',
                            ((_n(x), _n(y), label, f"{v:.3f}")
                             for x, y, (label, v) in zip(xs, ys, points, strict=True)))
    return format_html('<svg class="chart" role="img" aria-label="{}" viewBox="0 0 {} {}" width="{}">'
                       '<polyline points="{}" class="line"/>{}'
                       '<text x="0" y="{}" class="tick">0</text><text x="0" y="{}" class="tick">1</text></svg>',
                       title, w, h, w, line, dots, h - pad + 4, pad + 4)


@register.filter
def coincidence_rows(coincidences: dict) -> list[tuple[str, list[float]]]:
    """A kept coincidence matrix's rows, each with its category: {% for name, row in c|coincidence_rows %}."""
    return list(zip(coincidences["categories"], coincidences["matrix"], strict=True))
