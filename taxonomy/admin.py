from django.contrib import admin

from .models import Category, Taxonomy


class CategoryInline(admin.TabularInline):
    model = Category
    fields = ["code", "name", "level", "parent", "position"]
    extra = 0
    show_change_link = True


@admin.register(Taxonomy)
class TaxonomyAdmin(admin.ModelAdmin):
    list_display = ["name", "version", "created_at"]


@admin.register(Category)
class CategoryAdmin(admin.ModelAdmin):
    list_display = ["code", "name", "level", "taxonomy"]
    list_filter = ["taxonomy", "level"]
    search_fields = ["code", "name"]
