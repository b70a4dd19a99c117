"""One-time, expiring invitation links: volunteers join a study and choose their own password."""
from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from concord.audit import record

from ..models import Invitation, Membership, Study
from ..permissions import can_manage
from .studies import add_member

DEFAULT_DAYS = 14


class InvitationError(ValueError):
    """A link that cannot be used: unknown, used, expired or revoked."""


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def invite(study: Study, by, role: str = Membership.Role.ANNOTATOR, days: int = DEFAULT_DAYS,
           note: str = "") -> tuple[Invitation, str]:
    """A new invitation and its token; the token is shown once and only its hash is kept."""
    if not can_manage(by, study):
        raise PermissionDenied("Only the study's lead or an admin invites people.")
    if not 1 <= days <= 90:
        raise InvitationError("days: an invitation lasts between 1 and 90 days")
    token = secrets.token_urlsafe(32)
    invitation = Invitation.objects.create(study=study, role=role, token_hash=_hash(token), created_by=by,
                                           expires_at=timezone.now() + timedelta(days=days), note=note.strip())
    record("invitation made", by, study, invitation=invitation.pk, role=role, days=days)
    return invitation, token


def usable(token: str) -> Invitation:
    invitation = Invitation.objects.select_related("study").filter(token_hash=_hash(token)).first()
    if invitation is None:
        raise InvitationError(_("This invitation link is not valid. Ask the study's lead for a new one."))
    if invitation.accepted_at is not None:
        raise InvitationError(_("This invitation link has been used already; each link works once."))
    if invitation.revoked_at is not None:
        raise InvitationError(_("This invitation link was withdrawn by the study's lead."))
    if invitation.expires_at <= timezone.now():
        raise InvitationError(_("This invitation link has expired. Ask the study's lead for a new one."))
    return invitation


@transaction.atomic
def accept(token: str, *, user=None, username: str = "", password: str = ""):
    """Join the invitation's study as `user`, or as a new account made here. Returns the user.

    The invitation row is locked, so a link opened in two tabs makes one member, not two.
    """
    invitation = usable(token)
    invitation = Invitation.objects.select_for_update().get(pk=invitation.pk)
    if invitation.accepted_at is not None:
        raise InvitationError(_("This invitation link has been used already; each link works once."))
    if user is None:
        user = get_user_model().objects.create_user(username=username, password=password)
    add_member(invitation.study, user, invitation.role)
    invitation.accepted_at = timezone.now()
    invitation.accepted_by = user
    invitation.save(update_fields=["accepted_at", "accepted_by"])
    record("invitation used", user, invitation.study, invitation=invitation.pk, role=invitation.role)
    return user


def revoke(invitation: Invitation, by) -> None:
    if not can_manage(by, invitation.study):
        raise PermissionDenied("Only the study's lead or an admin withdraws invitations.")
    if Invitation.objects.filter(pk=invitation.pk, accepted_at__isnull=True).update(revoked_at=timezone.now()):
        record("invitation withdrawn", by, invitation.study, invitation=invitation.pk)
