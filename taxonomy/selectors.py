from __future__ import annotations

from .models import Category, Taxonomy


def types_of(taxonomy: Taxonomy):
    return Category.objects.filter(taxonomy=taxonomy, level=Category.Level.TYPE, retired_at__isnull=True).order_by(
        "position")


def children_of(category: Category | None):
    if category is None:
        return Category.objects.none()
    return category.children.order_by("position")


def codebook_tree(taxonomy: Taxonomy) -> list[Category]:
    """Types with `.kids` (themes) and themes with `.kids` (sub-themes), from one query."""
    nodes = list(Category.objects.filter(taxonomy=taxonomy, retired_at__isnull=True).order_by("position", "code"))
    by_id = {n.pk: n for n in nodes}
    for node in nodes:
        node.kids = []
    for node in nodes:
        if node.parent_id:
            by_id[node.parent_id].kids.append(node)
    return [n for n in nodes if n.level == Category.Level.TYPE]
