"""Unread notices by e-mail: at most one digest a day per person (NOTICE_DIGEST_HOURS), in their language, sent
by a periodic task (Celery beat). A notice goes in one digest only; a person who read it on the site first gets
no e-mail of it."""
from __future__ import annotations

import logging
import smtplib
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import send_mail
from django.db import transaction
from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.translation import ngettext

from concord.jobs import task

from .models import Notice, Preferences
from .notices import text

log = logging.getLogger(__name__)


def due(now=None) -> list[int]:
    """The people a digest is due to now: unread notices not e-mailed yet, an address, digests on, and none sent
    within NOTICE_DIGEST_HOURS."""
    now = now or timezone.now()
    waiting = Notice.objects.filter(read_at__isnull=True, emailed_at__isnull=True).values("user_id")
    people = get_user_model().objects.filter(pk__in=waiting, is_active=True).exclude(email="")
    recent = Preferences.objects.filter(
        last_digest_at__gt=now - timedelta(hours=settings.NOTICE_DIGEST_HOURS)).values("user_id")
    quiet = Preferences.objects.filter(email_digest=False).values("user_id")
    return list(people.exclude(pk__in=recent).exclude(pk__in=quiet).order_by("pk").values_list("pk", flat=True))


def send_digest(user_id: int, now=None) -> int:
    """One person's digest, if it is still due; the number of notices it carried. The person's preferences row
    is locked, so two runs at once send it once; a mail server that refuses it leaves everything unsent."""
    now = now or timezone.now()
    with transaction.atomic():
        prefs, _ = Preferences.objects.get_or_create(user_id=user_id)
        prefs = Preferences.objects.select_for_update().select_related("user").get(pk=prefs.pk)
        if not prefs.email_digest or (prefs.last_digest_at and
                                      now - prefs.last_digest_at < timedelta(hours=settings.NOTICE_DIGEST_HOURS)):
            return 0
        notices = list(Notice.objects.filter(user_id=user_id, read_at__isnull=True, emailed_at__isnull=True)
                       .order_by("created_at", "pk"))
        if not notices or not prefs.user.email or not prefs.user.is_active:
            return 0
        with translation.override(prefs.language or settings.LANGUAGE_CODE):
            lines = [(text(n), settings.SITE_URL.rstrip("/") + n.url if n.url else "") for n in notices]
            subject = ngettext("Concord: %(n)s thing waits on you", "Concord: %(n)s things wait on you",
                               len(notices)) % {"n": len(notices)}
            body = render_to_string("accounts/notice_digest.txt", {"user": prefs.user, "lines": lines,
                                                          "inbox": settings.SITE_URL.rstrip("/") + "/notices/"})
        send_mail(subject, body, settings.DEFAULT_FROM_EMAIL, [prefs.user.email])
        Notice.objects.filter(pk__in=[n.pk for n in notices]).update(emailed_at=now)
        prefs.last_digest_at = now
        prefs.save(update_fields=["last_digest_at"])
        return len(notices)


def send_digests() -> int:
    """Every digest due now; the number of e-mails sent. A mail server that is down or refuses one leaves that
    person's notices unsent for the next run, and the others are still tried."""
    sent = 0
    for pk in due():
        try:
            sent += bool(send_digest(pk))
        except (OSError, smtplib.SMTPException) as exc:
            log.warning("the notice digest of user %s was not sent: %r", pk, exc)
    return sent


# Celery beat sends it hourly (settings.CELERY_BEAT_SCHEDULE); the statistics worker, which also takes Celery's
# default queue, runs it: a few queries and e-mails, no statistics.
send_digests_task = task(send_digests, queue="statistics")
