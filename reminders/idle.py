"""Queues left standing: an open round's queue with reports left that nobody has labeled from for
QUEUE_IDLE_DAYS. Its annotator hears that it waits, and the study's leads hear whose queue stands still (a
count of reports, never a label; for a lead who labels blind, the count their study page shows). A periodic
task looks; each idle spell is told of once, so a queue that stays idle does not repeat itself every day, and
one that moves and stops again is told of again."""
from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db.models import F, Max, OuterRef, Subquery
from django.db.models.functions import Coalesce, Greatest
from django.urls import reverse
from django.utils import timezone

from accounts import notices
from annotation.models import Assignment, Label, Queue
from annotation.permissions import labels_blind
from annotation.selectors.queue import sent_back
from annotation.selectors.studies import leads
from concord import jobs


def idle_queues(now=None) -> list[Queue]:
    """Open rounds' queues with reports left, not stopped, whose last label or skip (or the round's opening,
    when there is none) is QUEUE_IDLE_DAYS old or older; each with `last_moved`."""
    now = now or timezone.now()
    last_label = Label.objects.filter(round=OuterRef("round"), annotator=OuterRef("annotator")) \
        .values("round").annotate(at=Max("updated_at")).values("at")
    last_skip = Assignment.objects.filter(queue=OuterRef("pk"), skipped_at__isnull=False) \
        .values("queue").annotate(at=Max("skipped_at")).values("at")
    opened = F("round__opened_at")
    return list(Queue.objects.filter(round__closed_at__isnull=True, stopped_at__isnull=True, done__lt=F("total"),
                                     annotator__is_active=True)
                .annotate(last_moved=Greatest(Coalesce(Subquery(last_label), opened),
                                              Coalesce(Subquery(last_skip), opened)))
                .filter(last_moved__lte=now - timedelta(days=settings.QUEUE_IDLE_DAYS))
                .select_related("round__study", "annotator").order_by("pk"))


def tell_idle(now=None) -> int:
    """Tell of every idle queue not told of yet; the number of queues found idle."""
    found = idle_queues(now)
    for queue in found:
        study, since = queue.round.study, f"{queue.last_moved:%Y-%m-%d}"
        key = f"idle:{queue.pk}:{queue.last_moved:%Y%m%d%H%M%S}"
        left = queue.total - queue.done
        notices.notify([queue.annotator], "idle", key, {"study": study.name, "since": since, "left": left},
                       url=reverse("annotation:queue", args=[study.pk]), study_id=study.pk, once=True)
        back = None
        for lead in leads(study).exclude(pk=queue.annotator_id):
            shown, blind = left, labels_blind(lead, study)
            if blind:
                # A lead who labels blind is told what their study page shows: reports a codebook change sent
                # back count as labeled, or the count's rise after a retire would tell how many of this
                # annotator's labels used the retired category. A queue left only with those is not told of.
                back = sent_back(queue.round) if back is None else back
                shown -= back.get(queue.annotator_id, 0)
            if shown <= 0:
                continue
            notices.notify([lead], "stuck", key,
                           {"annotator": queue.annotator.username, "study": study.name, "since": since,
                            "left": shown},
                           url=reverse("annotation:study_detail" if blind else "annotation:annotators",
                                       args=[study.pk]),
                           study_id=study.pk, once=True)
    return len(found)


# Celery beat runs it (settings.CELERY_BEAT_SCHEDULE) on the statistics worker: a few queries.
tell_idle_task = jobs.task(tell_idle, queue="statistics")
