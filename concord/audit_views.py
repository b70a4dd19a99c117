"""The audit log for the admins: a page, newest first, and the whole log as CSV."""
from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.shortcuts import render
from django.views.decorators.http import require_GET

from .csv_stream import csv_lines, csv_response
from .models import AuditEntry

COLUMNS = ["id", "at", "actor", "action", "study_id", "detail", "prev_hash", "hash"]


def _admin_only(request) -> None:
    if not request.user.is_staff:
        raise PermissionDenied("Only an admin reads the audit log.")


@login_required
@require_GET
def audit_log(request):
    _admin_only(request)
    entries = AuditEntry.objects.order_by("-pk")
    action = request.GET.get("action", "")[:64].replace("\x00", "")
    if action:
        entries = entries.filter(action=action)
    page = Paginator(entries, 100).get_page(request.GET.get("page"))
    actions = AuditEntry.objects.order_by("action").values_list("action", flat=True).distinct()
    return render(request, "audit_log.html", {"page": page, "action": action, "actions": actions})


@login_required
@require_GET
def audit_csv(request):
    _admin_only(request)
    rows = ([e.pk, e.at.isoformat(), e.actor, e.action, e.study_id, e.detail, e.prev_hash, e.hash]
            for e in AuditEntry.objects.order_by("pk").iterator(chunk_size=2000))
    return csv_response(csv_lines(COLUMNS, rows), "concord-audit-log.csv")
