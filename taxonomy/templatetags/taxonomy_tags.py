"""A category's texts in the reader's language, for pages that show a category outside the codebook's tree."""
from __future__ import annotations

from django import template

from concord.levels import level_name
from taxonomy.languages import reads_second, word

register = template.Library()


@register.filter
def shown(category, field: str = "name") -> str:
    """`category`'s `field` (name, definition, inclusion, exclusion) as this reader sees it."""
    if category is None:
        return ""
    return word(category, field, reads_second(category.codebook))


@register.filter
def level_names(levels) -> str:
    """Levels ("type", "theme", "sub_theme") by their names in the reader's language, comma-separated."""
    return ", ".join(level_name(level) for level in levels or ())
