from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.db.models import Q
from simple_history.admin import SimpleHistoryAdmin

from .models import Comment, Invitation, Label, Membership, Queue, Round, Study
from .permissions import labels_blind


def blind_studies(user) -> list[int]:
    """The studies in which this staff member labels blind right now: the admin hides the others' rows there too."""
    return [m.study_id for m in Membership.objects.filter(user=user).select_related("study")
            if labels_blind(user, m.study)]


class BlindRule:
    """Rows of other raters (labels, their history, queues with their progress) of a study in which the staff
    member labels blind are left out of the admin, as they are of every page."""

    study_path = "study"

    def get_queryset(self, request):
        rows = super().get_queryset(request)
        blind = blind_studies(request.user)
        if not blind:
            return rows
        return rows.exclude(Q(**{f"{self.study_path}__in": blind}) & ~Q(annotator=request.user))


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 1
    autocomplete_fields = ["user"]


class RoundInline(admin.TabularInline):
    model = Round
    extra = 0
    fields = ["number", "kind", "closed_at"]


@admin.register(Study)
class StudyAdmin(admin.ModelAdmin):
    list_display = ["name", "codebook", "created_at"]
    inlines = [MembershipInline, RoundInline]
    autocomplete_fields = ["issues"]


@admin.register(Round)
class RoundAdmin(admin.ModelAdmin):
    list_display = ["study", "number", "kind", "opened_at", "closed_at"]
    list_filter = ["kind", "study"]


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ["user", "study", "role"]
    list_filter = ["study", "role"]


@admin.register(Label)
class LabelAdmin(BlindRule, SimpleHistoryAdmin):
    list_display = ["issue", "annotator", "round", "type", "theme", "sub_theme", "updated_at"]
    list_filter = ["study", "round__kind"]
    list_select_related = ["issue__source", "annotator", "round__study", "type", "theme", "sub_theme"]
    # Labels change only through the labeling screens, which enforce the rules; here they are read-only.
    readonly_fields = [f.name for f in Label._meta.fields]

    def has_add_permission(self, request):
        return False

    def history_view(self, request, object_id, extra_context=None):
        # The history page reads the versions directly: it is opened only for a label the list would show.
        if not self.get_queryset(request).filter(pk=object_id).exists():
            raise PermissionDenied
        return super().history_view(request, object_id, extra_context)


@admin.register(Invitation)
class InvitationAdmin(admin.ModelAdmin):
    list_display = ["study", "role", "note", "created_by", "created_at", "expires_at", "accepted_by", "revoked_at"]
    list_filter = ["study", "role"]
    # Links are made on the study's members page, which shows the token once; only its hash is stored.
    readonly_fields = ["token_hash", "accepted_at", "accepted_by", "created_by"]

    def has_add_permission(self, request):
        return False


@admin.register(Queue)
class QueueAdmin(BlindRule, admin.ModelAdmin):
    study_path = "round__study"
    list_display = ["round", "annotator", "done", "total"]
    list_filter = ["round__study"]
    readonly_fields = ["round", "annotator", "done", "total"]


@admin.register(Comment)
class CommentAdmin(admin.ModelAdmin):
    list_display = ["study", "issue", "author", "created_at"]
    list_filter = ["study"]
    readonly_fields = ["study", "round", "issue", "author", "body", "created_at"]
