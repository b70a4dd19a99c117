"""Whether a member has read the study's instructions: new ones open by themselves on the next visit. Both read
the codebook's row afresh, as the lead may have changed the instructions a moment ago."""
from __future__ import annotations

from django.db.models import F
from django.db.models.functions import Greatest

from taxonomy.models import Codebook

from ..models import Membership, Study


def instructions_unread(user, study: Study) -> bool:
    return (Membership.objects.filter(study=study, user=user,
                                      instructions_seen__lt=F("study__codebook__instructions_revision"))
            .exclude(study__codebook__instructions="").exists())


def mark_instructions_read(user, study: Study, revision: int) -> None:
    """The member has read the instructions of `revision` (the one the page showed). Only ever moves forward, so
    a second click, or an old page's, changes nothing; a revision past the codebook's counts as its own."""
    current = Codebook.objects.filter(pk=study.codebook_id).values_list("instructions_revision", flat=True).first()
    Membership.objects.filter(study=study, user=user).update(
        instructions_seen=Greatest("instructions_seen", min(revision, current or 0)))
