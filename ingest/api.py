"""The API of screening: a sample's figures, for admins, as the sample's page shows them."""
from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.permissions import IsAdminUser
from rest_framework.response import Response
from rest_framework.views import APIView

from .models import ScreeningSample
from .selectors import sample_document


class SampleFiguresAPI(APIView):
    """A screening sample's rate with Wilson's interval, its confidence sequence, and for a keyword the rule,
    the threshold and where the sequence stopped. Admins only: screeners judge blind to the figures."""

    permission_classes = [IsAdminUser]

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request, sample_id: int):
        sample = get_object_or_404(ScreeningSample.objects.select_related("keyword", "source"), pk=sample_id)
        return Response(sample_document(sample))
