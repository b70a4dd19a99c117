from django.contrib import admin

from .models import IngestRun, Issue, Keyword, KeywordList, Source


@admin.register(Source)
class SourceAdmin(admin.ModelAdmin):
    list_display = ["full_name", "display_name", "platform", "kind", "keyword_list", "created_from", "created_to"]
    list_filter = ["platform", "kind"]
    search_fields = ["full_name", "display_name"]


class KeywordInline(admin.TabularInline):
    model = Keyword
    # A new keyword enters as a candidate: it filters nothing until its screening sample is accepted.
    fields = ["term", "origin", "status"]
    extra = 3


@admin.register(KeywordList)
class KeywordListAdmin(admin.ModelAdmin):
    list_display = ["name", "created_at"]
    search_fields = ["name", "keywords__term"]
    inlines = [KeywordInline]


@admin.register(Issue)
class IssueAdmin(admin.ModelAdmin):
    list_display = ["__str__", "title", "state", "kept", "created_at", "comment_count"]
    list_filter = ["source", "state", "kept"]
    search_fields = ["title", "number"]
    list_select_related = ["source"]
    # Reports mirror their platform; an edit here would silently diverge from the source, so re-import instead.
    readonly_fields = [*(f.name for f in Issue._meta.fields), "matched_keywords"]

    def has_add_permission(self, request):
        return False


@admin.register(IngestRun)
class IngestRunAdmin(admin.ModelAdmin):
    list_display = ["pk", "source", "kind", "status", "fetched", "created", "updated", "filtered_out", "errors",
                    "created_at"]
    list_filter = ["status", "kind", "source"]
    readonly_fields = [f.name for f in IngestRun._meta.fields]

    def has_add_permission(self, request):
        return False
