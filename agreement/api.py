from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.access import get_study_for
from annotation.permissions import can_view_agreement
from annotation.selectors.studies import agreement_round

from .reports import LEVELS, agreement_figures, study_agreement


class StudyAgreementAPI(APIView):
    """Every agreement figure of the round (lead and admins; members once the independent round closed)."""

    @extend_schema(responses=OpenApiTypes.OBJECT, parameters=[
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
        return Response(agreement_figures(study_agreement(round, level)))
