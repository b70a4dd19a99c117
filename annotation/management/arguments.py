"""What the management commands of every app take from their command line."""
from __future__ import annotations

from django.core.management.base import CommandError

from annotation.models import Study
from annotation.selectors.studies import study_named


def study_from(text: str) -> Study:
    """The study a command names by its name or id, or the command stops saying neither matched."""
    found = study_named(text)
    if found is None:
        raise CommandError(f"no study named {text!r}, and no study with that id")
    return found
