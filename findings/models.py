"""What a study found that is kept: named subsets of its reports and the comparisons the lead added to its dataset
card. Moved here from the annotation app with their tables (annotation_…) as they were."""
from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from annotation.models import Study
from ingest.models import Issue


class Subset(models.Model):
    """A named set of a study's reports: a seeded baseline sample of issues no keyword matched, or a saved
    list. Subsets by source, year, keyword group or verdict are computed from the reports themselves."""

    class Kind(models.TextChoices):
        BASELINE = "baseline", _("Baseline sample")
        LIST = "list", _("Saved list")

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="subsets")
    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.LIST)
    issues = models.ManyToManyField(Issue, related_name="+")
    seed = models.BigIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "annotation_subset"
        constraints = [models.UniqueConstraint(fields=["study", "name"], name="subset_unique_name")]

    def __str__(self) -> str:
        return f"{self.name} ({self.get_kind_display()})"


class ComparisonRecord(models.Model):
    """A comparison the lead added to the study's dataset card, with its figures as computed then."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="comparisons")
    by = models.CharField(max_length=32)
    level = models.CharField(max_length=16)
    figures = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "annotation_comparisonrecord"
        ordering = ["created_at"]

    def __str__(self) -> str:
        return f"{self.study}: by {self.by} at {self.level}"
