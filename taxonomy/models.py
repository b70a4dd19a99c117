from __future__ import annotations

from django.db import models


class Taxonomy(models.Model):
    """A codebook: a tree of categories, type → theme → sub-theme."""

    name = models.CharField(max_length=200)
    version = models.CharField(max_length=50)
    source = models.TextField(blank=True)
    note = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["name", "version"], name="taxonomy_unique_version")]
        verbose_name_plural = "taxonomies"

    def __str__(self) -> str:
        return f"{self.name} ({self.version})"


class Category(models.Model):
    class Level(models.TextChoices):
        TYPE = "type", "Type"
        THEME = "theme", "Theme"
        SUB_THEME = "sub_theme", "Sub-theme"

    taxonomy = models.ForeignKey(Taxonomy, on_delete=models.CASCADE, related_name="categories")
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.PROTECT, related_name="children")
    level = models.CharField(max_length=16, choices=Level.choices)
    code = models.CharField(max_length=32)
    name = models.CharField(max_length=300)
    definition = models.TextField(blank=True)
    position = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["taxonomy", "code"], name="category_unique_code"),
            # A type is a root; themes and sub-themes always hang below something.
            models.CheckConstraint(
                condition=models.Q(level="type", parent__isnull=True)
                | (~models.Q(level="type") & models.Q(parent__isnull=False)),
                name="category_only_types_are_roots",
            ),
        ]
        ordering = ["taxonomy", "position", "code"]
        verbose_name_plural = "categories"

    def __str__(self) -> str:
        return f"{self.code} {self.name}"
