"""Who may see and do what in a study. The blindness rule lives here and nowhere else."""
from __future__ import annotations

from .models import Membership, Study

# DESIGN step 7: annotators are blind to each other until the independent round closes.
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


def can_view_all_labels(user, study: Study) -> bool:
    """The lead and admins always; members once the independent round has closed; nobody else."""
    if not user.is_authenticated:
        return False
    if user.is_staff or is_lead(user, study):
        return True
    return study.phase not in BLIND_PHASES and can_label(user, study)


# Agreement figures reveal other annotators' labels, so they follow the same rule; history and the corpus
# export are the lead's and the admins' tools.
can_view_agreement = can_view_all_labels
can_export = can_manage
can_view_history = can_manage
