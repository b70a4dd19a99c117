"""Webhooks: a study's events told to addresses outside Concord, signed with the Standard Webhooks scheme (the
`standardwebhooks` package signs; a receiver checks with the same package or any other implementation).

A message is written as a delivery row in the transaction of what happened, and sent after it commits: at
once, then again after growing waits (RETRY_AFTER, about a day in all), then kept as dead for the admin page
to send again. A periodic task sends what is due, so a message outlives a worker or a receiver that is down.

What a message carries is counts, names and figures: never a label or a note. Saved labels are sent as a count
per study every few minutes (`label.saved`), and agreement only for a closed round, since a lab's chat may be
read by the annotators of a round still blind."""
from __future__ import annotations

import json
import logging
import secrets
import uuid
from datetime import timedelta
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.db.models import Sum
from django.utils import timezone

from annotation.events import EVENTS
from annotation.models import Label, Queue, Round, Study
from concord import jobs
from concord.audit import record
from integrations.guard import AddressGuard, Forbidden, networks
from integrations.webhooks import post_signed

from .models import Webhook, WebhookDelivery

log = logging.getLogger(__name__)

# Waits before each retry: 5 s, 5 min, 30 min, 2 h, 5 h, 8 h, 8 h (23 h 35 min after the first try); then dead.
RETRY_AFTER = (5, 300, 1800, 7200, 18000, 28800, 28800)
# How long a sender holds a delivery it took before another may take it (a worker killed mid-send).
LEASE_SECONDS = 60


class WebhookError(ValueError):
    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field


def new_secret() -> str:
    return "whsec_" + secrets.token_urlsafe(24).replace("-", "+").replace("_", "/")


def guard() -> AddressGuard:
    return AddressGuard(networks(settings.WEBHOOK_ALLOWED_NETWORKS))


def check_url(url: str) -> str:
    """An address a lead typed, if messages may go there: http(s), public (or in WEBHOOK_ALLOWED_NETWORKS)."""
    url = url.strip()
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise WebhookError("url", "give an http:// or https:// address")
    try:
        guard().addresses(parts.hostname, parts.port or (443 if parts.scheme == "https" else 80))
    except Forbidden as exc:
        raise WebhookError("url", f"messages may not go there: {exc}") from None
    return url


def add(study: Study, url: str, events: list[str], by) -> Webhook:
    unknown = sorted(set(events) - set(EVENTS))
    if unknown:
        raise WebhookError("events", f"no such event: {', '.join(unknown)[:200]}")
    with transaction.atomic():
        hook = Webhook.objects.create(study=study, url=check_url(url), secret=new_secret(),
                                      events=sorted(set(events)), created_by=by)
        record("webhook added", by, study, **_named(hook), events=hook.events)
    return hook


def _named(hook: Webhook) -> dict:
    # The log names a webhook by its id and host, never its whole address: a chat service's webhook address
    # carries its secret in the path.
    return {"webhook": hook.pk, "host": urlsplit(hook.url).hostname or ""}


def switch(hook: Webhook, shown_on: bool, by) -> bool:
    """Switch a webhook off (it was shown on) or on; False when it was switched already (a double click, or
    two managers at once), which changes nothing."""
    with transaction.atomic():
        if not Webhook.objects.filter(pk=hook.pk, active=shown_on).update(active=not shown_on):
            return False
        record("webhook switched off" if shown_on else "webhook switched on", by, hook.study_id, **_named(hook))
    return True


def emit(study: Study, event: str, data: dict) -> int:
    """Write the message for every active webhook of the study that takes `event`; each is sent once the
    transaction commits. The number written."""
    assert event in EVENTS, event
    return _write([h for h in Webhook.objects.filter(study=study, active=True) if _takes(h, event)], event,
                  {"study": {"id": study.pk, "name": study.name}, **data})


def on_study_event(sender, study: Study, event: str, data: dict, **kwargs) -> None:
    """annotation.events.study_event's listener."""
    emit(study, event, data)


def _takes(hook: Webhook, event: str) -> bool:
    return not hook.events or event in hook.events


def _write(hooks: list[Webhook], event: str, data: dict, now=None) -> int:
    if not hooks:
        return 0
    now = now or timezone.now()
    # The body is kept as sent: the signature covers these bytes, and a retry sends the same ones.
    body = json.dumps({"type": event, "timestamp": now.isoformat(), "data": data}, ensure_ascii=False,
                      separators=(",", ":"))
    made = WebhookDelivery.objects.bulk_create([
        WebhookDelivery(webhook=hook, message_id=f"msg_{uuid.uuid4().hex}", event=event, next_attempt_at=now,
                        body=body) for hook in hooks])
    ids = [d.pk for d in made]
    transaction.on_commit(lambda: _send_soon(ids))
    return len(made)


def _send_soon(ids: list[int]) -> None:
    for pk in ids:
        try:
            jobs.send(deliver_task, pk)
        except jobs.QueueUnavailable:
            return  # the periodic task sends them when the queue is back


def _take(pk: int, now) -> WebhookDelivery | None:
    # One UPDATE: of two senders at once, one takes it; the lease lets another take it if this one dies.
    if not WebhookDelivery.objects.filter(pk=pk, next_attempt_at__lte=now).update(
            next_attempt_at=now + timedelta(seconds=LEASE_SECONDS)):
        return None
    return WebhookDelivery.objects.select_related("webhook").get(pk=pk)


def deliver(pk: int, now=None) -> bool | None:
    """Send one delivery if it is due: True when the receiver took it (a 2xx), False when it is to be tried
    again or is dead now, None when it was not due (sent already, dead, or being sent)."""
    now = now or timezone.now()
    delivery = _take(pk, now)
    if delivery is None:
        return None
    hook = delivery.webhook
    status, error = None, ""
    if not hook.active:
        error = "the webhook was switched off"
    else:
        status, error = post_signed(hook.url, secret=hook.secret, message_id=delivery.message_id,
                                    body=delivery.body, sent_at=timezone.now(), guard=guard())
    attempts = delivery.attempts + 1
    fields = {"attempts": attempts, "last_status": status, "last_error": error[:500]}
    if not error:
        fields |= {"delivered_at": now, "next_attempt_at": None}
    elif attempts > len(RETRY_AFTER):
        fields |= {"dead_at": now, "next_attempt_at": None}
    else:
        fields["next_attempt_at"] = now + timedelta(seconds=RETRY_AFTER[attempts - 1])
    WebhookDelivery.objects.filter(pk=pk).update(**fields)
    if error:
        log.info("webhook delivery %s (%s) failed, attempt %s: %s", delivery.message_id, delivery.event, attempts,
                 error)
    return not error


def send_again(delivery: WebhookDelivery, by=None) -> bool:
    """A dead delivery is tried again from the start, with the same message id (a receiver that took it after
    all can tell). False when it was not dead (sent, or being tried: a double click)."""
    with transaction.atomic():
        if not WebhookDelivery.objects.filter(pk=delivery.pk, dead_at__isnull=False).update(
                dead_at=None, attempts=0, next_attempt_at=timezone.now(), last_error=""):
            return False
        hook = delivery.webhook
        record("webhook message sent again", by, hook.study_id, **_named(hook), message=str(delivery.message_id),
               event=delivery.event)
    return True


def count_labels(now=None) -> int:
    """`label.saved` for every study whose webhooks take it: how many labels were saved since the last message,
    and, but in the independent round, the round's progress; counts only. The number of messages written."""
    now = now or timezone.now()
    written = 0
    for hook in Webhook.objects.filter(active=True).select_related("study__current_round"):
        if not _takes(hook, "label.saved"):
            continue
        since = hook.labels_counted_to or hook.created_at
        if now - since < timedelta(minutes=settings.WEBHOOK_LABEL_MINUTES):
            continue  # a count every few minutes, not a message per label
        round = hook.study.current_round
        saved = Label.objects.filter(study_id=hook.study_id, updated_at__gt=since, updated_at__lte=now).count()
        if saved and round is not None:
            data = {"study": {"id": hook.study_id, "name": hook.study.name},
                    "round": {"number": round.number, "kind": round.kind}, "saved": saved,
                    "since": since.isoformat(), "until": now.isoformat()}
            # The independent round's progress is not told: its pages hide it from a lead who labels blind, and
            # a lab's chat is read by the people still labeling. How many labels were saved is.
            if round.kind != Round.Kind.INDEPENDENT:
                progress = Queue.objects.filter(round=round).aggregate(done=Sum("done"), total=Sum("total"))
                data |= {"done": progress["done"] or 0, "total": progress["total"] or 0}
            written += _write([hook], "label.saved", data, now)
        Webhook.objects.filter(pk=hook.pk).update(labels_counted_to=now)
    return written


def send_due(now=None) -> int:
    """Count saved labels into messages, then send every delivery that is due; the number the receivers took."""
    now = now or timezone.now()
    count_labels(now)
    due = WebhookDelivery.objects.filter(next_attempt_at__lte=now).order_by("next_attempt_at", "pk") \
        .values_list("pk", flat=True)[:500]
    return sum(bool(deliver(pk, now)) for pk in list(due))


deliver_task = jobs.task(deliver, queue="statistics")
# Celery beat runs it every minute (settings.CELERY_BEAT_SCHEDULE).
send_due_task = jobs.task(send_due, queue="statistics")
