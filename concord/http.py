from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django_htmx.http import HttpResponseStopPolling
from django_htmx.middleware import HtmxDetails


class HtmxHttpRequest(HttpRequest):
    """An HttpRequest as HtmxMiddleware leaves it, for type hints in views."""

    htmx: HtmxDetails


def job_progress(request: HtmxHttpRequest, template: str, job, **context) -> HttpResponse:
    """A background job's progress fragment (one that extends _job.html); once the job has finished, htmx is
    told (status 286) to stop polling it."""
    response = render(request, template, {"job": job, **context})
    if request.htmx and job.is_finished:
        stop = HttpResponseStopPolling()
        stop.content = response.content
        return stop
    return response
