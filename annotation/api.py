"""REST API for studies and labels: the same access helpers and blindness rule as the HTML views."""
from __future__ import annotations

from django.shortcuts import get_object_or_404
from rest_framework import generics, serializers, status
from rest_framework.response import Response

from .access import get_study_for
from .models import Label, Study
from .permissions import can_label, role_in
from .selectors import current_round, studies_for, visible_labels
from .services.labels import LabelError, LabelInput, submit_label


class StudySerializer(serializers.ModelSerializer):
    role = serializers.SerializerMethodField()
    issue_count = serializers.IntegerField(read_only=True)
    taxonomy = serializers.StringRelatedField()

    class Meta:
        model = Study
        fields = ["id", "name", "description", "taxonomy", "issue_count", "role"]

    def get_role(self, study) -> str | None:
        return role_in(self.context["request"].user, study)


class LabelSerializer(serializers.ModelSerializer):
    annotator = serializers.CharField(source="annotator.username", read_only=True)
    round = serializers.IntegerField(source="round.number", read_only=True)
    source = serializers.CharField(source="issue.source.full_name", read_only=True)
    number = serializers.CharField(source="issue.number", read_only=True)
    type_code = serializers.CharField(source="type.code", read_only=True, default=None)
    theme_code = serializers.CharField(source="theme.code", read_only=True, default=None)
    sub_theme_code = serializers.CharField(source="sub_theme.code", read_only=True, default=None)

    class Meta:
        model = Label
        fields = [
            "id", "round", "issue", "source", "number", "annotator", "is_relevant", "type", "theme",
            "sub_theme", "type_code", "theme_code", "sub_theme_code", "note", "created_at", "updated_at",
        ]
        read_only_fields = ["id", "created_at", "updated_at"]
        # The database constraint is the rule; the service answers a repeat with a revision, not an error.
        validators = []


class StudyListAPI(generics.ListAPIView):
    serializer_class = StudySerializer

    def get_queryset(self):
        return studies_for(self.request.user)


class LabelListAPI(generics.ListCreateAPIView):
    """GET: the labels you may see (the lead: all; an annotator: only their own). POST: label a report."""

    serializer_class = LabelSerializer

    def get_study(self) -> Study:
        return get_study_for(self.request, self.kwargs["study_id"])

    def get_queryset(self):
        return visible_labels(self.request.user, self.get_study()).order_by("issue_id", "annotator_id", "round__number")

    def create(self, request, *args, **kwargs):
        study = get_study_for(request, self.kwargs["study_id"], can_label)
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        issue = get_object_or_404(study.issues, pk=data["issue"].pk)
        round = current_round(study)
        if round is None:
            return Response({"round": ["This study has no round."]}, status=status.HTTP_400_BAD_REQUEST)
        label_input = LabelInput(
            is_relevant=data.get("is_relevant", True),
            type_id=data["type"].pk if data.get("type") else None,
            theme_id=data["theme"].pk if data.get("theme") else None,
            sub_theme_id=data["sub_theme"].pk if data.get("sub_theme") else None,
            note=data.get("note", ""),
        )
        try:
            label = submit_label(request.user, round, issue, label_input)
        except LabelError as exc:
            return Response({exc.field: [exc.message]}, status=status.HTTP_400_BAD_REQUEST)
        return Response(self.get_serializer(label).data, status=status.HTTP_201_CREATED)
