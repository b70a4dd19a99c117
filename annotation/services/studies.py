"""Creating a study and changing its members."""
from __future__ import annotations

from django.db import IntegrityError, transaction

from taxonomy.models import Taxonomy

from ..models import Membership, Study
from . import phases


class StudyError(ValueError):
    """A study set-up that cannot be saved; the message names the field."""


@transaction.atomic
def create_study(*, name: str, taxonomy: Taxonomy, issues, lead, annotators=(), description: str = "",
                 overlap: int | None = None, pilot_fraction: float = 0.18, seed: int = 2025,
                 with_pilot: bool = False, created_by=None) -> Study:
    """A study with its members and its first round: the lead's pilot, or the independent round."""
    if overlap is not None and overlap < 1:
        raise StudyError("overlap: at least one annotator per report")
    if not 0 <= pilot_fraction <= 1:
        raise StudyError("pilot_fraction: a share between 0 and 1")
    try:
        with transaction.atomic():
            study = Study.objects.create(name=name, taxonomy=taxonomy, description=description, overlap=overlap,
                                         pilot_fraction=pilot_fraction, seed=seed, created_by=created_by)
    except IntegrityError as exc:
        raise StudyError(f"name: a study named {name!r} exists already") from exc
    study.issues.set(issues)
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
    return membership
