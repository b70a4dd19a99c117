"""Access helpers for views: load a study for this request or refuse, in one place."""
from __future__ import annotations

from collections.abc import Callable

from django.core.exceptions import PermissionDenied
from django.http import Http404

from .models import Study
from .permissions import can_view_study


def get_study_for(request, study_id: int, allowed: Callable[..., bool] | None = None) -> Study:
    """404 for a study the user cannot see at all; 403 when `allowed(user, study)` says no."""
    study = Study.objects.select_related("taxonomy").filter(pk=study_id).first()
    if study is None or not can_view_study(request.user, study):
        raise Http404("No such study.")
    if allowed is not None and not allowed(request.user, study):
        raise PermissionDenied
    return study
