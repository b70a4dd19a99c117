"""Small inline SVG charts for the agreement dashboard: no script, readable without colour, with text
alternatives. Every value is escaped by format_html."""
from __future__ import annotations

from django import template
from django.utils.html import format_html, format_html_join

register = template.Library()

WIDTH, ROW, LABEL = 420, 22, 130


def _n(value: float) -> str:
    # format_html escapes its arguments into text first, so numbers are formatted here.
    return f"{value:.1f}"


def _x(value: float, low: float, high: float) -> str:
    span = WIDTH - LABEL - 50
    return _n(LABEL + span * (min(max(value, low), high) - low) / (high - low))


def _axis(low: float, high: float, height: int):
    ticks = [low + (high - low) * i / 4 for i in range(5)]
    return format_html_join("", '<line x1="{0}" y1="0" x2="{0}" y2="{1}" class="grid"/>'
                                '<text x="{0}" y="{2}" class="tick">{3}</text>',
                            ((_x(t, low, high), height - 14, height - 2, f"{t:.2f}") for t in ticks))


@register.simple_tag
def interval_chart(rows, title: str, low: float = 0.0, high: float = 1.0):
    """rows: (label, value, ci_low, ci_high) — a dot for the value and a line for its interval."""
    rows = list(rows)
    height = ROW * len(rows) + 20
    body = format_html_join("", (
        '<text x="0" y="{0}" class="label">{1}</text>'
        '{2}'
        '<circle cx="{3}" cy="{4}" r="4" class="dot"><title>{1}: {5}</title></circle>'
        '<text x="{6}" y="{0}" class="value">{5}</text>'),
        ((ROW * i + 15, label, _ci(ci_low, ci_high, ROW * i + 11, low, high),
          _x(value, low, high) if value is not None else LABEL, ROW * i + 11,
          f"{value:.3f}" if value is not None else "undefined", WIDTH - 45)
         for i, (label, value, ci_low, ci_high) in enumerate(rows)))
    return _svg(title, height, _axis(low, high, height), body)


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
    """rows: (label, value) as horizontal bars."""
    rows = list(rows)
    height = ROW * len(rows) + 20
    body = format_html_join("", (
        '<text x="0" y="{0}" class="label">{1}</text>'
        '<rect x="{2}" y="{3}" width="{4}" height="12" class="bar"><title>{1}: {5}</title></rect>'
        '<text x="{6}" y="{0}" class="value">{5}</text>'),
        ((ROW * i + 15, label, _x(min(0.0, value or 0.0), low, high), ROW * i + 5,
          _n(abs(float(_x(value or 0.0, low, high)) - float(_x(0.0, low, high)))) if value is not None else "0",
          f"{value:.3f}" if value is not None else "undefined", WIDTH - 45)
         for i, (label, value) in enumerate(rows)))
    return _svg(title, height, _axis(low, high, height), body)


@register.simple_tag
def trend_chart(points, title: str):
    """points: (label, value) in time order, as a line; the y axis runs from 0 to 1."""
    points = [(label, v) for label, v in points if v is not None]
    if len(points) < 2:
        return format_html('<p class="muted">{}</p>', "One snapshot so far; the line appears with the next.")
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
