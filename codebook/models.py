"""A study's codebook as it changes: proposals of new categories and every member's vote, and the
change log of the lead's changes, each a new revision of the codebook.

The tables keep the names they had when these models lived in the taxonomy app (`taxonomy_…`): moving them
here changed Django's model state only."""
from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from concord.numbers import days_left
from taxonomy.models import Category, Codebook


class Proposal(models.Model):
    """A new theme or sub-theme proposed during the independent round. It passes only when every member of
    its electorate (fixed when it opens) has voted yes; one no rejects it at once (paper §4.2)."""

    class Status(models.TextChoices):
        OPEN = "open", _("Open")
        PASSED = "passed", _("Passed")
        REJECTED = "rejected", _("Rejected")
        LAPSED = "lapsed", _("Lapsed")
        APPLIED = "applied", _("Added to the codebook")

    study = models.ForeignKey("annotation.Study", on_delete=models.CASCADE, related_name="proposals")
    parent = models.ForeignKey(Category, on_delete=models.PROTECT, related_name="proposals")
    name = models.CharField(max_length=300)
    definition = models.TextField()
    examples = models.ManyToManyField("ingest.Issue", related_name="+")
    proposer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="proposals")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN)
    opened_at = models.DateTimeField(auto_now_add=True)
    vote_by = models.DateTimeField(null=True, blank=True,
                                   help_text="Votes are taken until then; not passed by then, the proposal lapses")
    closed_at = models.DateTimeField(null=True, blank=True)
    closing_note = models.TextField(blank=True)
    category = models.ForeignKey(Category, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
                                 help_text="The category the lead added from this proposal")
    quote = models.ForeignKey("interviews.Quote", null=True, blank=True, on_delete=models.PROTECT,
                              related_name="proposals", help_text="The interview quote the proposal came from")

    class Meta:
        db_table = "taxonomy_proposal"
        ordering = ["-opened_at", "-id"]

    def __str__(self) -> str:
        return f"{self.name} under {self.parent.code} ({self.get_status_display()})"

    @property
    def is_open(self) -> bool:
        return self.status == self.Status.OPEN

    def days_left(self, now=None) -> int | None:
        """Whole days of voting left, the day it ends counted (1 on its last day); None without a deadline."""
        return None if self.vote_by is None else days_left(self.vote_by, now or timezone.now())


class Vote(models.Model):
    """One elector's ballot on a proposal; `choice` stays empty until cast and never changes after."""

    proposal = models.ForeignKey(Proposal, on_delete=models.CASCADE, related_name="votes")
    voter = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="codebook_votes")
    choice = models.BooleanField(null=True, blank=True)
    comment = models.TextField(blank=True)
    cast_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "taxonomy_vote"
        constraints = [models.UniqueConstraint(fields=["proposal", "voter"], name="vote_one_per_elector")]
        ordering = ["voter__username"]

    def __str__(self) -> str:
        return f"{self.voter} on {self.proposal_id}: {self.choice}"


class ChangeLogEntry(models.Model):
    """One change to a codebook: who, when, what kind, before, after, why, and the proposal behind it.
    Every entry makes a new revision of the codebook; rendered, the log is the study's Table 2."""

    class Kind(models.TextChoices):
        ADD = "add", _("Add")
        RENAME = "rename", _("Rename")
        CLARIFY = "clarify", _("Clarify definition")
        SPLIT = "split", _("Split")
        MERGE = "merge", _("Merge")
        RETIRE = "retire", _("Retire")
        INSTRUCTIONS = "instructions", _("Instructions")
        TRANSLATE = "translate", _("Second language")

    codebook = models.ForeignKey(Codebook, on_delete=models.CASCADE, related_name="changes")
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
    # Agreement evidence: the pair of categories people confused that the change clarifies, with its figures
    # as the dashboard computed them and the reports given both ({} for a change made without).
    evidence = models.JSONField(default=dict, blank=True)

    class Meta:
        db_table = "taxonomy_changelogentry"
        ordering = ["revision"]
        constraints = [models.UniqueConstraint(fields=["codebook", "revision"], name="change_one_per_revision")]

    def __str__(self) -> str:
        return f"{self.codebook} r{self.revision}: {self.get_kind_display()}"
