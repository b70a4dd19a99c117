from __future__ import annotations

from .models import Category, Taxonomy


def types_of(taxonomy: Taxonomy):
    return Category.objects.filter(taxonomy=taxonomy, level=Category.Level.TYPE).order_by("position")


def children_of(category: Category | None):
    if category is None:
        return Category.objects.none()
    return category.children.order_by("position")
