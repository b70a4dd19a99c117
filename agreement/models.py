from __future__ import annotations

from django.conf import settings
from django.db import models


class AgreementSnapshot(models.Model):
    """The dashboard's figures as computed at one moment, so that their movement over a round can be shown
    and every published figure can be traced to when, on how many labels, and by whom it was computed."""

    study = models.ForeignKey("annotation.Study", on_delete=models.CASCADE, related_name="agreement_snapshots")
    round = models.ForeignKey("annotation.Round", on_delete=models.CASCADE, related_name="agreement_snapshots")
    level = models.CharField(max_length=16, default="theme")
    labels = models.PositiveIntegerField(help_text="Labels in the round when computed")
    figures = models.JSONField()
    computed_at = models.DateTimeField(auto_now_add=True)
    computed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="+")
    seconds = models.FloatField(default=0)
    # The moment up to which every label is in the figures: when their computation began on the primary, or
    # earlier when they were read from a replica that had not replayed everything yet (concord.replica).
    as_of = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["computed_at", "id"]
        indexes = [models.Index(fields=["study", "level", "computed_at"], name="snapshot_by_study")]

    def __str__(self) -> str:
        return f"{self.study} {self.level} at {self.computed_at:%Y-%m-%d %H:%M}"


class Plan(models.Model):
    """The planner's simulations for one round and level (how wide each kappa's interval would be with more
    reports or raters), computed by a worker and kept while the labels stand. They do not depend on the width
    wanted: the page reads the first size that reaches it. Not carried by a backup: computed again from labels."""

    round = models.ForeignKey("annotation.Round", on_delete=models.CASCADE, related_name="plans")
    level = models.CharField(max_length=16, default="theme")
    labels = models.PositiveIntegerField(help_text="Labels in the round when computed")
    plans = models.JSONField(help_text="[name, simulation] for each kappa of the dashboard")
    computed_at = models.DateTimeField(auto_now_add=True)
    seconds = models.FloatField(default=0)

    class Meta:
        ordering = ["computed_at", "id"]
        indexes = [models.Index(fields=["round", "level", "computed_at"], name="plan_by_round")]

    def __str__(self) -> str:
        return f"plan of {self.round} {self.level} at {self.computed_at:%Y-%m-%d %H:%M}"
