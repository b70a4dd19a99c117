from django.contrib import admin

from .models import Issue, Source


@admin.register(Source)
class SourceAdmin(admin.ModelAdmin):
    list_display = ["full_name", "display_name", "platform", "kind", "created_at"]
    list_filter = ["platform", "kind"]
    search_fields = ["full_name", "display_name"]


@admin.register(Issue)
class IssueAdmin(admin.ModelAdmin):
    list_display = ["__str__", "title", "state", "created_at", "comment_count"]
    list_filter = ["source", "state"]
    search_fields = ["title", "number"]
    list_select_related = ["source"]
    # Reports mirror their platform; an edit here would silently diverge from the source, so re-import instead.
    readonly_fields = [f.name for f in Issue._meta.fields]

    def has_add_permission(self, request):
        return False
