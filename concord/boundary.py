"""Middleware: a form value PostgreSQL cannot store is refused at the door, naming the field.

Django's form fields refuse NUL characters, but several actions read request.POST directly; PostgreSQL refuses
NUL in text, and such a value reached it as a 500. No form Concord shows can produce one, so a POST carrying
one is answered 400 before any view runs, and nothing changes. (Query strings are read by views that cope.)
"""
from __future__ import annotations

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
