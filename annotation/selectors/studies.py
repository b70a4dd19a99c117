"""Which studies a user sees, and which round is current or measured."""
from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db.models import Count, QuerySet

from concord.textcheck import INT64_MAX

from ..models import Membership, Round, Study


def studies_for(user) -> QuerySet[Study]:
    studies = Study.objects.all() if user.is_staff else Study.objects.filter(memberships__user=user)
    # The list shows each study's codebook and round: fetched with it, not one query per study.
    return (studies.select_related("codebook", "current_round")
            .annotate(issue_count=Count("issues", distinct=True)).order_by("name"))


def leads(study: Study) -> QuerySet:
    """The study's lead annotators who can still sign in: those told what waits on the lead."""
    return get_user_model().objects.filter(memberships__study=study, memberships__role=Membership.Role.LEAD,
                                           is_active=True)


def current_round(study: Study) -> Round | None:
    """The open round, or the most recent one when all are closed."""
    round = study.current_round if study.current_round_id else None
    if round is None:
        rounds = study.rounds.order_by("-number")
        round = rounds.filter(closed_at__isnull=True).first() or rounds.first()
    if round is not None:
        round.study = study  # the caller's instance, with the role it was loaded with
    return round


def agreement_round(study: Study) -> Round | None:
    """The round agreement is measured on: the latest independent round (not the pilot, which only the lead
    labels, nor the review, whose re-labels are not independent); before there is one, the current round."""
    round = study.rounds.filter(kind=Round.Kind.INDEPENDENT).order_by("-number").first()
    if round is not None:
        round.study = study
        return round
    return current_round(study)


def study_named(name_or_id: str) -> Study | None:
    """The study a command line names: by its name, else by its id (what the study's address shows)."""
    studies = Study.objects.select_related("codebook", "created_by")
    found = studies.filter(name=name_or_id).first()
    if found is None and name_or_id.isdigit() and 0 < int(name_or_id) <= INT64_MAX:
        found = studies.filter(pk=int(name_or_id)).first()
    return found
