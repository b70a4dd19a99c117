from django.contrib import admin
from simple_history.admin import SimpleHistoryAdmin

from .models import Comment, Invitation, Label, Membership, Queue, Round, Study


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
    list_display = ["name", "taxonomy", "created_at"]
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
class LabelAdmin(SimpleHistoryAdmin):
    list_display = ["issue", "annotator", "round", "type", "theme", "sub_theme", "updated_at"]
    list_filter = ["study", "round__kind"]
    list_select_related = ["issue__source", "annotator", "round__study", "type", "theme", "sub_theme"]
    # Labels change only through the labeling screens, which enforce the rules; here they are read-only.
    readonly_fields = [f.name for f in Label._meta.fields]

    def has_add_permission(self, request):
        return False


@admin.register(Invitation)
class InvitationAdmin(admin.ModelAdmin):
    list_display = ["study", "role", "note", "created_by", "created_at", "expires_at", "accepted_by", "revoked_at"]
    list_filter = ["study", "role"]
    # Links are made on the study's members page, which shows the token once; only its hash is stored.
    readonly_fields = ["token_hash", "accepted_at", "accepted_by", "created_by"]

    def has_add_permission(self, request):
        return False


@admin.register(Queue)
class QueueAdmin(admin.ModelAdmin):
    list_display = ["round", "annotator", "done", "total"]
    list_filter = ["round__study"]
    readonly_fields = ["round", "annotator", "done", "total"]


@admin.register(Comment)
class CommentAdmin(admin.ModelAdmin):
    list_display = ["study", "issue", "author", "created_at"]
    list_filter = ["study"]
    readonly_fields = ["study", "round", "issue", "author", "body", "created_at"]
