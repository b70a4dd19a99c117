from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.access import get_study_for
from annotation.permissions import can_view_agreement
from annotation.selectors.studies import agreement_round

from .reports import LEVELS
from .selectors import latest
from .services import is_current, request_snapshot


class StudyAgreementAPI(APIView):
    """Every agreement figure of the round (lead and admins; members once the independent round closed), from the
    labels as they are now. Computed by a worker, as for the dashboard, and kept: 202 with `computing` (and
    Retry-After) while it runs, then 200 with the figures and the snapshot they come from."""

    @extend_schema(responses={200: OpenApiTypes.OBJECT, 202: OpenApiTypes.OBJECT}, parameters=[
        OpenApiParameter("level", str, enum=list(LEVELS), description="per-type figures at theme (default) or "
                                                                      "sub-theme level")])
    def get(self, request, study_id: int):
        study = get_study_for(request, study_id, can_view_agreement)
        round = agreement_round(study)
        if round is None:
            return Response({"round": None})
        level = request.GET.get("level", "theme")
        if level not in LEVELS:
            return Response({"level": [f"one of {', '.join(LEVELS)}"]}, status=400)
        found = latest(request.user, study, level)
        if not is_current(found, round):
            request_snapshot(round, level, by=request.user)  # once, however many ask while it runs
            found = latest(request.user, study, level)
            if not is_current(found, round):
                return Response({"computing": True, "round": round.number, "level": level}, status=202,
                                headers={"Retry-After": "2"})
        return Response({**found.figures, "snapshot": {
            "id": found.pk, "computed_at": found.computed_at, "as_of": found.as_of, "labels": found.labels}})
