"""A person's notices: the inbox page, marking what it showed as read, and which kinds reach them."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from concord.ids import parse_id

from .. import notices
from ..models import Notice

SHOWN = 100


@login_required
@require_GET
def inbox(request):
    rows = list(Notice.objects.filter(user=request.user)[:SHOWN])
    for notice in rows:
        notice.text = notices.text(notice)
    off = notices.switched_off(request.user)
    kinds = [(kind, label, kind not in off) for kind, (label, _sentence) in notices.KINDS.items()]
    return render(request, "accounts/notices.html", {"rows": rows, "kinds": kinds,
                                            "email_digest": notices.digests_on(request.user),
                                            "has_email": bool(request.user.email),
                                            "newest": max((n.pk for n in rows), default=0),
                                            "unread": sum(1 for n in rows if n.read_at is None)})


@login_required
@require_POST
def mark_read(request):
    # The newest notice the page showed: one that arrived since stays unread, and a second click changes nothing.
    newest = parse_id(request.POST.get("newest", ""))
    if newest is None:
        return HttpResponseBadRequest(_("newest: the id of the newest notice shown, a whole number."))
    notices.read_up_to(request.user, newest)
    return redirect("notices")


@login_required
@require_POST
def choose_kinds(request):
    chosen = request.POST.getlist("on")
    unknown = [k for k in chosen if k not in notices.KINDS]
    if unknown or len(chosen) > len(notices.KINDS):
        return HttpResponseBadRequest(_("on: choose among %(kinds)s.") % {"kinds": ", ".join(notices.KINDS)})
    notices.switch(request.user, set(notices.KINDS) - set(chosen), email_digest=request.POST.get("email") == "on")
    messages.success(request, _("Your notices are set."))
    return redirect("notices")
