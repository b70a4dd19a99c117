"""Creating a study and changing its members."""
from __future__ import annotations

import math

from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils.translation import gettext as _

from concord.audit import record
from concord.errors import FieldError
from taxonomy.models import Codebook

from ..models import Label, Membership, Queue, Study
from ..permissions import can_manage
from . import phases


class StudyError(FieldError):
    """A study set-up that cannot be saved."""


def _check_order(queue_order: str) -> None:
    """Oldest first or seeded random here; a machine's doubt orders the queues only from the machine raters'
    page, which says whose."""
    if queue_order not in (Study.QueueOrder.OLDEST, Study.QueueOrder.RANDOM):
        raise StudyError("queue_order", _("oldest report first, or the seeded random order"))


def _new_order(study: Study, queue_order: str | None, in_pilot: bool) -> str:
    """The queue order asked for, checked: it shapes how the independent round's queues are dealt."""
    if queue_order is None or queue_order == study.queue_order:
        return study.queue_order
    _check_order(queue_order)
    if not in_pilot:
        raise StudyError("queue_order", _("the independent round has begun; its queues are already dealt"))
    return queue_order


@transaction.atomic
def create_study(*, name: str, codebook: Codebook, issues, lead, annotators=(), description: str = "",
                 overlap: int | None = None, pilot_fraction: float = 0.18, seed: int = 2025,
                 with_pilot: bool = False, created_by=None, lead_labels_blind: bool = True,
                 queue_order: str = Study.QueueOrder.OLDEST) -> Study:
    """A study with its members and its first round: the lead's pilot, or the independent round."""
    _check_order(queue_order)
    if overlap is not None and overlap < 1:
        raise StudyError("overlap", _("at least one annotator per report"))
    if not 0 <= pilot_fraction <= 1:
        raise StudyError("pilot_fraction", _("a share between 0 and 1"))
    try:
        with transaction.atomic():
            study = Study.objects.create(name=name, codebook=codebook, description=description, overlap=overlap,
                                         pilot_fraction=pilot_fraction, seed=seed, created_by=created_by,
                                         lead_labels_blind=lead_labels_blind, queue_order=queue_order)
    except IntegrityError as exc:
        raise StudyError("name", _("a study named %(name)s exists already") % {"name": repr(name)}) from exc
    # Ids, not rows: a queryset given whole would load every report's body and payload to link them.
    study.issues.set(issues.values_list("pk", flat=True) if isinstance(issues, QuerySet) else issues)
    Membership.objects.create(study=study, user=lead, role=Membership.Role.LEAD)
    Membership.objects.bulk_create(
        [Membership(study=study, user=u, role=Membership.Role.ANNOTATOR) for u in annotators if u != lead]
    )
    phases.start(study, with_pilot=with_pilot)
    return study


@transaction.atomic
def add_member(study: Study, user, role: str = Membership.Role.ANNOTATOR) -> Membership:
    """Add someone to a study; they get a queue in the open round if one applies. An existing member keeps
    their role (an annotator's invitation link never demotes a lead)."""
    membership, created = Membership.objects.get_or_create(study=study, user=user, defaults={"role": role})
    if created:
        phases.join_round(study, user)
        record("member added", None, study, member=user.username, role=membership.role)
    return membership


@transaction.atomic
def remove_member(study: Study, by, user_id: int) -> int:
    """Take someone out of the study. Their labels stay, counted as before; their queues in the open rounds close
    at what they have done (the reports they had not labeled leave their queue); a proposal they were asked to
    vote on waits for their vote until the lead lets it lapse, as for anyone who left. Returns how many reports
    left their queues. The study keeps its lead."""
    if not can_manage(by, study):
        raise PermissionDenied("Only the study's lead or an admin removes members.")
    membership = Membership.objects.select_for_update().filter(study=study, user_id=user_id).first()
    if membership is None:
        raise StudyError("member", _("they are not a member of this study (removed already?); nothing was changed"))
    if membership.role == Membership.Role.LEAD:
        raise StudyError("member", _("the study keeps its lead; make someone else the lead first"))
    left = 0
    for queue in Queue.objects.select_for_update().filter(round__study=study, round__closed_at__isnull=True,
                                                          annotator_id=user_id):
        gone = queue.assignments.filter(done=False).delete()[0]
        left += gone
        queue.total = queue.done
        queue.save(update_fields=["total"])
    membership.delete()
    record("member removed", by, study, member=membership.user.username, reports_left_their_queue=left)
    return left


def deactivate(by, user) -> None:
    """An admin closes someone's account: they can no longer log in, anywhere; what they did stays."""
    if not by.is_staff:
        raise PermissionDenied("Only an admin deactivates accounts.")
    if user.pk == by.pk:
        raise StudyError("member", _("you cannot deactivate your own account"))
    user.is_active = False
    user.save(update_fields=["is_active"])
    record("account deactivated", by, None, account=user.username)


def _fixed_after_pilot(study: Study, field: str, value, in_pilot: bool, refusal: str):
    """`value` for a part of how the round's labels are made (the study's own when None), refused as a change
    once the pilot is over."""
    value = getattr(study, field) if value is None else value
    if value != getattr(study, field) and not in_pilot:
        raise StudyError(field, refusal)
    return value


def _tree_distance(study: Study, given: tuple[float, float] | None) -> tuple[float, float]:
    sibling, same_type = given if given is not None else (study.tree_sibling, study.tree_same_type)
    if not (math.isfinite(sibling) and math.isfinite(same_type) and 0 <= sibling <= same_type <= 1):
        raise StudyError("tree_sibling", _("the tree distance grows up the tree: 0 ≤ sibling sub-themes ≤ themes "
                                           "of the same type ≤ 1"))
    return sibling, same_type


@transaction.atomic
def update_settings(study: Study, user, *, name: str, description: str, overlap: int | None,
                    pilot_fraction: float, seed: int, lead_labels_blind: bool | None = None,
                    summary_experiment: bool | None = None, queue_order: str | None = None,
                    tree_distance: tuple[float, float] | None = None) -> Study:
    """The lead's set-up changes. Overlap shapes the independent round, so it is fixed once that round has
    begun; the pilot share and seed draw the pilot sample, so they change only before the lead's first pilot
    label, and a change draws the sample again."""
    if not can_manage(user, study):
        raise PermissionDenied("Only the study's lead or an admin changes its set-up.")
    study = Study.objects.select_for_update().get(pk=study.pk)
    if overlap is not None and overlap < 1:
        raise StudyError("overlap", _("at least one annotator per report"))
    if not 0 <= pilot_fraction <= 1:
        raise StudyError("pilot_fraction", _("a share between 0 and 1"))
    if Study.objects.filter(name=name).exclude(pk=study.pk).exists():
        raise StudyError("name", _("a study named %(name)s exists already") % {"name": repr(name)})
    in_pilot = study.phase == Study.Phase.PILOT
    if overlap != study.overlap and not in_pilot:
        raise StudyError("overlap", _("the independent round has begun; its queues are already dealt"))
    lead_labels_blind = _fixed_after_pilot(study, "lead_labels_blind", lead_labels_blind, in_pilot, _(
        "the independent round has begun; whether the lead labels blind is part of how its labels were made"))
    summary_experiment = _fixed_after_pilot(study, "summary_experiment", summary_experiment, in_pilot, _(
        "the independent round has begun; whether summaries are shown is part of how its labels were made"))
    queue_order = _new_order(study, queue_order, in_pilot)
    sibling, same_type = _tree_distance(study, tree_distance)
    redraw = (pilot_fraction, seed) != (study.pilot_fraction, study.seed)
    if redraw:
        pilot = study.current_round if in_pilot else None
        if pilot is None or Label.objects.filter(round=pilot).exists():
            raise StudyError("seed", _("the pilot sample is drawn and labeling has begun; it can no longer change"))
    study.name, study.description, study.overlap = name, description, overlap
    study.pilot_fraction, study.seed, study.lead_labels_blind = pilot_fraction, seed, lead_labels_blind
    study.summary_experiment = summary_experiment
    study.tree_sibling, study.tree_same_type = sibling, same_type
    if queue_order != study.queue_order:
        study.queue_order, study.queue_order_from = queue_order, ""
    study.save()
    if redraw:
        phases.redraw_pilot(study)
    return study
