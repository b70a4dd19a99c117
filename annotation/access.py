"""Access helpers for views: load a study for this request or refuse, in one place."""
from __future__ import annotations

from collections.abc import Callable

from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.utils.translation import gettext as _

from concord import rows
from concord.textcheck import INT64_MAX
from taxonomy.models import Codebook

from . import sql
from .models import Round, Study
from .permissions import can_view_study, is_lead, labels_blind
from .signin import through_provider


def load_study(study_id: int, user_id: int | None) -> Study | None:
    """The study with its codebook and current round, and the user's role in it (None: not a member)."""
    if not 0 < study_id <= INT64_MAX:  # the URL's <int:…> takes any length; no id is past bigint
        return None
    row = rows.fetch_one(sql.study_with_role(), [user_id, study_id])
    if row is None:
        return None
    study = rows.instance(Study, row)
    at = rows.width(Study)
    study.codebook = rows.instance(Codebook, row, at)
    study.current_round = rows.instance(Round, row, at + rows.width(Codebook))
    if user_id is not None:
        study._role_of = (user_id, row[-1])
    return study


def get_study_for(request, study_id: int, allowed: Callable[..., bool] | None = None) -> Study:
    """404 for a study the user cannot see at all; 403 when `allowed(user, study)` says no.

    The user's role comes with the study in the same query, so the permission checks that follow cost none.
    """
    user = request.user
    study = load_study(study_id, user.pk if user.is_authenticated else None)
    if study is None or not can_view_study(user, study):
        raise Http404("No such study.")
    if study.sso_required and not user.is_staff and not through_provider(request):
        raise PermissionDenied(_("This study asks its members to sign in through their institution, GitHub or "
                                 "Gitee account: sign out, then sign in that way."))
    if allowed is not None and not allowed(user, study):
        if is_lead(user, study) and labels_blind(user, study):
            # The lead is refused only for as long as they label blind: say how that ends.
            raise PermissionDenied(
                "You are labeling this study blind, so you see what an annotator sees. Finish your queue of this "
                "round, or stop labeling from the study's page, and this page opens.")
        raise PermissionDenied
    return study
