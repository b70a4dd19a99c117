"""Access helpers for views: load a study for this request or refuse, in one place."""
from __future__ import annotations

from collections.abc import Callable

from django.core.exceptions import PermissionDenied
from django.db.models import OuterRef, Subquery
from django.http import Http404

from .models import Membership, Study
from .permissions import can_view_study


def get_study_for(request, study_id: int, allowed: Callable[..., bool] | None = None) -> Study:
    """404 for a study the user cannot see at all; 403 when `allowed(user, study)` says no.

    The user's role comes with the study in the same query, so the permission checks that follow cost none.
    """
    user = request.user
    studies = Study.objects.select_related("taxonomy", "current_round").filter(pk=study_id)
    if user.is_authenticated:
        role = Membership.objects.filter(study=OuterRef("pk"), user=user).values("role")[:1]
        studies = studies.annotate(_role=Subquery(role))
    study = studies.first()
    if study is not None and user.is_authenticated:
        study._role_of = (user.pk, study._role)
    if study is None or not can_view_study(user, study):
        raise Http404("No such study.")
    if allowed is not None and not allowed(user, study):
        raise PermissionDenied
    return study
