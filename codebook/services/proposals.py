"""Growing the codebook after the pilot: proposals every annotator votes on.

Unanimity is decided in the transaction that records a vote, with the proposal's row locked, so two votes
arriving together are counted one after the other and exactly one of them can be the last.
"""
from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import notices
from annotation import events
from annotation.models import Study
from annotation.permissions import can_label, can_manage
from concord import jobs
from concord.errors import FieldError
from taxonomy.models import Category

from ..models import Proposal, Vote


class ProposalError(FieldError):
    """A proposal or vote that breaks a rule."""


def electorate(study) -> list:
    """The study's active members, lead included, at this moment."""
    return list(get_user_model().objects.filter(memberships__study=study, is_active=True).order_by("username"))


@transaction.atomic
def open_proposal(study, user, *, parent_id: int, name: str, definition: str, example_ids: list[int],
                  quote=None) -> Proposal:
    if not can_label(user, study):
        raise PermissionDenied(_("Only members of the study propose categories."))
    if study.phase != Study.Phase.INDEPENDENT:
        raise ProposalError("phase", _("categories are proposed during the independent round (in the pilot the "
                                       "lead adds them directly)"))
    parent = Category.objects.filter(pk=parent_id, codebook=study.codebook_id, retired_at__isnull=True).first()
    if parent is None or parent.level == Category.Level.SUB_THEME:
        raise ProposalError("parent", _("choose a type (for a new theme) or a theme (for a new sub-theme) of "
                                        "this study's codebook"))
    name, definition = name.strip(), definition.strip()
    if not name:
        raise ProposalError("name", _("give the new category a name"))
    if not definition:
        raise ProposalError("definition", _("say what belongs in the new category"))
    if parent.children.filter(name__iexact=name, retired_at__isnull=True).exists():
        raise ProposalError("name", _("%(code)s already has a category named %(name)s")
                            % {"code": parent.code, "name": repr(name)})
    examples = list(study.issues.filter(pk__in=example_ids).values_list("pk", flat=True))
    if not examples:
        raise ProposalError("examples", _("give at least one report of this study as an example"))
    # Votes are taken for a fixed time: one that never comes is not a yes, so a proposal that has not passed by
    # then lapses (lapse_overdue) and can be proposed again.
    proposal = Proposal.objects.create(study=study, parent=parent, name=name, definition=definition, proposer=user,
                                       quote=quote,
                                       vote_by=timezone.now() + timedelta(days=settings.PROPOSAL_VOTE_DAYS))
    proposal.examples.set(examples)
    # The electorate is fixed now: members who join later do not vote on it.
    voters = electorate(study)
    Vote.objects.bulk_create([Vote(proposal=proposal, voter=voter) for voter in voters])
    # The one who proposed it knows; everyone else hears that their vote is awaited.
    notices.notify([v for v in voters if v.pk != user.pk], "vote", _key(proposal),
                   {"proposal": proposal.name, "parent": f"{parent.code} {parent.name}", "study": study.name,
                    "vote_by": proposal.vote_by.isoformat()},
                   url=reverse("codebook:proposal", args=[study.pk, proposal.pk]), study_id=study.pk)
    return proposal


def _key(proposal: Proposal) -> str:
    return f"proposal:{proposal.pk}"


@transaction.atomic
def cast_vote(proposal: Proposal, user, yes: bool, comment: str = "") -> Proposal:
    """Record a vote; one no rejects at once; the last yes passes. Returns the proposal as it now stands."""
    proposal = Proposal.objects.select_for_update().get(pk=proposal.pk)
    if not proposal.is_open:
        raise ProposalError("proposal", _("it is %(status)s; votes can no longer be cast")
                            % {"status": proposal.get_status_display().lower()})
    if proposal.vote_by is not None and proposal.vote_by <= timezone.now():
        raise ProposalError("proposal", _("its vote ended on %(date)s; it lapses, and can be proposed again")
                            % {"date": f"{timezone.localtime(proposal.vote_by):%Y-%m-%d %H:%M}"})
    ballot = Vote.objects.filter(proposal=proposal, voter=user).first()
    if ballot is None:
        raise PermissionDenied(_("Only the members who belonged to the study when the proposal opened vote on it."))
    if ballot.choice is not None:
        raise ProposalError("vote", _("you have voted on this proposal already; a vote cannot be changed"))
    ballot.choice, ballot.comment, ballot.cast_at = yes, comment.strip(), timezone.now()
    ballot.save(update_fields=["choice", "comment", "cast_at"])
    notices.settle(_key(proposal), user)
    if not yes:
        _close(proposal, Proposal.Status.REJECTED, f"{user.username} voted no")
    elif not Vote.objects.filter(proposal=proposal).exclude(choice=True).exists():
        _close(proposal, Proposal.Status.PASSED, "every member voted yes")
    return proposal


def _close(proposal: Proposal, status: str, note: str) -> None:
    proposal.status, proposal.closed_at, proposal.closing_note = status, timezone.now(), note
    proposal.save(update_fields=["status", "closed_at", "closing_note"])
    # No vote is awaited on a closed proposal.
    notices.settle(_key(proposal))
    events.tell(proposal.study, "proposal.decided", {
        "proposal": {"id": proposal.pk, "name": proposal.name}, "outcome": status,
        "votes": {"yes": proposal.votes.filter(choice=True).count(),
                  "no": proposal.votes.filter(choice=False).count()}})


@transaction.atomic
def lapse(proposal: Proposal, user, reason: str) -> Proposal:
    """The lead closes an open proposal that cannot pass (a member left and will not vote)."""
    if not can_manage(user, proposal.study):
        raise PermissionDenied(_("Only the study's lead closes a proposal as lapsed."))
    proposal = Proposal.objects.select_for_update().get(pk=proposal.pk)
    if not proposal.is_open:
        raise ProposalError("proposal", _("only an open proposal can lapse"))
    if not reason.strip():
        raise ProposalError("reason", _("say why the proposal lapses"))
    _close(proposal, Proposal.Status.LAPSED, reason.strip())
    return proposal


def lapse_overdue(now=None) -> int:
    """Close as lapsed every open proposal whose vote has ended without every member's yes. Each is locked and
    looked at again first, so a last yes cast in the same moment is counted or refused, never both. The number
    lapsed."""
    now = now or timezone.now()
    lapsed = 0
    for pk in Proposal.objects.filter(status=Proposal.Status.OPEN, vote_by__lte=now).values_list("pk", flat=True):
        with transaction.atomic():
            proposal = Proposal.objects.select_for_update().get(pk=pk)
            if proposal.is_open and proposal.vote_by is not None and proposal.vote_by <= now:
                _close(proposal, Proposal.Status.LAPSED, LAPSED_NOTE % {"date": f"{proposal.vote_by:%Y-%m-%d}"})
                lapsed += 1
    return lapsed


# Kept in English with the proposal, as the other closing notes; pages show it in the reader's language.
LAPSED_NOTE = "not every member voted yes by %(date)s"
lapse_overdue_task = jobs.task(lapse_overdue, queue="statistics")
