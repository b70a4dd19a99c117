from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import translation
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from concord.history import HistoricalRecords
from ingest.models import Issue
from taxonomy.models import Category, Codebook


class Study(models.Model):
    """A set of issue reports that a team labels against one codebook, phase by phase (paper §4.2)."""

    class Phase(models.TextChoices):
        PILOT = "pilot", _("Pilot")
        INDEPENDENT = "independent", _("Independent round")
        REVIEW = "review", _("Review")
        ADJUDICATION = "adjudication", _("Adjudication")
        CLOSED = "closed", _("Closed")

    name = models.CharField(max_length=200, unique=True)
    description = models.TextField(blank=True)
    codebook = models.ForeignKey(Codebook, on_delete=models.PROTECT, related_name="studies")
    issues = models.ManyToManyField(Issue, related_name="studies", blank=True)
    members = models.ManyToManyField(settings.AUTH_USER_MODEL, through="Membership", related_name="studies")
    phase = models.CharField(max_length=16, choices=Phase.choices, default=Phase.INDEPENDENT)
    # None: every annotator labels every report (the study's design); k: k annotators per report.
    overlap = models.PositiveSmallIntegerField(null=True, blank=True)
    pilot_fraction = models.FloatField(default=0.18)
    seed = models.BigIntegerField(default=2025)
    # A lead who labels in the independent round sees what an annotator sees until their own queue
    # is finished (or they stop labeling, which sets their labels of the round aside).
    # Does the summary anchor? When set, each (annotator, report) is dealt, seeded, into an arm that
    # shows the summary first or only the original, and every label records which it got.
    summary_experiment = models.BooleanField(
        default=False, help_text="Show the summary to a seeded half of each annotator's reports only")
    lead_labels_blind = models.BooleanField(
        default=True, help_text="While the lead's own queue of the independent round is unfinished, the lead sees "
                                "no one else's labels, counts, agreement, history or exports.")
    class QueueOrder(models.TextChoices):
        OLDEST = "oldest", _("Oldest report first")
        RANDOM = "random", _("Seeded random order")
        CONFIDENCE = "confidence", _("What a machine is least sure of first")

    # In what order queues deal the reports. In a random or confidence-driven order, the reports labeled by any
    # moment are a sample with a known chance for each, which prediction-powered estimates need.
    queue_order = models.CharField(max_length=16, choices=QueueOrder.choices, default=QueueOrder.OLDEST)
    # Whose doubt orders the queues, as "rater, run N", when they are ordered by a machine's doubt.
    queue_order_from = models.CharField(max_length=200, blank=True)
    # Alpha with the codebook's tree distance: what two labels that part at the sub-theme, and at the theme, count
    # as a share of a disagreement (at the type: a whole one). An analysis choice, changed at any time.
    tree_sibling = models.FloatField(default=1 / 3)
    tree_same_type = models.FloatField(default=2 / 3)
    # Set by an admin: members sign in through the institution, GitHub or Gitee to open the study (a password
    # sign-in is refused here), so that leaving the institution ends their access.
    sso_required = models.BooleanField(default=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # The newest round, open or not; kept by the phase services so that the labeling loop reads the study and
    # its round in one query.
    current_round = models.ForeignKey("Round", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        ordering = ["name"]
        verbose_name_plural = "studies"
        constraints = [
            models.CheckConstraint(condition=models.Q(overlap__isnull=True) | models.Q(overlap__gte=1),
                                   name="study_overlap_positive"),
            models.CheckConstraint(condition=models.Q(pilot_fraction__gte=0, pilot_fraction__lte=1),
                                   name="study_pilot_fraction_share"),
            models.CheckConstraint(condition=models.Q(tree_sibling__gte=0, tree_sibling__lte=models.F("tree_same_type"),
                                                      tree_same_type__lte=1),
                                   name="study_tree_distance_grows_up_the_tree"),
        ]

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    class Role(models.TextChoices):
        LEAD = "lead", _("Lead annotator")
        ANNOTATOR = "annotator", _("Annotator")

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.ANNOTATOR)
    joined_at = models.DateTimeField(auto_now_add=True)
    # The codebook revision whose instructions the member has read; newer ones open on their next visit.
    instructions_seen = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["study", "user"], name="membership_unique_user")]
        ordering = ["study", "role", "user__username"]

    def __str__(self) -> str:
        return f"{self.user} in {self.study} ({self.get_role_display()})"


class QueueWeight(models.Model):
    """A report's weight in a study's confidence-driven order (mean 1 over the study's reports): higher where
    the machine was less sure, so the report comes earlier in the queues and had that much more chance of being
    labeled by any given moment."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="queue_weights")
    issue = models.ForeignKey(Issue, on_delete=models.CASCADE, related_name="+")
    weight = models.FloatField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["study", "issue"], name="queue_weight_one_per_report"),
            models.CheckConstraint(condition=models.Q(weight__gt=0), name="queue_weight_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.issue_id} weighs {self.weight:.3f} in {self.study_id}'s queue order"


class Round(models.Model):
    """One pass of labeling over a study; labels stay blind while it is open."""

    class Kind(models.TextChoices):
        PILOT = "pilot", _("Pilot")
        INDEPENDENT = "independent", _("Independent")
        REVIEW = "review", _("Review")

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


class Queue(models.Model):
    """One annotator's work in one round: its size and how much is done, kept as counters so that
    progress costs one indexed read however large the study is."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="queues")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="queues")
    total = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    # Set when the labeler stopped labeling this round before finishing (a lead who wanted to see everything):
    # their labels of the round are then set aside from agreement and final labels.
    stopped_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["round", "annotator"], name="queue_one_per_annotator")]

    def __str__(self) -> str:
        return f"{self.annotator} in {self.round}: {self.done}/{self.total}"


class Assignment(models.Model):
    """A report in an annotator's queue. Skipped reports come after the rest, in their own order."""

    queue = models.ForeignKey(Queue, on_delete=models.CASCADE, related_name="assignments")
    issue = models.ForeignKey(Issue, on_delete=models.CASCADE, related_name="assignments")
    position = models.PositiveIntegerField()
    done = models.BooleanField(default=False)
    skipped = models.BooleanField(default=False)
    skip_reason = models.CharField(max_length=300, blank=True)
    skipped_at = models.DateTimeField(null=True, blank=True)
    # Set when a codebook split, merge or retirement sent the label back: what it was, and why.
    requeued_because = models.CharField(max_length=300, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["queue", "issue"], name="assignment_unique_issue")]
        # "next report" reads this index from its first entry: undone, not skipped, lowest position.
        indexes = [models.Index(fields=["queue", "done", "skipped", "position"], name="assignment_next"),
                   # The few reports codebook changes sent back, counted on every labeling round trip.
                   models.Index(fields=["queue"], condition=~models.Q(requeued_because=""),
                                name="assignment_sent_back")]

    def __str__(self) -> str:
        return f"{self.issue} for {self.queue.annotator}"


class TiedReport(models.Model):
    """A report whose votes tied after the independent round, taken into the review round, and the levels at
    which they tied."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="tied_reports")
    issue = models.ForeignKey(Issue, on_delete=models.CASCADE, related_name="tied_reports")
    levels = models.JSONField(default=list)  # e.g. ["type"] or ["theme", "sub_theme"]

    class Meta:
        constraints = [models.UniqueConstraint(fields=["round", "issue"], name="tied_report_unique_issue")]

    def __str__(self) -> str:
        return f"{self.issue} tied at {', '.join(self.levels)}"


class Comment(models.Model):
    """A message in a report's review thread. Comments are never edited or removed: they are the record
    of how a consensus was reached."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="comments")
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="comments")
    issue = models.ForeignKey(Issue, on_delete=models.CASCADE, related_name="review_comments")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="review_comments")
    body = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["round", "issue", "created_at"], name="comment_thread")]

    def __str__(self) -> str:
        return f"{self.author} on {self.issue}"


class Invitation(models.Model):
    """A one-time, expiring link that lets a volunteer join a study and set their own password.
    Only a hash of the token is stored, so the database alone cannot be used to join."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="invitations")
    role = models.CharField(max_length=16, choices=Membership.Role.choices, default=Membership.Role.ANNOTATOR)
    token_hash = models.CharField(max_length=64, unique=True)
    note = models.CharField(max_length=200, blank=True, help_text="Whom the link is for, as a reminder")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    accepted_at = models.DateTimeField(null=True, blank=True)
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"Invitation to {self.study} ({self.role})"


class Choice(models.Model):
    """What a label and a final decision both hold: a type, theme and sub-theme, or "not relevant"."""

    # "Not relevant" is a verdict of its own, with no category below it.
    is_relevant = models.BooleanField(default=True)
    type = models.ForeignKey(Category, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    theme = models.ForeignKey(Category, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    sub_theme = models.ForeignKey(Category, null=True, blank=True, on_delete=models.PROTECT, related_name="+")

    class Meta:
        abstract = True

    @staticmethod
    def type_iff_relevant(name: str) -> models.CheckConstraint:
        return models.CheckConstraint(
            condition=models.Q(is_relevant=True, type__isnull=False)
            | models.Q(is_relevant=False, type__isnull=True, theme__isnull=True, sub_theme__isnull=True),
            name=name,
        )

    @property
    def code(self) -> str:
        """The most specific code given, e.g. C.6.iv, or NR for not relevant."""
        if not self.is_relevant:
            return NOT_RELEVANT
        node = self.sub_theme or self.theme or self.type
        return node.code if node else ""


class Label(Choice):
    """One annotator's current label for one report in one round; every change is kept in history."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="labels")
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="labels")
    issue = models.ForeignKey(Issue, on_delete=models.PROTECT, related_name="labels")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="labels")
    note = models.TextField(blank=True, help_text="Symptoms or suggested fix, in the annotator's words")
    codebook_revision = models.PositiveIntegerField(null=True, blank=True,
                                                    help_text="The codebook revision the label was made under")
    # Shown to the lead and admins only, on the annotators' dashboard.
    seconds = models.PositiveIntegerField(null=True, blank=True,
                                          help_text="Seconds from the report being shown to this save")
    summary_shown = models.BooleanField(null=True, blank=True,
                                        help_text="Whether the summary was on the page (summary experiment)")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    history = HistoricalRecords()

    class Meta:
        constraints = [
            # Rule that never bends: one current label per (study, report, annotator, round).
            models.UniqueConstraint(
                fields=["study", "issue", "annotator", "round"], name="label_one_current_per_round"
            ),
            Choice.type_iff_relevant("label_type_iff_relevant"),
        ]
        ordering = ["study", "issue", "annotator"]

    def __str__(self) -> str:
        return f"{self.annotator} on {self.issue}: {self.code}"


NOT_RELEVANT = "NR"


class FinalLabel(Choice):
    """A report's final label in a study, and how it was reached. History keeps every
    change, so a decision revised by the lead still shows what it was before."""

    class Method(models.TextChoices):
        MAJORITY = "majority", _("Majority")
        CONSENSUS = "consensus", _("Consensus after review")
        LEAD = "lead", _("Lead decision")
        IMPORTED = "imported", _("Imported final label")

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="final_labels")
    issue = models.ForeignKey(Issue, on_delete=models.PROTECT, related_name="final_labels")
    method = models.CharField(max_length=16, choices=Method.choices)
    support = models.PositiveSmallIntegerField(null=True, blank=True, help_text="Raters who gave the final label")
    raters = models.PositiveSmallIntegerField(null=True, blank=True, help_text="Raters of the report")
    rationale = models.TextField(blank=True)
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                   related_name="+")
    decided_at = models.DateTimeField(auto_now=True)
    # A database default too: the bulk writers (closing a study, importing final labels) name only what they set.
    machine_votes = models.PositiveSmallIntegerField(
        default=0, db_default=0, help_text="Of the raters, machines standing in a person's seat (their votes counted)")

    history = HistoricalRecords()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["study", "issue"], name="decision_one_per_report"),
            Choice.type_iff_relevant("decision_type_iff_relevant"),
        ]

    def __str__(self) -> str:
        return f"{self.issue}: {self.code} ({self.get_method_display()})"

    @property
    def how(self) -> str:
        """How the label was reached, as the study reports it: "majority 5/7", "lead decision", …, and how many of
        the votes were machines' in people's seats: "majority 2/3 (1 machine vote)". In English whatever the
        reader's language: exports and the dataset card carry it."""
        with translation.override("en"):
            return self.how_said

    @property
    def how_said(self) -> str:
        """`how` in the reader's language, for pages."""
        if self.method == self.Method.MAJORITY and self.support and self.raters:
            # More than half is a majority; the most votes but no more than half (2 of 4) is a plurality.
            said = (gettext("majority %(support)s/%(raters)s") if 2 * self.support > self.raters
                    else gettext("plurality %(support)s/%(raters)s"))
            how = said % {"support": self.support, "raters": self.raters}
        else:
            how = str(self.get_method_display()).lower()
        if self.machine_votes:
            how += " " + ngettext("(%(n)s machine vote)", "(%(n)s machine votes)", self.machine_votes) % {
                "n": self.machine_votes}
        return how


class Seat(models.Model):
    """One annotator's place on some reports of a round, handed to a machine rater by the lead: the reports they
    had not labeled left their queue, and the machine's label (frozen here as it was when handed, at the level
    the lead's decision holds for) stands in their place in votes, ties, final labels and the figures that
    count the machine. Given back, it counts no more and the reports return to the person's queue."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="seats")
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="seats")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+",
                                  help_text="The person whose place the machine took")
    machine = models.CharField(max_length=100, help_text="The machine rater's name")
    level = models.CharField(max_length=16, help_text="The level down to which the machine's label counts")
    taken_at = models.DateTimeField(auto_now_add=True)
    taken_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    given_back_at = models.DateTimeField(null=True, blank=True)
    given_back_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                      related_name="+")
    returned = models.PositiveIntegerField(default=0, help_text="Reports back in the person's queue when given back")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["round", "annotator"], condition=models.Q(
            given_back_at__isnull=True), name="seat_one_standing_per_person")]
        ordering = ["round", "taken_at"]

    def __str__(self) -> str:
        return f"{self.machine} in {self.annotator}'s seat, round {self.round.number}"

    @property
    def standing(self) -> bool:
        return self.given_back_at is None


class SeatLabel(Choice):
    """The machine's label standing in a seat on one report; below the seat's level it names nothing."""

    seat = models.ForeignKey(Seat, on_delete=models.CASCADE, related_name="labels")
    issue = models.ForeignKey(Issue, on_delete=models.PROTECT, related_name="+")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["seat", "issue"], name="seat_label_one_per_report"),
                       Choice.type_iff_relevant("seat_label_type_iff_relevant")]

    def __str__(self) -> str:
        return f"{self.seat.machine} on {self.issue_id}: {self.code}"
