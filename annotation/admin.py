from django.contrib import admin
from simple_history.admin import SimpleHistoryAdmin

from .models import Label, Membership, Round, Study


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
