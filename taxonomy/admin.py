from django.contrib import admin

from .models import Category, Codebook


class CategoryInline(admin.TabularInline):
    model = Category
    fields = ["code", "name", "level", "parent", "position"]
    extra = 0
    show_change_link = True


@admin.register(Codebook)
class TaxonomyAdmin(admin.ModelAdmin):
    list_display = ["name", "version", "created_at"]


@admin.register(Category)
class CategoryAdmin(admin.ModelAdmin):
    list_display = ["code", "name", "level", "codebook"]
    list_filter = ["codebook", "level"]
    search_fields = ["code", "name"]
