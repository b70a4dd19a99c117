from __future__ import annotations

from django import template

from concord import workers

register = template.Library()


@register.inclusion_tag("_no_worker.html")
def no_worker(queue: str | None = None) -> dict:
    """{% no_worker "statistics" %}: where a page waits on background work, says plainly when no worker has been
    seen for a minute, and how to start one, instead of waiting for ever."""
    return {"missing": workers.missing(queue), "command": workers.start_command()}
