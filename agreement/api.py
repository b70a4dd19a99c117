from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.access import get_study_for
from annotation.permissions import can_view_agreement
from annotation.selectors import agreement_round

from .reports import agreement_figures, study_agreement


class StudyAgreementAPI(APIView):
    """Fleiss' kappa for the type and per type at theme level (lead and admins only)."""

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request, study_id: int):
        study = get_study_for(request, study_id, can_view_agreement)
        round = agreement_round(study)
        if round is None:
            return Response({"round": None})
        return Response(agreement_figures(study_agreement(round)))
