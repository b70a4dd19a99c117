"""Notices: what waits on a person, in the header and on their inbox page. The apps say what happened
(`notify`, `settle`); this module keeps one unread notice per thing per person, leaves out the kinds a person
switched off, and writes each out in the language of whoever reads it."""
from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import DateTimeField, F, Value
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from concord import levels
from concord.numbers import days_left

from .models import Notice, Preferences

# kind: (what a person switches on or off, the sentence a notice of that kind says)
KINDS = {
    "vote": (_("A proposal awaits your vote"),
             _("“%(proposal)s” under %(parent)s in %(study)s awaits your vote%(days_left)s.")),
    "ties": (_("Ties wait for your decision"),
             _("The reports of %(study)s still tied after the review wait for your decision.")),
    "comment": (_("A comment on a report you labeled"),
                _("%(author)s commented on %(report)s, which you labeled, in %(study)s.")),
    "idle": (_("Your queue has waited for days"),
             _("Nothing has been labeled from your queue in %(study)s since %(since)s; reports left: %(left)s.")),
    "stuck": (_("An annotator's queue stands still"),
              _("%(annotator)s has labeled nothing in %(study)s since %(since)s; reports left in their queue: "
                "%(left)s.")),
    "flagged": (_("A machine's seat is flagged"),
                _("%(rater)s agrees less with people on the sentinel reports of %(study)s than when it was given "
                  "a seat at the %(level)s level.")),
    "job_done": (_("A long job of yours finished"), _("%(job)s “%(name)s” finished.")),
    "job_failed": (_("A long job of yours failed"), _("%(job)s “%(name)s” failed; its page says why.")),
}

# Values kept as codes and named in the reader's language when the notice is read.
TERMS = {
    "level": levels.NAMES,
    "job": {"import": _("The import"), "machine": _("The machine run"), "summaries": _("The summaries")},
}


def notify(users: Iterable, kind: str, key: str, params: dict, url: str = "", study_id: int | None = None,
           once: bool = False) -> int:
    """Tell each of `users` (people, not ids) about one thing; a person with an unread notice of the same thing
    has it brought up to date instead. `once`: nobody is told twice of the same thing, even after reading it
    (what a periodic watch finds again at every look). Returns how many were told."""
    assert kind in KINDS, kind
    people = {u.pk: u for u in users}
    off = _switched_off(people, kind)
    if once:
        off |= set(Notice.objects.filter(key=key, user_id__in=people).values_list("user_id", flat=True))
    now, told = timezone.now(), 0
    fields = {"kind": kind, "params": params, "url": url, "study_id": study_id, "created_at": now, "settled_at": None}
    for pk in sorted(set(people) - off):
        unread = Notice.objects.filter(user_id=pk, key=key, read_at__isnull=True)
        if not unread.update(**fields):
            try:
                with transaction.atomic():
                    Notice.objects.create(user_id=pk, key=key, **fields)
            except IntegrityError:
                # Told of the same thing at the same moment by another request (two comments at once): its
                # notice is there now, and this one brings it up to date.
                unread.update(**fields)
        told += 1
    return told


def _switched_off(people: dict, kind: str) -> set[int]:
    # One row per person told, read whole: SQLite has no containment lookup on JSON.
    return {pk for pk, kinds in Preferences.objects.filter(user_id__in=people).values_list("user_id", "notices_off")
            if kind in (kinds or [])}


def settle(key: str, user=None) -> int:
    """The thing is done (a vote cast, a proposal closed): its notices, or `user`'s, are read and say that it is
    settled, those read before too, so that "awaits your vote" is never left standing after the vote."""
    now = timezone.now()
    notices = Notice.objects.filter(key=key, settled_at__isnull=True)
    if user is not None:
        notices = notices.filter(user=user)
    return notices.update(read_at=Coalesce(F("read_at"), Value(now, output_field=DateTimeField())), settled_at=now)


def text(notice: Notice) -> str:
    """The notice's sentence in the active language; a value it lacks reads as "?"."""
    sentence = str(KINDS[notice.kind][1]) if notice.kind in KINDS else notice.kind
    values = {k: str(TERMS[k].get(v, v) if k in TERMS and isinstance(v, str) else v)
              for k, v in (notice.params or {}).items()}
    values["days_left"] = _days_left(values.get("vote_by"))

    class Missing(dict):
        def __missing__(self, name):
            return "?"

    return sentence % Missing(values)


def _days_left(vote_by: str | None) -> str:
    """", 3 days left" to the end of a vote, counted at reading (a notice is read days after it was written)."""
    try:
        end = datetime.fromisoformat(vote_by) if vote_by else None
    except (TypeError, ValueError):
        end = None
    if end is None:
        return ""
    days = days_left(end, timezone.now())
    if not days:
        return gettext(": its vote has ended")
    return ngettext(", %(n)s day left", ", %(n)s days left", days) % {"n": days}


def unread(user) -> int:
    return Notice.objects.filter(user=user, read_at__isnull=True).count()


def read_up_to(user, newest: int) -> int:
    """Mark as read the notices the page showed (ids up to `newest`); one that came after stays unread."""
    return Notice.objects.filter(user=user, read_at__isnull=True, pk__lte=newest).update(read_at=timezone.now())


def switch(user, off: set[str], email_digest: bool = True) -> None:
    Preferences.objects.update_or_create(user=user, defaults={"notices_off": sorted(off & set(KINDS)),
                                                              "email_digest": email_digest})


def switched_off(user) -> set[str]:
    return set(Preferences.objects.filter(user=user).values_list("notices_off", flat=True).first() or [])


def digests_on(user) -> bool:
    return Preferences.objects.filter(user=user).values_list("email_digest", flat=True).first() is not False


def job_finished(sender, job, failed: bool, subject, **kwargs) -> None:
    """A long job's owner hears that it ended (concord.jobs.job_finished): one unread notice per job."""
    owner = get_user_model().objects.filter(pk=job.created_by_id, is_active=True)
    notify(owner, "job_failed" if failed else "job_done", f"job:{job._meta.label_lower}:{job.pk}",
           {"job": subject.job, "name": subject.name}, url=subject.url, study_id=subject.study_id)
