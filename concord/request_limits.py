"""Middleware: a form value PostgreSQL cannot store is refused at the door, naming the field.

Django's form fields refuse NUL characters, but several actions read request.POST directly; PostgreSQL refuses
NUL in text, and such a value reached it as a 500. No form Concord shows can produce one, so a POST carrying
one is answered 400 before any view runs, and nothing changes. (Query strings are read by views that cope.)
"""
from __future__ import annotations

from django.conf import settings
from django.shortcuts import render

from .textcheck import shown_text, text_problem


class RefuseUnstorableInput:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.method == "POST" and request.content_type in {"application/x-www-form-urlencoded",
                                                                  "multipart/form-data"}:
            for name, values in request.POST.lists():
                for value in [name, *values]:
                    if problem := text_problem(value):
                        field = shown_text(name.replace("\x00", "\ufffd"), 60)
                        return render(request, "400.html", {"message": f"Field {field!r}: {problem}. "
                                                                       "Nothing was changed."}, status=400)
        return self.get_response(request)


class RefuseOversizedBodies:
    """A request body larger than UPLOAD_MAX_MB is answered 413 before anything reads it: the CSRF check would
    otherwise parse, and store, a whole upload only for a view to refuse it afterwards."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        limit = settings.UPLOAD_MAX_MB * 1024 * 1024
        if length > limit:
            message = (f"The request is {length / 2**20:,.0f} MB; this server accepts at most "
                       f"{settings.UPLOAD_MAX_MB:,} MB at a time (UPLOAD_MAX_MB). Nothing was read or changed. "
                       "A larger file of issues can be imported on the server with manage.py import_issues.")
            return render(request, "400.html", {"message": message}, status=413)
        return self.get_response(request)
