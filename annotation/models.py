from __future__ import annotations

from django.conf import settings
from django.db import models
from simple_history.models import HistoricalRecords

from ingest.models import Issue
from taxonomy.models import Category, Taxonomy


class Study(models.Model):
    """A set of issue reports that a team labels against one codebook."""

    name = models.CharField(max_length=200, unique=True)
    description = models.TextField(blank=True)
    taxonomy = models.ForeignKey(Taxonomy, on_delete=models.PROTECT, related_name="studies")
    issues = models.ManyToManyField(Issue, related_name="studies", blank=True)
    members = models.ManyToManyField(settings.AUTH_USER_MODEL, through="Membership", related_name="studies")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name_plural = "studies"

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    class Role(models.TextChoices):
        LEAD = "lead", "Lead annotator"
        ANNOTATOR = "annotator", "Annotator"

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.ANNOTATOR)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["study", "user"], name="membership_unique_user")]
        ordering = ["study", "role", "user__username"]

    def __str__(self) -> str:
        return f"{self.user} in {self.study} ({self.get_role_display()})"


class Round(models.Model):
    """One pass of labeling over a study; labels stay blind while it is open."""

    class Kind(models.TextChoices):
        PILOT = "pilot", "Pilot"
        INDEPENDENT = "independent", "Independent"
        REVIEW = "review", "Review"

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveIntegerField()
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.INDEPENDENT)
    opened_at = models.DateTimeField(auto_now_add=True)
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["study", "number"], name="round_unique_number")]
        ordering = ["study", "number"]

    def __str__(self) -> str:
        return f"{self.study} round {self.number} ({self.get_kind_display()})"

    @property
    def is_open(self) -> bool:
        return self.closed_at is None


class Label(models.Model):
    """One annotator's current label for one report in one round; every change is kept in history."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="labels")
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="labels")
    issue = models.ForeignKey(Issue, on_delete=models.PROTECT, related_name="labels")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="labels")
    # DESIGN step 7: "not relevant" is a verdict of its own, with no category below it.
    is_relevant = models.BooleanField(default=True)
    type = models.ForeignKey(Category, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    theme = models.ForeignKey(Category, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    sub_theme = models.ForeignKey(Category, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    note = models.TextField(blank=True, help_text="Symptoms or suggested fix, in the annotator's words")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    history = HistoricalRecords()

    class Meta:
        constraints = [
            # Rule that never bends: one current label per (study, report, annotator, round).
            models.UniqueConstraint(
                fields=["study", "issue", "annotator", "round"], name="label_one_current_per_round"
            ),
            models.CheckConstraint(
                condition=models.Q(is_relevant=True, type__isnull=False)
                | models.Q(is_relevant=False, type__isnull=True, theme__isnull=True, sub_theme__isnull=True),
                name="label_type_iff_relevant",
            ),
        ]
        ordering = ["study", "issue", "annotator"]

    def __str__(self) -> str:
        return f"{self.annotator} on {self.issue}: {self.code}"

    @property
    def code(self) -> str:
        """The most specific code given, e.g. C.6.iv, or NR for not relevant."""
        if not self.is_relevant:
            return NOT_RELEVANT
        node = self.sub_theme or self.theme or self.type
        return node.code if node else ""


NOT_RELEVANT = "NR"
