"""The annotators' dashboard: per annotator, pace (labels per day, median seconds per report), skips with their
reasons, revisions, agreement with the others over time, and who is stuck, slow, fast or drifting. It reads
everyone's labels and times, so it answers only those the blind rule lets see them (the lead who is not labeling
blind, admins)."""
from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from statistics import median

from django.contrib.auth import get_user_model
from django.db.models import Count, Max
from django.db.models.functions import TruncDate
from django.utils import timezone
from django.utils.translation import gettext as _

from ..models import Assignment, Label, Membership, Queue, Round, Study
from ..permissions import can_manage_seeing_labels

DAYS = 14  # the pace chart's span
STUCK_AFTER = dt.timedelta(days=3)  # work left and no label for this long
SKIPS_STUCK = 5  # open skips that say someone is stuck on reports they cannot label
# Against the middle annotator's median time: this many times slower or faster is worth a look.
PACE_FACTOR = 2.0
# Agreement in the latest week this far below one's own overall rate (on enough pairs) is drift.
DRIFT, DRIFT_PAIRS = 0.15, 10


@dataclass
class AnnotatorRow:
    username: str
    role: str
    done: int = 0
    total: int = 0
    per_day: list[tuple[dt.date, int]] = field(default_factory=list)
    median_seconds: float | None = None
    timed: int = 0
    skips: int = 0
    skip_reasons: list[tuple[str, int]] = field(default_factory=list)
    revisions: int = 0
    agreement: float | None = None  # share of agreeing pairs with the other annotators' labels (type and theme)
    pairs: int = 0
    by_week: list[tuple[str, float | None, int]] = field(default_factory=list)  # (ISO week, share, pairs)
    last_label: dt.datetime | None = None
    flags: list[str] = field(default_factory=list)  # "stuck: …", "slow: …", "fast: …", "drifting: …"


def _agreement(labels) -> tuple[dict, dict]:
    """Per annotator, and per annotator and ISO week of their label: [agreeing pairs, pairs] with the others'
    labels of the same reports."""
    by_issue = defaultdict(list)
    for annotator_id, issue_id, key, day, _took in labels:
        by_issue[issue_id].append((annotator_id, key, day))
    overall: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    weekly: dict[int, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    weeks: dict[dt.date, str] = {}
    for rows in by_issue.values():
        for annotator_id, key, day in rows:
            others = [k for a, k, _ in rows if a != annotator_id]
            agree = sum(k == key for k in others)
            if day not in weeks:
                year, week, _ = day.isocalendar()
                weeks[day] = f"{year}-W{week:02d}"
            for bucket in (overall[annotator_id], weekly[annotator_id][weeks[day]]):
                bucket[0] += agree
                bucket[1] += len(others)
    return overall, weekly


def _pace_of(labels: list) -> tuple[dict[int, Counter], dict[int, list[int]]]:
    """Each annotator's labels per day, and the seconds each timed label took."""
    per_day: dict[int, Counter] = defaultdict(Counter)
    seconds: dict[int, list[int]] = defaultdict(list)
    for annotator_id, _issue, _key, day, took in labels:
        per_day[annotator_id][day] += 1
        if took is not None:
            seconds[annotator_id].append(took)
    return per_day, seconds


def _skips(round: Round) -> dict[int, Counter]:
    """Each annotator's reports skipped and not labeled since, by reason."""
    skips: dict[int, Counter] = defaultdict(Counter)
    for annotator_id, reason in Assignment.objects.filter(queue__round=round, skipped=True, done=False).values_list(
            "queue__annotator_id", "skip_reason"):
        skips[annotator_id][reason or "(no reason)"] += 1
    return skips


def annotator_rows(viewer, study: Study, round: Round | None, *, now: dt.datetime | None = None) \
        -> list[AnnotatorRow]:
    if round is None or not can_manage_seeing_labels(viewer, study):
        return []
    now = now or timezone.now()
    today = timezone.localtime(now).date()
    days = [today - dt.timedelta(days=n) for n in range(DAYS - 1, -1, -1)]
    roles = dict(Membership.objects.filter(study=study).values_list("user_id", "role"))
    queues = {q.annotator_id: q for q in Queue.objects.filter(round=round)}
    # The day of each label in the site's time zone, from the database: a date per row, not a timestamp to
    # convert (at 280,000 labels the conversions were most of the page's time).
    rows = Label.objects.filter(round=round).values_list("annotator_id", "issue_id", "is_relevant", "type_id",
                                                         "theme_id", TruncDate("created_at"), "seconds")
    labels = [(a, i, (rel, t, th), day, took) for a, i, rel, t, th, day, took in rows.iterator(5000)]
    last = dict(Label.objects.filter(round=round).order_by().values("annotator_id").annotate(at=Max("created_at"))
                .values_list("annotator_id", "at"))
    names = dict(get_user_model().objects.filter(pk__in=set(last) | set(queues)).values_list("pk", "username"))
    overall, weekly = _agreement(labels)
    per_day, seconds = _pace_of(labels)
    skips = _skips(round)
    revisions = dict(Label.history.filter(round_id=round.pk, history_type="~").values_list("annotator_id")
                     .annotate(n=Count("history_id")).values_list("annotator_id", "n"))
    result = []
    for annotator_id in sorted(names, key=lambda a: names[a]):
        queue = queues.get(annotator_id)
        agree, pairs = overall.get(annotator_id, (0, 0))
        result.append(AnnotatorRow(
            username=names[annotator_id], role=roles.get(annotator_id, ""),
            done=queue.done if queue else 0, total=queue.total if queue else 0,
            per_day=[(day, per_day[annotator_id][day]) for day in days],
            median_seconds=median(seconds[annotator_id]) if seconds[annotator_id] else None,
            timed=len(seconds[annotator_id]),
            skips=sum(skips[annotator_id].values()), skip_reasons=skips[annotator_id].most_common(),
            revisions=revisions.get(annotator_id, 0),
            agreement=agree / pairs if pairs else None, pairs=pairs,
            by_week=[(week, a / p if p else None, p) for week, (a, p) in sorted(weekly[annotator_id].items())],
            last_label=last.get(annotator_id)))
    _flag(result, now, round)
    return result


def _flag(rows: list[AnnotatorRow], now: dt.datetime, round: Round) -> None:
    medians = [r.median_seconds for r in rows if r.median_seconds is not None]
    middle = median(medians) if len(medians) >= 2 else None
    for row in rows:
        for flag in (_stuck(row, now, round), _pace(row, middle), _drift(row)):
            if flag:
                row.flags.append(flag)


def _stuck(row: AnnotatorRow, now: dt.datetime, round: Round) -> str | None:
    left = row.total - row.done
    if left <= 0 or not round.is_open:
        return None
    since = row.last_label or round.opened_at
    if since is not None and now - since >= STUCK_AFTER:
        if row.last_label is None:
            return _("stuck: no label yet, %(left)s left") % {"left": left}
        return _("stuck: no label for %(days)s days, %(left)s left") % {"days": (now - since).days, "left": left}
    if row.skips >= SKIPS_STUCK:
        return _("stuck: %(n)s reports skipped") % {"n": row.skips}
    return None


def _pace(row: AnnotatorRow, middle: float | None) -> str | None:
    if not middle or row.median_seconds is None:
        return None
    pace = {"seconds": f"{row.median_seconds:.0f}", "middle": f"{middle:.0f}"}
    if row.median_seconds >= PACE_FACTOR * middle:
        return _("slow: %(seconds)s s per report, the middle is %(middle)s s") % pace
    if row.median_seconds * PACE_FACTOR <= middle:
        return _("fast: %(seconds)s s per report, the middle is %(middle)s s") % pace
    return None


def _drift(row: AnnotatorRow) -> str | None:
    weeks = [(w, share, p) for w, share, p in row.by_week if share is not None]
    if row.agreement is not None and weeks and weeks[-1][2] >= DRIFT_PAIRS and len(weeks) > 1 \
            and weeks[-1][1] <= row.agreement - DRIFT:
        return (_("drifting: %(week)s agreement in %(when)s, %(overall)s overall")
                % {"week": f"{weeks[-1][1]:.0%}", "when": weeks[-1][0], "overall": f"{row.agreement:.0%}"})
    return None
