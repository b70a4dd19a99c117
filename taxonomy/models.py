from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models


class Taxonomy(models.Model):
    """A codebook: a tree of categories, type → theme → sub-theme."""

    name = models.CharField(max_length=200)
    # Room for a study's copy, named "<version> for <study name>" (a study name has up to 200 characters).
    version = models.CharField(max_length=300)
    source = models.TextField(blank=True)
    note = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # Each change (see ChangeLogEntry) makes a new revision; labels record the revision they were made under.
    revision = models.PositiveIntegerField(default=1)

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
    inclusion = models.TextField(blank=True, help_text="What belongs here, when it is easy to miss")
    exclusion = models.TextField(blank=True, help_text="What does not belong here, though it may look so")
    examples = models.ManyToManyField("ingest.Issue", related_name="+", blank=True)
    position = models.PositiveIntegerField(default=0)
    retired_at = models.DateTimeField(null=True, blank=True)
    # A stable identity for exchange formats (REFI-QDA), kept across renames.
    guid = models.UUIDField(default=uuid.uuid4, editable=False)

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


class Proposal(models.Model):
    """A new theme or sub-theme proposed during the independent round. It passes only when every member of
    its electorate (fixed when it opens) has voted yes; one no rejects it at once (paper §4.2)."""

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        PASSED = "passed", "Passed"
        REJECTED = "rejected", "Rejected"
        LAPSED = "lapsed", "Lapsed"
        APPLIED = "applied", "Added to the codebook"

    study = models.ForeignKey("annotation.Study", on_delete=models.CASCADE, related_name="proposals")
    parent = models.ForeignKey(Category, on_delete=models.PROTECT, related_name="proposals")
    name = models.CharField(max_length=300)
    definition = models.TextField()
    examples = models.ManyToManyField("ingest.Issue", related_name="+")
    proposer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="proposals")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN)
    opened_at = models.DateTimeField(auto_now_add=True)
    closed_at = models.DateTimeField(null=True, blank=True)
    closing_note = models.TextField(blank=True)
    category = models.ForeignKey(Category, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
                                 help_text="The category the lead added from this proposal")
    quote = models.ForeignKey("interviews.Quote", null=True, blank=True, on_delete=models.PROTECT,
                              related_name="proposals", help_text="The interview quote the proposal came from")

    class Meta:
        ordering = ["-opened_at", "-id"]

    def __str__(self) -> str:
        return f"{self.name} under {self.parent.code} ({self.get_status_display()})"

    @property
    def is_open(self) -> bool:
        return self.status == self.Status.OPEN


class Vote(models.Model):
    """One elector's ballot on a proposal; `choice` stays empty until cast and never changes after."""

    proposal = models.ForeignKey(Proposal, on_delete=models.CASCADE, related_name="votes")
    voter = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="codebook_votes")
    choice = models.BooleanField(null=True, blank=True)
    comment = models.TextField(blank=True)
    cast_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["proposal", "voter"], name="vote_one_per_elector")]
        ordering = ["voter__username"]

    def __str__(self) -> str:
        return f"{self.voter} on {self.proposal_id}: {self.choice}"


class ChangeLogEntry(models.Model):
    """One change to a codebook: who, when, what kind, before, after, why, and the proposal behind it.
    Every entry makes a new revision of the codebook; rendered, the log is the study's Table 2."""

    class Kind(models.TextChoices):
        ADD = "add", "Add"
        RENAME = "rename", "Rename"
        CLARIFY = "clarify", "Clarify definition"
        SPLIT = "split", "Split"
        MERGE = "merge", "Merge"
        RETIRE = "retire", "Retire"

    taxonomy = models.ForeignKey(Taxonomy, on_delete=models.CASCADE, related_name="changes")
    revision = models.PositiveIntegerField()
    kind = models.CharField(max_length=16, choices=Kind.choices)
    before = models.JSONField(default=list, blank=True)  # [{code, name, definition}] of the categories changed
    after = models.JSONField(default=list, blank=True)
    reason = models.TextField()
    proposal = models.ForeignKey(Proposal, null=True, blank=True, on_delete=models.PROTECT, related_name="changes")
    # Interview evidence: the quote the change came from (the study's Table 2, "modifications from interviews").
    quote = models.ForeignKey("interviews.Quote", null=True, blank=True, on_delete=models.PROTECT,
                              related_name="changes")
    made_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    made_at = models.DateTimeField(auto_now_add=True)
    requeued = models.PositiveIntegerField(default=0, help_text="Labels sent back to their annotators' queues")

    class Meta:
        ordering = ["revision"]
        constraints = [models.UniqueConstraint(fields=["taxonomy", "revision"], name="change_one_per_revision")]

    def __str__(self) -> str:
        return f"{self.taxonomy} r{self.revision}: {self.get_kind_display()}"


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
