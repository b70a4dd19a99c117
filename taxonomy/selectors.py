from __future__ import annotations

from .codes import keys_for, padded
from .models import Category, Codebook


def types_of(codebook: Codebook):
    return Category.objects.filter(codebook=codebook, level=Category.Level.TYPE, retired_at__isnull=True).order_by(
        "position")


def children_of(category: Category | None):
    if category is None:
        return Category.objects.none()
    return category.children.order_by("position")


def codebook_tree(codebook: Codebook, *, with_retired: bool = False, nodes=None) -> list[Category]:
    """Types with `.kids` (themes) and themes with `.kids` (sub-themes), from one query, each with its keyboard
    number among its siblings (`.key`, from its code, as typed: "01" in a list of ten or more). `nodes` may be a
    queryset of the codebook's categories with extra work attached (prefetches)."""
    nodes = nodes if nodes is not None else Category.objects.filter(codebook=codebook)
    if not with_retired:
        nodes = nodes.filter(retired_at__isnull=True)
    nodes = list(nodes.order_by("position", "code"))
    by_id = {n.pk: n for n in nodes}
    for node in nodes:
        node.kids = []
    for node in nodes:
        # A live child of a retired parent has no parent in view when retired ones are left out.
        if node.parent_id in by_id:
            by_id[node.parent_id].kids.append(node)
    types = [n for n in nodes if n.parent_id is None]
    for siblings in [types, *(n.kids for n in nodes)]:
        numbers = keys_for([n.code for n in siblings])
        # The types' list ends with "Not relevant", numbered after them (`next_key`).
        beyond = max(numbers, default=0) + 1 if siblings is types else None
        for node, key in zip(siblings, padded(numbers, beyond), strict=True):
            node.key = key
    return types
