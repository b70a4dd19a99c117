"""REST API: studies, reports, queues, labels, label history and review comments. Every endpoint goes
through the same access helpers, services and blindness rule as the pages."""
from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import Http404
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import generics, serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from concord.ids import parse_id
from concord.textcheck import INT64_MAX
from ingest.models import Issue
from ingest.services.summaries import summary_for_display

from .access import get_study_for
from .models import Comment, Label, Round, Study
from .permissions import can_label, can_manage, can_view_all_labels, can_view_history, role_in
from .selectors.history import label_changes
from .selectors.labels import visible_labels
from .selectors.queue import issues_in, next_assignment, progress_for
from .selectors.studies import current_round, studies_for
from .services.labels import LabelError, LabelInput, submit_label
from .services.queues import skip
from .services.review import COMMENT_MAX_CHARS, post_comment


def _open_round(study: Study) -> Round:
    round = current_round(study)
    if round is None or not round.is_open:
        raise Http404("This study has no open round.")
    return round


class ProgressSerializer(serializers.Serializer):
    done = serializers.IntegerField()
    total = serializers.IntegerField()
    round_done = serializers.IntegerField()
    round_total = serializers.IntegerField()


class StudySerializer(serializers.ModelSerializer):
    role = serializers.SerializerMethodField()
    issue_count = serializers.IntegerField(read_only=True)
    codebook = serializers.StringRelatedField()

    class Meta:
        model = Study
        fields = ["id", "name", "description", "codebook", "issue_count", "role", "phase", "overlap",
                  "pilot_fraction", "seed"]

    def get_role(self, study) -> str | None:
        return role_in(self.context["request"].user, study)


class StudyDetailSerializer(StudySerializer):
    round = serializers.SerializerMethodField()
    progress = serializers.SerializerMethodField()

    class Meta(StudySerializer.Meta):
        fields = [*StudySerializer.Meta.fields, "round", "progress"]

    def get_round(self, study) -> dict | None:
        round = current_round(study)
        return {"number": round.number, "kind": round.kind, "open": round.is_open} if round else None

    @extend_schema(responses=ProgressSerializer)
    def get_progress(self, study) -> dict | None:
        """Counts only: the user's own queue and the whole round's."""
        round = current_round(study)
        return vars(progress_for(self.context["request"].user, round)) if round else None


class StudyListAPI(generics.ListAPIView):
    serializer_class = StudySerializer

    def get_queryset(self):
        return studies_for(self.request.user)


class StudyDetailAPI(generics.RetrieveAPIView):
    serializer_class = StudyDetailSerializer

    def get_object(self):
        study = get_study_for(self.request, self.kwargs["study_id"])
        study.issue_count = study.issues.count()
        return study


class ReportSerializer(serializers.ModelSerializer):
    source = serializers.CharField(source="source.full_name")

    class Meta:
        model = Issue
        fields = ["id", "source", "number", "url", "title", "state", "created_at", "platform_labels",
                  "comment_count"]


class ReportDetailSerializer(ReportSerializer):
    summary = serializers.SerializerMethodField()

    class Meta(ReportSerializer.Meta):
        fields = [*ReportSerializer.Meta.fields, "summary", "body", "comments"]

    def get_summary(self, issue) -> str:
        return summary_for_display(issue)


_WHEN = serializers.DateTimeField()


def _when(value) -> str | None:
    return _WHEN.to_representation(value) if value is not None else None


# The labeling round trip's two answers, built directly: a ModelSerializer builds its fields anew for every
# object it serializes, which cost more than the rest of the answer. The serializers stay the schema, and
# tests/annotation/test_queue_api.py keeps these equal to them.
def report_detail_data(issue: Issue) -> dict:
    """ReportDetailSerializer(issue).data"""
    return {"id": issue.pk, "source": issue.source.full_name, "number": issue.number, "url": issue.url,
            "title": issue.title, "state": issue.state, "created_at": _when(issue.created_at),
            "platform_labels": issue.platform_labels, "comment_count": issue.comment_count,
            "summary": summary_for_display(issue), "body": issue.body, "comments": issue.comments}


def label_saved_data(label: Label) -> dict:
    """LabelSavedSerializer(label).data"""
    codes = {f"{level}_code": getattr(label, level).code if getattr(label, f"{level}_id") else None
             for level in ("type", "theme", "sub_theme")}
    return {"id": label.pk, "round": label.round.number, "issue": label.issue_id,
            "annotator": label.annotator.username, "is_relevant": label.is_relevant, "type": label.type_id,
            "theme": label.theme_id, "sub_theme": label.sub_theme_id, **codes, "note": label.note,
            "created_at": _when(label.created_at), "updated_at": _when(label.updated_at)}


class ReportListAPI(generics.ListAPIView):
    """The study's reports; `q` searches titles and numbers, `mine=done|todo|skipped` filters by your queue."""

    serializer_class = ReportSerializer

    def get_queryset(self):
        study = get_study_for(self.request, self.kwargs["study_id"])
        return issues_in(study, current_round(study), self.request.user, query=self.request.GET.get("q", ""),
                         mine=self.request.GET.get("mine", ""), only_queue=not can_manage(self.request.user, study))


class ReportDetailAPI(generics.RetrieveAPIView):
    serializer_class = ReportDetailSerializer

    def get_object(self):
        study = get_study_for(self.request, self.kwargs["study_id"])
        issue = study.issues.select_related("source").filter(pk=self.kwargs["issue_id"]).first()
        if issue is None:
            raise Http404("No such report in this study.")
        return issue


class QueueNextAPI(APIView):
    """Your next report in the open round (skipped ones last), with your and the round's progress."""

    @extend_schema(responses=inline_serializer("QueueNext", {
        "round": serializers.IntegerField(), "position": serializers.IntegerField(allow_null=True),
        "skipped": serializers.BooleanField(), "report": ReportDetailSerializer(allow_null=True),
        "progress": ProgressSerializer(),
    }))
    def get(self, request, study_id: int):
        study = get_study_for(request, study_id, can_label)
        round = _open_round(study)
        assignment = next_assignment(request.user, round)
        return Response({
            "round": round.number,
            "position": assignment.position if assignment else None,
            "skipped": assignment.skipped if assignment else False,
            "report": report_detail_data(assignment.issue) if assignment else None,
            "progress": vars(progress_for(request.user, round)),
        })


class SkipSerializer(serializers.Serializer):
    issue = serializers.IntegerField(min_value=1, max_value=INT64_MAX)
    reason = serializers.CharField(max_length=300)


class QueueSkipAPI(APIView):
    """Skip a report of your queue, with a reason; it comes back after all the others."""

    @extend_schema(request=SkipSerializer, responses={204: None})
    def post(self, request, study_id: int):
        study = get_study_for(request, study_id, can_label)
        serializer = SkipSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        if not skip(request.user, _open_round(study), serializer.validated_data["issue"],
                    serializer.validated_data["reason"]):
            raise Http404("This report is not in your queue.")
        return Response(status=status.HTTP_204_NO_CONTENT)


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


class LabelWriteSerializer(serializers.Serializer):
    """Plain ids: the service checks them against the study's codebook and your queue in one go."""

    issue = serializers.IntegerField(min_value=1, max_value=INT64_MAX)
    is_relevant = serializers.BooleanField(default=True)
    type = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=INT64_MAX)
    theme = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=INT64_MAX)
    sub_theme = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=INT64_MAX)
    note = serializers.CharField(required=False, allow_blank=True, max_length=5000, default="")
    version = serializers.CharField(
        required=False, allow_blank=True, max_length=64, trim_whitespace=False,
        help_text="The `updated_at` of your label that you were shown, or \"\" if you had none: a revision made "
                  "against another version is refused (400) unless it changes nothing. Left out: not checked.")


class LabelSavedSerializer(LabelSerializer):
    class Meta(LabelSerializer.Meta):
        fields = [f for f in LabelSerializer.Meta.fields if f not in {"source", "number"}]


class LabelListAPI(generics.ListCreateAPIView):
    """GET: the labels you may see (the lead: all; an annotator: only their own while the study is blind);
    `round` and `issue` filter. POST: label a report of your queue in the open round; posting again
    revises the label, and its history keeps every version."""

    def get_serializer_class(self):
        return LabelWriteSerializer if self.request.method == "POST" else LabelSerializer

    def get_queryset(self):
        study = get_study_for(self.request, self.kwargs["study_id"])
        labels = visible_labels(self.request.user, study)
        for param, field in (("round", "round__number"), ("issue", "issue_id")):
            value = parse_id(self.request.GET.get(param))
            if value is not None:
                labels = labels.filter(**{field: value})
        return labels.order_by("issue_id", "annotator_id", "round__number")

    @extend_schema(request=LabelWriteSerializer, responses={201: LabelSavedSerializer})
    def post(self, request, *args, **kwargs):
        study = get_study_for(request, self.kwargs["study_id"], can_label)
        serializer = LabelWriteSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        round = _open_round(study)
        label_input = LabelInput(is_relevant=data["is_relevant"], type_id=data.get("type"),
                                 theme_id=data.get("theme"), sub_theme_id=data.get("sub_theme"), note=data["note"],
                                 version=data.get("version"))
        try:
            label = submit_label(request.user, round, data["issue"], label_input)
        except LabelError as exc:
            return Response({exc.field: [exc.message]}, status=status.HTTP_400_BAD_REQUEST)
        except PermissionDenied as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_403_FORBIDDEN)
        return Response(label_saved_data(label), status=status.HTTP_201_CREATED)


class ChangeSerializer(serializers.Serializer):
    label_id = serializers.IntegerField()
    round = serializers.IntegerField()
    issue = serializers.CharField()
    issue_id = serializers.IntegerField()
    annotator = serializers.CharField()
    changed_at = serializers.DateTimeField()
    changed_by = serializers.CharField()
    kind = serializers.CharField()
    before = serializers.CharField()
    after = serializers.CharField()
    note_before = serializers.CharField()
    note_after = serializers.CharField()


class LabelHistoryAPI(generics.ListAPIView):
    """Every stored version of every label, newest first, with the version before it (lead and admins)."""

    serializer_class = ChangeSerializer

    def get_queryset(self):
        study = get_study_for(self.request, self.kwargs["study_id"], can_view_history)
        issue = self.request.GET.get("issue", "")
        return label_changes(self.request.user, study, parse_id(issue))


class CommentSerializer(serializers.ModelSerializer):
    author = serializers.CharField(source="author.username", read_only=True)
    round = serializers.IntegerField(source="round.number", read_only=True)

    class Meta:
        model = Comment
        fields = ["id", "round", "author", "body", "created_at"]
        read_only_fields = ["id", "created_at"]
        extra_kwargs = {"body": {"max_length": COMMENT_MAX_CHARS}}


class CommentListAPI(generics.ListCreateAPIView):
    """A report's review thread. Closed to annotators while the study is blind."""

    serializer_class = CommentSerializer

    def get_study(self) -> Study:
        return get_study_for(self.request, self.kwargs["study_id"], can_view_all_labels)

    def get_queryset(self):
        study = self.get_study()
        return Comment.objects.filter(study=study, issue_id=self.kwargs["issue_id"]).select_related("author",
                                                                                                   "round")

    def create(self, request, *args, **kwargs):
        study = self.get_study()
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        round = study.rounds.filter(kind=Round.Kind.REVIEW, closed_at__isnull=True).first()
        if round is None:
            return Response({"round": ["Comments are written in an open review round."]},
                            status=status.HTTP_400_BAD_REQUEST)
        try:
            comment = post_comment(request.user, round, self.kwargs["issue_id"], serializer.validated_data["body"])
        except LabelError as exc:
            return Response({exc.field: [exc.message]}, status=status.HTTP_400_BAD_REQUEST)
        return Response(self.get_serializer(comment).data, status=status.HTTP_201_CREATED)
