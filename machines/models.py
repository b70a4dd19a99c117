"""Machine raters of a study: what each is (enough to reproduce it), its runs, its labels, every call it made to
a language model, and the decisions to let it stand in for an annotator.

Machine labels live here and nowhere in annotation: they cannot leak into the human agreement, the final
labels or an annotator's page by accident; the pages that may show them load them from this app's views."""
from __future__ import annotations

from django.conf import settings as django_settings
from django.db import models
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from annotation.models import Study
from concord.jobs import Job, NoticeSubject
from ingest.models import Issue


class MachineRater(models.Model):
    class Kind(models.TextChoices):
        BUILTIN = "builtin", _("Built-in text classifier")
        LLM = "llm", _("Language model (OpenAI-compatible endpoint)")

    class Training(models.TextChoices):
        FINAL = "final", _("Final labels (plurality where there is none yet)")
        PLURALITY = "plurality", _("Plurality of the annotators' labels")

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="machine_raters")
    name = models.CharField(max_length=100)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    training = models.CharField(max_length=16, choices=Training.choices, default=Training.FINAL, blank=True)
    # Everything that reproduces the rater: folds and seed of the classifier; the endpoint (one of the operator's
    # by name, or an address of its own), model, temperature, seed, runs per report and prompt version of a
    # language model. Never a key: the operator's stay in the environment.
    settings = models.JSONField(default=dict, blank=True)
    # The key of a rater's own endpoint, sent there only: never shown, exported, backed up or logged.
    api_key = models.CharField(max_length=500, blank=True, default="")
    created_by = models.ForeignKey(django_settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["study", "name"], name="machine_rater_unique_name")]
        ordering = ["study", "name"]

    def __str__(self) -> str:
        return f"{self.name} ({self.get_kind_display()})"

    @property
    def runs_per_report(self) -> int:
        return int(self.settings.get("runs", 1)) if self.kind == self.Kind.LLM else 1


class MachineRun(Job):
    """One rating of the study's reports by a rater: a Celery job's progress and outcome. The latest run that
    succeeded is the rater's labels of record."""

    rater = models.ForeignKey(MachineRater, on_delete=models.CASCADE, related_name="runs")
    settings = models.JSONField(default=dict, blank=True, help_text="The rater's settings when the run began")
    prompt_version = models.CharField(max_length=32, blank=True)
    prompt_hash = models.CharField(max_length=64, blank=True, help_text="SHA-256 of the system prompt")
    prompt = models.TextField(blank=True, help_text="The system prompt, as sent")
    model_reported = models.CharField(max_length=200, blank=True, help_text="The model as the endpoint named it")
    total = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    cached = models.PositiveIntegerField(default=0)
    unparseable = models.PositiveIntegerField(default=0)
    failed = models.PositiveIntegerField(default=0)
    # The built-in model's calibration curve, against the labels it learned from (each report rated by models
    # that never saw its label): machines.measures.calibration.
    calibration = models.JSONField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.rater.name} run {self.pk} ({self.status})"

    def notice_subject(self) -> NoticeSubject:
        return NoticeSubject("machine", self.rater.name, reverse("machines:rater", args=[self.rater.study_id,
                                                                                        self.rater_id]),
                             study_id=self.rater.study_id)

    @property
    def number(self) -> int:
        """Which of its rater's runs this is (1 for the first), as a page names it: ids count every rater's."""
        return MachineRun.objects.filter(rater_id=self.rater_id, pk__lte=self.pk).count()

    @property
    def percent(self) -> int | None:
        return min(100, round(100 * self.done / self.total)) if self.total else None


class MachineLabel(models.Model):
    """A machine's label of one report in one run; `attempt` numbers a language model's k runs per report.
    Codes, not category rows: codes are never reused, and an unparseable answer has none."""

    run = models.ForeignKey(MachineRun, on_delete=models.CASCADE, related_name="labels")
    issue = models.ForeignKey(Issue, on_delete=models.CASCADE, related_name="machine_labels")
    attempt = models.PositiveSmallIntegerField(default=0)
    type_code = models.CharField(max_length=32, blank=True, help_text='A type code, or "NR" for not relevant')
    theme_code = models.CharField(max_length=32, blank=True)
    sub_theme_code = models.CharField(max_length=32, blank=True)
    unparseable = models.BooleanField(default=False)
    # The built-in model's probability of this type and theme together; None for a language model, whose
    # confidence is how many of its runs on the report agree (machines.selectors.confidences).
    confidence = models.FloatField(null=True, blank=True)
    # The built-in model's probability of the type alone: what a jury deciding types is sure of.
    type_confidence = models.FloatField(null=True, blank=True)
    call = models.ForeignKey("LlmCall", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["run", "issue", "attempt"], name="machine_label_one_per_attempt"),
            models.CheckConstraint(condition=models.Q(unparseable=False) | models.Q(type_code=""),
                                   name="machine_label_unparseable_has_no_code"),
        ]
        ordering = ["run", "issue", "attempt"]

    def __str__(self) -> str:
        return f"{self.run.rater.name} on {self.issue_id}: {self.code or 'unparseable'}"

    @property
    def chain(self) -> tuple[str, str | None, str | None] | None:
        if self.unparseable or not self.type_code:
            return None
        return self.type_code, self.theme_code or None, self.sub_theme_code or None

    @property
    def code(self) -> str:
        return self.sub_theme_code or self.theme_code or self.type_code


class LlmCall(models.Model):
    """One request to a language model, kept whatever came of it. `key` is what the answer depends on (endpoint,
    model, prompt, report text, temperature, seed, attempt): a call with a key already answered is not sent."""

    rater = models.ForeignKey(MachineRater, on_delete=models.CASCADE, related_name="calls")
    issue = models.ForeignKey(Issue, on_delete=models.CASCADE, related_name="+")
    attempt = models.PositiveSmallIntegerField(default=0)
    key = models.CharField(max_length=64, db_index=True)
    prompt_hash = models.CharField(max_length=64)
    model = models.CharField(max_length=200, help_text="The model asked for")
    model_reported = models.CharField(max_length=200, blank=True)
    made_at = models.DateTimeField(auto_now_add=True)
    seconds = models.FloatField(null=True, blank=True)
    prompt_tokens = models.PositiveIntegerField(null=True, blank=True)
    completion_tokens = models.PositiveIntegerField(null=True, blank=True)
    answer = models.TextField(blank=True)
    failure = models.TextField(blank=True, help_text="Why no usable answer came: HTTP error, timeout, refusal…")

    class Meta:
        ordering = ["-made_at", "-id"]

    def __str__(self) -> str:
        return f"{self.model} on {self.issue_id} ({'failed' if self.failure else 'answered'})"


class ReplacementDecision(models.Model):
    """The lead's record that a machine may take one annotator's place at one level (and type), made only where
    the alternative annotator test passed; the figures it rested on are frozen beside it. A seeded share of
    reports (the sentinels) stays labeled by people, and the machine's agreement on them is watched."""

    rater = models.ForeignKey(MachineRater, on_delete=models.CASCADE, related_name="decisions")
    level = models.CharField(max_length=16)  # "type", "theme" or "sub_theme"
    type_code = models.CharField(max_length=32, blank=True, help_text='The type whose reports; "" at type level')
    epsilon = models.FloatField()
    figures = models.JSONField(help_text="The measurement the decision rested on, as it was then")
    reason = models.TextField()
    sentinel_share = models.FloatField(default=0.1)
    sentinel_seed = models.BigIntegerField(default=0)
    decided_by = models.ForeignKey(django_settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    decided_at = models.DateTimeField(auto_now_add=True)
    withdrawn_at = models.DateTimeField(null=True, blank=True)
    withdrawn_by = models.ForeignKey(django_settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                     related_name="+")
    withdrawn_reason = models.TextField(blank=True)
    # Set when the lead applies the decision to an open round: the seat the machine took there.
    seat = models.OneToOneField("annotation.Seat", null=True, blank=True, on_delete=models.SET_NULL,
                                related_name="decision")

    class Meta:
        constraints = [models.UniqueConstraint(
            fields=["rater", "level", "type_code"], condition=models.Q(withdrawn_at__isnull=True),
            name="machine_decision_one_standing")]
        ordering = ["rater", "level", "type_code", "-decided_at"]

    def __str__(self) -> str:
        where = f"{self.level} of {self.type_code}" if self.type_code else self.level
        return f"{self.rater.name} may replace one annotator at {where}"


class Measurement(models.Model):
    """A run's labels measured against the panel at one level, type and ε, as a worker computed them: the rater's
    page and a decision read these instead of loading the statistics libraries in the web process. `panel` says
    which state of the human labels and final labels they were measured against; when that moves, they are
    measured again."""

    run = models.ForeignKey(MachineRun, on_delete=models.CASCADE, related_name="measurements")
    # Set for a decision's sentinel watch: the run measured on that decision's sentinel reports only.
    decision = models.ForeignKey("ReplacementDecision", null=True, blank=True, on_delete=models.CASCADE,
                                 related_name="watches")
    level = models.CharField(max_length=16)
    type_code = models.CharField(max_length=32, blank=True)
    epsilon = models.FloatField()
    panel = models.CharField(max_length=200, help_text="The panel's state when measured (machines.measurements)")
    figures = models.JSONField()
    computed_at = models.DateTimeField(auto_now_add=True)
    seconds = models.FloatField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["run", "level", "type_code", "epsilon", "panel"],
                                    condition=models.Q(decision__isnull=True), name="machine_measurement_once"),
            models.UniqueConstraint(fields=["run", "decision", "panel"], condition=models.Q(decision__isnull=False),
                                    name="machine_watch_once"),
        ]

    def __str__(self) -> str:
        return f"run {self.run_id} at {self.level} {self.type_code} ε={self.epsilon}"
