"""Reads of everyone's labels. Those shown to a person take the viewer and apply the blind rule
(annotation.permissions); the rest feed figures and final labels, which are shown only through views that check
it."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Exists, OuterRef, QuerySet

from ingest.models import Source
from ingest.selectors import decision as screening_decision
from ingest.selectors import decisions as screening_decisions
from ingest.selectors import reviewed_of
from stats.ties import modal_label

from ..models import Label, Membership, Queue, Round, Study
from ..permissions import can_view_all_labels


def visible_labels(user, study: Study) -> QuerySet[Label]:
    """Every label the user may see in the study: all of them for the lead, only their own otherwise."""
    labels = Label.objects.filter(study=study).select_related(
        "issue__source", "annotator", "type", "theme", "sub_theme", "round"
    )
    return labels if can_view_all_labels(user, study) else labels.filter(annotator=user)


def labels_of_report(viewer, study, issue):
    """Every annotator's labels of one report outside the pilot, oldest round first: none while the blind rule
    hides other people's labels from `viewer` (an annotator, or a lead who labels, during the blind rounds)."""
    if not can_view_all_labels(viewer, study):
        return Label.objects.none()
    return (Label.objects.filter(study=study, issue=issue).exclude(round__kind=Round.Kind.PILOT)
            .select_related("annotator", "round", "type", "theme", "sub_theme")
            .order_by("round__number", "annotator__username"))


def counted_labels(labels: QuerySet[Label]) -> QuerySet[Label]:
    """The labels that count for agreement and final labels: all but those of a labeler who stopped labeling a
    round to see everyone's labels (a rater who saw the others is not independent). Set-aside labels
    are kept, exported and in history."""
    return labels.exclude(Exists(_stopped().filter(round=OuterRef("round"), annotator=OuterRef("annotator"))))


def _stopped() -> QuerySet[Queue]:
    """The queues of labelers who stopped labeling their round to see everyone's labels."""
    return Queue.objects.filter(stopped_at__isnull=False)


def counted_in_round(round: Round) -> QuerySet[Label]:
    """counted_labels of one round as a plain filter, which every one-round reader uses: the labelers who stopped
    are looked up first (a handful of queue rows), so that reading or counting a large round's labels costs the
    database no anti-join per label (a fifth of its time at 280,000 labels)."""
    stopped = list(_stopped().filter(round=round).values_list("annotator_id", flat=True))
    labels = Label.objects.filter(round=round)
    return labels.exclude(annotator_id__in=stopped) if stopped else labels


@dataclass(frozen=True)
class Rater:
    username: str
    role: str
    blind: bool
    set_aside: bool
    how: str


def raters(round: Round) -> list[Rater]:
    """Who labeled the round, and whether they labeled blind: annotators always; the lead when the study says
    the lead labels blind; a labeler who stopped to see everything is set aside."""
    study = round.study
    roles = dict(study.memberships.values_list("user_id", "role"))
    queues = {q.annotator_id: q for q in Queue.objects.filter(round=round)}
    labeled = (Label.objects.filter(round=round).order_by().values_list("annotator_id", "annotator__username")
               .distinct())
    people = []
    for user_id, username in sorted(labeled, key=lambda row: row[1]):
        role = roles.get(user_id, "")
        queue = queues.get(user_id)
        if queue is not None and queue.stopped_at is not None:
            people.append(Rater(username, role, False, True, f"stopped labeling on {queue.stopped_at:%Y-%m-%d} to "
                                                             "see everyone's labels: set aside"))
        elif role == Membership.Role.LEAD and round.kind == Round.Kind.INDEPENDENT and not study.lead_labels_blind:
            people.append(Rater(username, role, False, False, "the lead, not blind (the study let the lead see "
                                                              "every label while labeling)"))
        else:
            people.append(Rater(username, role, True, False, "blind"))
    return people


def majority_types(source_ids) -> dict[int, str]:
    """Each labeled issue of these sources: its type by the majority of its labels' types in all studies (blank
    while tied), for the "by type" column of the admins' screening report. Read by source, not by a list of
    issue ids, which could pass the database's limit on parameters."""
    types: dict[int, list[str]] = defaultdict(list)
    for issue_id, name in Label.objects.filter(issue__source_id__in=source_ids, is_relevant=True).values_list(
        "issue_id", "type__name"
    ):
        types[issue_id].append(name)
    return {issue_id: modal_label(names) or "" for issue_id, names in types.items()}


def screening_verdicts(study: Study) -> dict[int, tuple[str, str]]:
    """Each report's screening verdict in its source (included, excluded, undecided) and why."""
    return ScreeningVerdicts(study)(None)


VERDICT_WORDS = {True: "included", False: "excluded", None: "undecided"}


class ScreeningVerdicts:
    """The study's screening verdicts a chunk of reports at a time (called with their ids, None for all, or with
    a range of ids), or a report at a time from its own columns (`one`), the sources and their reviews read once:
    an export's memory then does not grow with the corpus."""

    def __init__(self, study: Study):
        self.sources = [(source, reviewed_of(source))
                        for source in Source.objects.filter(issues__studies=study).distinct()]
        self.reviewed = {source.pk: reviewed for source, reviewed in self.sources}

    def __call__(self, issue_ids, id_range: tuple[int, int] | None = None) -> dict[int, tuple[str, str]]:
        verdicts: dict[int, tuple[str, str]] = {}
        for source, reviewed in self.sources:
            for issue_id, decision in screening_decisions(source, issue_ids, reviewed, id_range).items():
                verdicts[issue_id] = (VERDICT_WORDS[decision.included], decision.why)
        return verdicts

    def one(self, source_id: int, issue_id: int, kept: bool, pre: str | None) -> tuple[str, str]:
        """A report's verdict and why, for a reader that has its columns at hand: whether a keyword kept it and
        its newest summary's pre-verdict (None without a summary)."""
        decision = screening_decision(kept, self.reviewed[source_id].get(issue_id), pre)
        return VERDICT_WORDS[decision.included], decision.why
