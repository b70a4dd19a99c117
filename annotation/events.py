"""What happens in a study that someone outside it may hear of, told as a signal: the webhooks app listens, and
whatever else may one day (a mail relay, a chat bridge) can listen beside it without the study's rules knowing.

The signal is sent inside the transaction of what happened, so a listener that writes a row (a message to send)
writes it in that transaction: both are kept, or neither."""
from __future__ import annotations

from django.dispatch import Signal

# Every event a study tells of. What each carries is counts, names and figures, never a label or a note.
EVENTS = ("label.saved", "tie.created", "proposal.decided", "round.closed", "agreement.updated",
          "machine.flagged")

# Sent with study=, event= (one of EVENTS) and data= (a dict that can be written as JSON).
study_event = Signal()


def tell(study, event: str, data: dict) -> None:
    assert event in EVENTS, event
    study_event.send(sender=type(study), study=study, event=event, data=data)
