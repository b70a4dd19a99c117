"""Who may see and do what in a study. The blindness rule lives here and nowhere else."""
from __future__ import annotations

from .models import Membership, Study


def role_in(user, study: Study) -> str | None:
    if not user.is_authenticated:
        return None
    return Membership.objects.filter(study=study, user=user).values_list("role", flat=True).first()


def is_lead(user, study: Study) -> bool:
    return role_in(user, study) == Membership.Role.LEAD


def can_label(user, study: Study) -> bool:
    return role_in(user, study) is not None


def can_view_study(user, study: Study) -> bool:
    return user.is_authenticated and (user.is_staff or can_label(user, study))


def can_view_all_labels(user, study: Study) -> bool:
    """DESIGN step 7: annotators are blind to each other; only the lead and admins see every label."""
    return user.is_authenticated and (user.is_staff or is_lead(user, study))


# Agreement figures and exports reveal other annotators' labels, so they follow the same rule.
can_view_agreement = can_view_all_labels
can_export = can_view_all_labels
