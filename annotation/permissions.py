"""Who may see and do what in a study. The blindness rule lives here and nowhere else."""
from __future__ import annotations

from concord import rows

from . import sql
from .models import Membership, Study

# Annotators are blind to each other until the independent round closes.
BLIND_PHASES = {Study.Phase.PILOT, Study.Phase.INDEPENDENT}


def role_in(user, study: Study) -> str | None:
    if not user.is_authenticated:
        return None
    # Views that loaded the study with its role annotated (access.get_study_for) save a query here.
    cached = getattr(study, "_role_of", None)
    if cached is not None and cached[0] == user.pk:
        return cached[1]
    return Membership.objects.filter(study=study, user=user).values_list("role", flat=True).first()


def is_lead(user, study: Study) -> bool:
    return role_in(user, study) == Membership.Role.LEAD


def can_manage(user, study: Study) -> bool:
    """Set-up, invitations, phases: the study's lead or an admin."""
    return user.is_authenticated and (user.is_staff or is_lead(user, study))


def can_label(user, study: Study) -> bool:
    return role_in(user, study) is not None


def can_view_study(user, study: Study) -> bool:
    return user.is_authenticated and (user.is_staff or can_label(user, study))


def labels_blind(user, study: Study) -> bool:
    """Whether this user's own labels must stay independent of everyone else's right now: an annotator's while
    the study is in its pilot or independent round; the lead's (when the study says the lead labels blind) while
    their own queue of the independent round is unfinished and they have not stopped labeling. Admins who are
    members follow their role: blind means blind for every rater."""
    if study.phase not in BLIND_PHASES:
        return False
    role = role_in(user, study)
    if role == Membership.Role.ANNOTATOR:
        return True
    if role != Membership.Role.LEAD or study.phase != Study.Phase.INDEPENDENT or not study.lead_labels_blind:
        return False
    # Not cached on the study: the lead's own submission can finish the queue in the middle of a request. Asked
    # on every label a blind lead saves: plain SQL (annotation.sql), the ORM's EXISTS cost milliseconds of CPU.
    return rows.fetch_one(sql.queue_open(), [study.current_round_id, user.pk]) is not None


def can_view_all_labels(user, study: Study) -> bool:
    """Admins and the study's members, unless they are labeling blind (see labels_blind)."""
    return can_view_study(user, study) and not labels_blind(user, study)


def can_manage_seeing_labels(user, study: Study) -> bool:
    """The lead's and the admins' tools that show or compute from everyone's labels (history, exports,
    adjudication, subset comparisons): not while the lead labels blind."""
    return can_manage(user, study) and not labels_blind(user, study)


# Agreement figures reveal other annotators' labels, so they follow the same rule.
can_view_agreement = can_view_all_labels
can_export = can_view_history = can_manage_seeing_labels
