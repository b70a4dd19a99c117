"""Stage II of the study: practitioner interviews that rank and extend the codebook (paper §5).

The tables keep the names they had when these models lived in the taxonomy app (`taxonomy_…`): moving them
here changed Django's model state only, and every row stayed where it was."""
from __future__ import annotations

from django.conf import settings
from django.db import models

from taxonomy.models import Category


class InterviewGuide(models.Model):
    """An interview guide, versioned: a changed guide is a new version, so answers keep the questions they
    answered."""

    study = models.ForeignKey("annotation.Study", on_delete=models.CASCADE, related_name="guides")
    version = models.PositiveIntegerField(default=1)
    title = models.CharField(max_length=200)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "taxonomy_interviewguide"
        constraints = [models.UniqueConstraint(fields=["study", "version"], name="guide_one_per_version")]
        ordering = ["study", "-version"]

    def __str__(self) -> str:
        return f"{self.title} (v{self.version})"


class GuideQuestion(models.Model):
    class Kind(models.TextChoices):
        BACKGROUND = "background", "Background"
        RANKING = "ranking", "Ranking of themes"
        SHORT = "short", "Short answer"
        OPEN = "open", "Open"

    guide = models.ForeignKey(InterviewGuide, on_delete=models.CASCADE, related_name="questions")
    part = models.CharField(max_length=200, help_text="The guide's part, e.g. 'Part III. Bug reports'")
    position = models.PositiveIntegerField(default=0)
    text = models.TextField()
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.OPEN)
    group = models.CharField(max_length=50, blank=True, help_text="Asked of this group only (blank: everyone)")
    # For a ranking: the type whose themes are ranked; otherwise, optionally, the node the question is about.
    node = models.ForeignKey(Category, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    top = models.PositiveSmallIntegerField(default=3, help_text="Ranking: how many places (0 = a full order)")

    class Meta:
        db_table = "taxonomy_guidequestion"
        ordering = ["guide", "position", "id"]

    def __str__(self) -> str:
        return self.text[:60]


class Participant(models.Model):
    """An interviewee, by code (U1, D3); no name is needed."""

    study = models.ForeignKey("annotation.Study", on_delete=models.CASCADE, related_name="participants")
    code = models.CharField(max_length=20)
    group = models.CharField(max_length=50, help_text="user, developer, or a group the lead defines")
    role = models.CharField(max_length=300, blank=True)
    years = models.FloatField(null=True, blank=True, help_text="Years of experience with LLMs or DL frameworks")
    experience = models.CharField(max_length=50, blank=True, help_text="e.g. Beginner, Intermediate, Advanced")
    frameworks = models.CharField(max_length=300, blank=True)
    tasks = models.TextField(blank=True)

    class Meta:
        db_table = "taxonomy_participant"
        constraints = [models.UniqueConstraint(fields=["study", "code"], name="participant_unique_code")]
        ordering = ["study", "group", "code"]

    def __str__(self) -> str:
        return f"{self.code} ({self.group})"


class InterviewSession(models.Model):
    participant = models.ForeignKey(Participant, on_delete=models.CASCADE, related_name="sessions")
    guide = models.ForeignKey(InterviewGuide, null=True, blank=True, on_delete=models.PROTECT,
                              related_name="sessions")
    held_on = models.DateField(null=True, blank=True)
    interviewer = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="+")

    class Meta:
        db_table = "taxonomy_interviewsession"
        ordering = ["participant", "held_on", "id"]

    def __str__(self) -> str:
        return f"Interview with {self.participant.code}"


class Answer(models.Model):
    session = models.ForeignKey(InterviewSession, on_delete=models.CASCADE, related_name="answers")
    question = models.ForeignKey(GuideQuestion, on_delete=models.PROTECT, related_name="answers")
    text = models.TextField(blank=True)
    # A ranking: theme codes, best first (a top 3 or a full order).
    order = models.JSONField(default=list, blank=True)

    class Meta:
        db_table = "taxonomy_answer"
        constraints = [models.UniqueConstraint(fields=["session", "question"], name="answer_one_per_question")]

    def __str__(self) -> str:
        return f"{self.session}: {self.question}"


class Quote(models.Model):
    """A participant's words coded to codebook nodes, with the insight drawn from them (CodeBook.csv)."""

    session = models.ForeignKey(InterviewSession, on_delete=models.CASCADE, related_name="quotes")
    prompt = models.CharField(max_length=200, blank=True, help_text="The prompt category it answered")
    text = models.TextField()
    insight = models.TextField(blank=True)
    nodes = models.ManyToManyField(Category, related_name="quotes")

    class Meta:
        db_table = "taxonomy_quote"
        ordering = ["session", "id"]

    def __str__(self) -> str:
        return f"{self.session.participant.code}: {self.text[:40]}"
