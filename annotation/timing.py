"""How long a report was in front of its annotator: the labeling page carries a signed "shown at" token, and the
save measures from it. Server time at both ends, so a wrong clock in the browser changes nothing, and signed, so a
page cannot claim another report's time."""
from __future__ import annotations

import time

from django.core import signing

_SIGNER = signing.Signer(salt="annotation.timing.shown")
# Longer than this, the annotator walked away: the time says nothing about the report.
LONGEST = 6 * 3600


def shown_token(issue_id: int) -> str:
    return _SIGNER.sign(f"{issue_id}:{time.time():.3f}")


def seconds_since_shown(token: str, issue_id: int) -> int | None:
    """Whole seconds since the page showed `issue_id`; None for a missing, altered or foreign token."""
    try:
        shown_id, _, at = _SIGNER.unsign(token[:200]).partition(":")
        elapsed = time.time() - float(at)
    except (signing.BadSignature, ValueError):
        return None
    # The token keeps milliseconds: a save within the same millisecond may read as a hair below zero.
    if shown_id != str(issue_id) or not -1 <= elapsed <= LONGEST:
        return None
    return max(0, round(elapsed))
