"""Has the codebook stopped growing? For the lead and admins (it counts everyone's labeling)."""
from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.db.models import Min
from django.shortcuts import render
from django.views.decorators.http import require_GET

from annotation.access import get_study_for
from annotation.models import Label
from annotation.permissions import can_manage_seeing_labels
from concord.http import HtmxHttpRequest
from taxonomy.models import Category

from ..models import ChangeLogEntry
from ..saturation import Change, saturation

# What a change brings in: an addition its category, a split its parts; a merge recombines what was known.
NEW = {ChangeLogEntry.Kind.ADD, ChangeLogEntry.Kind.SPLIT}
CREATES = NEW | {ChangeLogEntry.Kind.MERGE}


def study_saturation(study):
    entries = list(study.codebook.changes.exclude(kind=ChangeLogEntry.Kind.INSTRUCTIONS).order_by("revision"))
    created = sum(len(e.after) for e in entries if e.kind in CREATES)
    at_start = Category.objects.filter(codebook=study.codebook_id).exclude(level=Category.Level.TYPE).count() - created
    firsts = sorted(Label.objects.filter(study=study).values("issue_id").annotate(first=Min("created_at"))
                    .values_list("first", flat=True))
    changes = [Change(e.made_at, e.kind, len(e.after) if e.kind in NEW else 0) for e in entries]
    return saturation(firsts, changes, max(at_start, 0))


@login_required
@require_GET
def saturation_page(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id, can_manage_seeing_labels)
    result = study_saturation(study)
    peak = max((b["new_categories"] for b in result.bins), default=0) or 1
    return render(request, "codebook/saturation.html", {"study": study, "result": result, "peak": peak})
