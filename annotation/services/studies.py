from __future__ import annotations

from django.db import transaction

from ..models import Membership, Round, Study


@transaction.atomic
def create_study(*, name: str, taxonomy, issues, lead, annotators=(), description: str = "") -> Study:
    """A study starts with its members and one open independent round."""
    study = Study.objects.create(name=name, taxonomy=taxonomy, description=description)
    study.issues.set(issues)
    Membership.objects.create(study=study, user=lead, role=Membership.Role.LEAD)
    Membership.objects.bulk_create(
        [Membership(study=study, user=u, role=Membership.Role.ANNOTATOR) for u in annotators if u != lead]
    )
    Round.objects.create(study=study, number=1, kind=Round.Kind.INDEPENDENT)
    return study
