from __future__ import annotations

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from concord.history import HistoricalRecords
from concord.jobs import Job, NoticeSubject


class KeywordList(models.Model):
    """The keywords that decide which issues of a framework source are kept."""

    name = models.CharField(max_length=200, unique=True)
    description = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Keyword(models.Model):
    class Origin(models.TextChoices):
        # Section 4.1 of the study: the four sources its keywords came from.
        MODEL_NAME = "model_name", _("Model or project name")
        FRAMEWORK_API = "framework_api", _("Framework API or module")
        PARALLELISM = "parallelism", _("Optimisation or parallelism technique")
        HARDWARE_PRECISION = "hardware_precision", _("Hardware or precision")
        OTHER = "other", _("Other")

    class Status(models.TextChoices):
        # A candidate filters nothing until its sample's precision has been judged.
        ACCEPTED = "accepted", _("Accepted")
        CANDIDATE = "candidate", _("Candidate")
        REJECTED = "rejected", _("Rejected")

    keyword_list = models.ForeignKey(KeywordList, on_delete=models.CASCADE, related_name="keywords")
    term = models.CharField(max_length=200, help_text=_("Matched case-insensitively, on word boundaries"))
    origin = models.CharField(max_length=32, choices=Origin.choices, default=Origin.OTHER)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.CANDIDATE)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["keyword_list", "term"], name="keyword_unique_term")]
        ordering = ["keyword_list", "term"]

    def __str__(self) -> str:
        return self.term


class Source(models.Model):
    """A repository whose issue reports feed studies."""

    class Platform(models.TextChoices):
        GITHUB = "github", "GitHub"
        GITEE = "gitee", "Gitee"
        FILE = "file", _("File")

    class Kind(models.TextChoices):
        # Framework sources are keyword-filtered, toolkit sources keep everything.
        FRAMEWORK = "framework", _("Framework")
        TOOLKIT = "toolkit", _("Toolkit")

    platform = models.CharField(max_length=16, choices=Platform.choices, default=Platform.GITHUB)
    full_name = models.CharField(max_length=200, help_text=_("owner/name on the platform"))
    display_name = models.CharField(max_length=100, blank=True)
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.TOOLKIT)
    keyword_list = models.ForeignKey(
        KeywordList, null=True, blank=True, on_delete=models.PROTECT, related_name="sources",
        help_text=_("Framework sources keep only issues matching one of these keywords"),
    )
    created_from = models.DateField(null=True, blank=True, help_text=_("Keep issues created on or after this day"))
    created_to = models.DateField(null=True, blank=True, help_text=_("Keep issues created on or before this day"))
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["platform", "full_name"], name="source_unique_repo")]
        ordering = ["display_name", "full_name"]

    def __str__(self) -> str:
        return self.display_name or self.full_name

    @property
    def is_filtered(self) -> bool:
        return self.kind == self.Kind.FRAMEWORK


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
    source_updated_at = models.DateTimeField(null=True, blank=True, help_text="updated_at on the platform")
    comment_count = models.PositiveIntegerField(default=0)
    comments = models.JSONField(default=list, blank=True, help_text="Comment objects, where the dump had them")
    payload = models.JSONField(
        default=dict, blank=True, help_text="The original object, less title and body (see original_payload)"
    )
    # Issues a framework source's keywords did not match are kept out of studies but stored,
    # so a changed keyword list needs no new fetch and a baseline of unmatched issues can be drawn.
    kept = models.BooleanField(default=True, db_index=True)
    matched_keywords = models.ManyToManyField(Keyword, related_name="issues", blank=True)
    imported_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["source", "number"], name="issue_unique_source_number")]
        ordering = ["source", "created_at", "id"]

    def __str__(self) -> str:
        return f"{self.source.full_name}#{self.number}"

    def original_payload(self) -> dict:
        """The object as the platform or file gave it: payload with title and body put back."""
        return {**self.payload, "title": self.title, "body": self.body}


class IngestRun(Job):
    """One ingest of a source, from its API or a file: its progress, counts and outcome, kept as a record.
    Its heartbeat is set at every batch or page (and during waits); a run whose heartbeat stopped is marked
    interrupted (concord.jobs.interrupt_stale)."""

    class Kind(models.TextChoices):
        API = "api", _("Platform API")
        FILE = "file", _("File")

    source = models.ForeignKey(Source, on_delete=models.CASCADE, related_name="runs")
    kind = models.CharField(max_length=8, choices=Kind.choices)
    file_path = models.CharField(max_length=1000, blank=True)
    file_format = models.CharField(max_length=16, blank=True)
    since = models.DateTimeField(null=True, blank=True, help_text="Only issues updated since (incremental run)")
    until = models.DateTimeField(null=True, blank=True)
    fetched = models.PositiveIntegerField(default=0)
    created = models.PositiveIntegerField(default=0)
    updated = models.PositiveIntegerField(default=0)
    unchanged = models.PositiveIntegerField(default=0, help_text="Stored already, with every field the same")
    skipped_pull_requests = models.PositiveIntegerField(default=0)
    filtered_out = models.PositiveIntegerField(default=0)
    errors = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(null=True, blank=True, help_text="Expected count, where known")
    # Where a killed or failed API run resumes: the next page to fetch, and the newest updated_at seen.
    cursor = models.JSONField(default=dict, blank=True)
    high_water = models.DateTimeField(null=True, blank=True)
    # A re-run of a failed file run points to it.
    retry_of = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="retries")

    def __str__(self) -> str:
        return f"{self.source} {self.get_kind_display()} run {self.pk} ({self.status})"

    def notice_subject(self) -> NoticeSubject:
        return NoticeSubject("import", str(self.source), reverse("ingest:source_detail", args=[self.source_id]))

    @property
    def percent(self) -> int | None:
        if not self.total:
            return None
        return min(100, round(100 * self.fetched / self.total))


class Summary(models.Model):
    """A short summary and pre-verdict of one issue by one backend, model and prompt version."""

    class Verdict(models.TextChoices):
        RELEVANT = "relevant", _("Relevant")
        NOT_RELEVANT = "not_relevant", _("Not relevant")
        UNCLEAR = "unclear", _("Unclear")

    class Status(models.TextChoices):
        OK = "ok", _("Made")
        FAILED = "failed", _("Failed")

    issue = models.ForeignKey(Issue, on_delete=models.CASCADE, related_name="summaries")
    backend = models.CharField(max_length=32)
    model = models.CharField(max_length=200, blank=True)
    prompt_version = models.CharField(max_length=32)
    # Title and summarised window of the body: equal hashes with equal backend, model and prompt share a summary.
    content_hash = models.CharField(max_length=64, db_index=True)
    text = models.TextField(blank=True)
    verdict = models.CharField(max_length=16, choices=Verdict.choices, blank=True)
    reason = models.TextField(blank=True)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.OK)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["issue", "backend", "model", "prompt_version"], name="summary_unique_make")
        ]
        verbose_name_plural = "summaries"

    def __str__(self) -> str:
        return f"{self.issue} ({self.backend} {self.prompt_version}): {self.status}"


class SummaryBatch(Job):
    """Summarising a source's kept issues: progress and outcome of one Celery job."""

    source = models.ForeignKey(Source, on_delete=models.CASCADE, related_name="summary_batches")
    backend = models.CharField(max_length=32)
    model = models.CharField(max_length=200, blank=True)
    prompt_version = models.CharField(max_length=32)
    total = models.PositiveIntegerField(default=0)
    made = models.PositiveIntegerField(default=0)
    cached = models.PositiveIntegerField(default=0)
    failed = models.PositiveIntegerField(default=0)

    class Meta(Job.Meta):
        verbose_name_plural = "summary batches"

    @property
    def percent(self) -> int | None:
        return min(100, round(100 * (self.made + self.cached + self.failed) / self.total)) if self.total else None

    def __str__(self) -> str:
        return f"Summaries of {self.source} ({self.status})"

    def notice_subject(self) -> NoticeSubject:
        return NoticeSubject("summaries", str(self.source), reverse("ingest:source_detail", args=[self.source_id]))


class ScreeningSample(models.Model):
    """A seeded sample of issues that two screeners judge, a third breaking their ties:
    the matches of a candidate keyword, or one stratum of pre-verdicts of a source."""

    class Kind(models.TextChoices):
        KEYWORD = "keyword", _("Keyword validation")
        STRATUM = "stratum", _("Screening verification")

    class Status(models.TextChoices):
        OPEN = "open", _("Open")
        ACCEPTED = "accepted", _("Accepted")
        REJECTED = "rejected", _("Rejected")
        CLOSED = "closed", _("Closed")

    kind = models.CharField(max_length=16, choices=Kind.choices)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN)
    keyword = models.ForeignKey(Keyword, null=True, blank=True, on_delete=models.CASCADE, related_name="samples")
    source = models.ForeignKey(Source, null=True, blank=True, on_delete=models.CASCADE, related_name="samples")
    stratum = models.CharField(max_length=16, choices=Summary.Verdict.choices, blank=True)
    seed = models.IntegerField()
    size = models.PositiveIntegerField(null=True, blank=True)
    fraction = models.FloatField(null=True, blank=True)
    population = models.PositiveIntegerField(default=0, help_text="How many issues the sample was drawn from")
    threshold = models.FloatField(default=0.8, help_text="Keyword validation: lowest precision accepted")
    # Keyword validation: the first time the precision's confidence sequence lay wholly on one side of the
    # threshold, which decided the keyword: {"n": verdicts read, "meets": bool, "low", "high", "alpha"}.
    sequence_stop = models.JSONField(null=True, blank=True)
    reviewer_a = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    reviewer_b = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    tiebreaker = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(reviewer_a=models.F("reviewer_b"))
                & ~models.Q(reviewer_a=models.F("tiebreaker")) & ~models.Q(reviewer_b=models.F("tiebreaker")),
                name="screening_three_different_reviewers",
            ),
        ]

    def __str__(self) -> str:
        if self.kind == self.Kind.KEYWORD:
            return _("Validation of keyword '%(keyword)s'") % {"keyword": self.keyword}
        return _("Verification of '%(stratum)s' in %(source)s") % {"stratum": self.get_stratum_display(),
                                                                  "source": self.source}


class ScreeningItem(models.Model):
    sample = models.ForeignKey(ScreeningSample, on_delete=models.CASCADE, related_name="items")
    issue = models.ForeignKey(Issue, on_delete=models.CASCADE, related_name="screening_items")
    position = models.PositiveIntegerField(help_text="Order of the draw")

    class Meta:
        ordering = ["sample", "position"]
        constraints = [models.UniqueConstraint(fields=["sample", "issue"], name="screening_item_unique_issue")]

    def __str__(self) -> str:
        return f"{self.sample}: {self.issue}"


class ScreeningVote(models.Model):
    """One screener's judgement of one sampled issue; a change keeps the earlier one in history."""

    item = models.ForeignKey(ScreeningItem, on_delete=models.CASCADE, related_name="votes")
    reviewer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="screening_votes")
    is_relevant = models.BooleanField()
    note = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    history = HistoricalRecords()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["item", "reviewer"], name="screening_one_vote_per_reviewer")]

    def __str__(self) -> str:
        return f"{self.reviewer} on {self.item}: {'relevant' if self.is_relevant else 'not relevant'}"


class SummaryReview(models.Model):
    """A screener's word on whether a summary was enough to judge its issue (the study's summary check)."""

    summary = models.ForeignKey(Summary, on_delete=models.CASCADE, related_name="reviews")
    reviewer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="summary_reviews")
    sufficient = models.BooleanField()
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    history = HistoricalRecords()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["summary", "reviewer"], name="summary_review_one_per_reviewer")]

    def __str__(self) -> str:
        return f"{self.reviewer} on {self.summary}: {'enough' if self.sufficient else 'not enough'}"
