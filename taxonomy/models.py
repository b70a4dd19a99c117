from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Codebook(models.Model):
    """A codebook: a tree of categories, type → theme → sub-theme."""

    name = models.CharField(max_length=200)
    # Room for a study's copy, named "<version> for <study name>" (a study name has up to 200 characters).
    version = models.CharField(max_length=300)
    source = models.TextField(blank=True)
    note = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # Each change (see ChangeLogEntry) makes a new revision; labels record the revision they were made under.
    revision = models.PositiveIntegerField(default=1)
    # The lead's instructions to annotators (Markdown), changed like a category: with a reason, as a revision.
    instructions = models.TextField(blank=True)
    instructions_revision = models.PositiveIntegerField(default=0, help_text="The revision that last changed them")
    # The language of the categories' second names and definitions (a code of settings.LANGUAGES); "" for none. A
    # reader whose language it is sees those first, the codebook's own a hover away.
    second_language = models.CharField(max_length=16, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["name", "version"], name="taxonomy_unique_version")]
        verbose_name_plural = "taxonomies"

    def __str__(self) -> str:
        return f"{self.name} ({self.version})"


class Category(models.Model):
    class Level(models.TextChoices):
        TYPE = "type", _("Type")
        THEME = "theme", _("Theme")
        SUB_THEME = "sub_theme", _("Sub-theme")

    codebook = models.ForeignKey(Codebook, on_delete=models.CASCADE, related_name="categories")
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.PROTECT, related_name="children")
    level = models.CharField(max_length=16, choices=Level.choices)
    code = models.CharField(max_length=32)
    name = models.CharField(max_length=300)
    definition = models.TextField(blank=True)
    inclusion = models.TextField(blank=True, help_text="What belongs here, when it is easy to miss")
    exclusion = models.TextField(blank=True, help_text="What does not belong here, though it may look so")
    # The same four in the codebook's second language, each optional.
    name_second = models.CharField(max_length=300, blank=True)
    definition_second = models.TextField(blank=True)
    inclusion_second = models.TextField(blank=True)
    exclusion_second = models.TextField(blank=True)
    examples = models.ManyToManyField("ingest.Issue", related_name="+", blank=True)
    position = models.PositiveIntegerField(default=0)
    retired_at = models.DateTimeField(null=True, blank=True)
    # A stable identity for exchange formats (REFI-QDA), kept across renames.
    guid = models.UUIDField(default=uuid.uuid4, editable=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["codebook", "code"], name="category_unique_code"),
            # A type is a root; themes and sub-themes always hang below something.
            models.CheckConstraint(
                condition=models.Q(level="type", parent__isnull=True)
                | (~models.Q(level="type") & models.Q(parent__isnull=False)),
                name="category_only_types_are_roots",
            ),
        ]
        ordering = ["codebook", "position", "code"]
        verbose_name_plural = "categories"

    def __str__(self) -> str:
        return f"{self.code} {self.name}"


class Detail(models.Model):
    """An explanatory detail the lead curated for a category from the annotators' notes (the study's bug
    symptoms, question intents and requirement expectations), with the reports it came from."""

    category = models.ForeignKey(Category, on_delete=models.CASCADE, related_name="details")
    text = models.TextField()
    examples = models.ManyToManyField("ingest.Issue", related_name="+", blank=True)
    position = models.PositiveIntegerField(default=0)
    added_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    added_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["category", "position", "id"]

    def __str__(self) -> str:
        return f"{self.category.code}: {self.text[:40]}"
