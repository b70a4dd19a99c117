from __future__ import annotations

from django.db import models


class Source(models.Model):
    """A repository whose issue reports feed studies."""

    class Platform(models.TextChoices):
        GITHUB = "github", "GitHub"
        GITEE = "gitee", "Gitee"

    class Kind(models.TextChoices):
        # DESIGN step 3: framework sources are keyword-filtered, toolkit sources keep everything.
        FRAMEWORK = "framework", "Framework"
        TOOLKIT = "toolkit", "Toolkit"

    platform = models.CharField(max_length=16, choices=Platform.choices, default=Platform.GITHUB)
    full_name = models.CharField(max_length=200, help_text="owner/name on the platform")
    display_name = models.CharField(max_length=100, blank=True)
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.TOOLKIT)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["platform", "full_name"], name="source_unique_repo")]
        ordering = ["display_name", "full_name"]

    def __str__(self) -> str:
        return self.display_name or self.full_name


class Issue(models.Model):
    """One issue report, as the platform gave it; `payload` keeps the original untouched."""

    source = models.ForeignKey(Source, on_delete=models.PROTECT, related_name="issues")
    # Text, not an integer: Gitee numbers issues like "I8SLI3".
    number = models.CharField(max_length=32)
    url = models.URLField(max_length=500, blank=True)
    title = models.CharField(max_length=1000)
    body = models.TextField(blank=True)
    author = models.CharField(max_length=200, blank=True)
    state = models.CharField(max_length=32, blank=True)
    platform_labels = models.JSONField(default=list, blank=True, help_text="The label names the platform shows")
    created_at = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)
    comment_count = models.PositiveIntegerField(default=0)
    comments = models.JSONField(default=list, blank=True, help_text="Comment objects, where the dump had them")
    payload = models.JSONField(default=dict, blank=True)
    imported_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["source", "number"], name="issue_unique_source_number")]
        ordering = ["source", "created_at", "id"]

    def __str__(self) -> str:
        return f"{self.source.full_name}#{self.number}"
