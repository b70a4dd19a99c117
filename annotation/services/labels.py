from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from concord import history, rows
from concord.audit import record
from concord.errors import FieldError
from ingest.models import Issue
from taxonomy.models import Category

from .. import sql
from ..models import Assignment, Label, Membership, Queue, Round, Study
from ..permissions import labels_blind, role_in
from ..summary_arms import arm_of


class LabelError(FieldError):
    """A label that breaks a codebook rule; `field` names the form field at fault."""


@dataclass(frozen=True)
class LabelInput:
    is_relevant: bool = True
    type_id: int | None = None
    theme_id: int | None = None
    sub_theme_id: int | None = None
    note: str = ""
    seconds: int | None = None  # from the report being shown to this save, when the page measured it
    # The version of the stored label the page showed (`version_of`): "" for none, None when the client does not
    # say (older API clients). A save made against another version is refused unless it changes nothing.
    version: str | None = None


def version_of(label: Label | None) -> str:
    """What a page says it was shown: the stored label's last change, to the microsecond."""
    return label.updated_at.isoformat() if label is not None else ""


def _is_version(label: Label, version: str) -> bool:
    """Whether `version` names the stored label's last change (as `version_of` or the API's `updated_at` wrote
    it: the same instant, whatever the time zone it is written in)."""
    try:
        shown = datetime.fromisoformat(version)
    except ValueError:
        return False
    return shown.tzinfo is not None and shown == label.updated_at


def _same_choice(label: Label, fields: dict) -> bool:
    """Whether storing `fields` would change nothing an annotator chose or wrote."""
    return (label.is_relevant == fields["is_relevant"] and label.type_id == _pk(fields["type"])
            and label.theme_id == _pk(fields["theme"]) and label.sub_theme_id == _pk(fields["sub_theme"])
            and label.note == fields["note"])


def _pk(category: Category | None) -> int | None:
    return category.pk if category is not None else None


def _validated(round: Round, data: LabelInput) -> dict:
    if not data.is_relevant:
        if data.type_id or data.theme_id or data.sub_theme_id:
            raise LabelError("type", _("a report marked not relevant takes no type, theme or sub-theme"))
        return {"is_relevant": False, "type": None, "theme": None, "sub_theme": None}
    if data.type_id is None:
        raise LabelError("type", _("choose a type, or mark the report not relevant"))
    if data.sub_theme_id and not data.theme_id:
        raise LabelError("sub_theme", _("a sub-theme needs its theme"))
    found = _chosen(round, [pk for pk in (data.type_id, data.theme_id, data.sub_theme_id) if pk])
    chain: list[Category | None] = []
    parent = None
    for pk, level, field in ((data.type_id, Category.Level.TYPE, "type"),
                             (data.theme_id, Category.Level.THEME, "theme"),
                             (data.sub_theme_id, Category.Level.SUB_THEME, "sub_theme")):
        category = found.get(pk) if pk else None
        if pk:
            _check_choice(field, pk, level, category, parent)
        chain.append(category)
        parent = category
    type_, theme, sub_theme = chain
    if theme is None and type_.n_children:
        raise LabelError("theme", _("choose a theme of %(name)s") % {"name": type_.name})
    return {"is_relevant": True, "type": type_, "theme": theme, "sub_theme": sub_theme}


def _chosen(round: Round, wanted: list[int]) -> dict[int, Category]:
    """The chosen categories by id, each with whether it has children (`n_children`), in one query."""
    found = {}
    for row in rows.fetch_all(sql.categories_with_children(len(wanted)), [*wanted, round.study.codebook_id]):
        category = rows.instance(Category, row)
        category.n_children = row[-1]
        found[category.pk] = category
    return found


def _check_choice(field: str, pk: int, level: str, category: Category | None, parent: Category | None) -> None:
    """A chosen id names a standing category of its level in the study's codebook, under the level above's."""
    if category is None or category.level != level:
        raise LabelError(field, _("no %(level)s with id %(id)s in this study's codebook")
                         % {"level": Category.Level(level).label.lower(), "id": pk})
    if category.retired_at is not None:
        raise LabelError(field, _("%(code)s %(name)s was retired from the codebook; choose again")
                         % {"code": category.code, "name": category.name})
    if parent is not None and category.parent_id != parent.pk:
        raise LabelError(field, _("%(code)s does not belong to %(parent)s")
                         % {"code": category.code, "parent": parent.code})


def _check_round(user, round: Round, role: str | None) -> None:
    if role is None:
        raise PermissionDenied(_("Only members of the study can label its reports."))
    if not round.is_open:
        raise LabelError("round", _("round %(number)s is closed; its labels can no longer change")
                         % {"number": round.number})
    if round.kind == Round.Kind.PILOT and role != Membership.Role.LEAD:
        raise PermissionDenied(_("Only the lead labels during the pilot."))
    study = round.study
    if (round.kind == Round.Kind.INDEPENDENT and role == Membership.Role.LEAD and study.lead_labels_blind
            and not labels_blind(user, study)):
        # A lead who can see everyone's labels (queue finished, or stopped) is no longer an independent rater.
        raise LabelError("round", _("you can see the others' labels now (your queue of this round is finished, or "
                                    "you stopped labeling), so your labels of this round can no longer change"))


@transaction.atomic
def stop_labeling(user, study, expected_round: int) -> Queue:
    """The lead stops labeling the independent round to see everything; their labels of the round are set
    aside from agreement and final labels from then on (they are kept, and history keeps them)."""
    if role_in(user, study) != Membership.Role.LEAD:
        raise PermissionDenied(_("Only the lead stops labeling to see everything; annotators label blind."))
    # The study row, as advance() takes it: stopping and closing the round at once happen one after the other,
    # and the round is read after the lock, not from the page's copy of the study.
    locked = Study.objects.select_for_update().get(pk=study.pk)
    round = Round.objects.filter(pk=locked.current_round_id).first()
    if round is None or round.number != expected_round or not round.is_open \
            or round.kind != Round.Kind.INDEPENDENT:
        raise LabelError("round", _("the study is no longer in independent round %(number)s; nothing was changed")
                         % {"number": expected_round})
    queue = Queue.objects.select_for_update().filter(round=round, annotator=user).first()
    if queue is None:
        raise LabelError("round", _("you have no queue in this round: you see everything already"))
    if queue.stopped_at is not None:
        raise LabelError("round", _("you stopped labeling this round already"))
    queue.stopped_at = timezone.now()
    queue.save(update_fields=["stopped_at"])
    record("stopped labeling to see everything", user, study, round=round.number)
    return queue


def _store(key: dict, fields: dict, revise: bool, version: str | None, came_back: bool) -> Label:
    """Insert the label, or lock and revise the one there is. A report not yet done in the queue has no label
    in the round, so the first submission is a plain insert; no savepoints, which cost a query each.

    A revision that changes nothing is not stored: a double Enter, or Enter on a label revisited unchanged, adds
    no version to history. A revision made against another version than the page showed (a second tab, a
    second press after the first one saved) is refused unless it changes nothing, so no label is overwritten
    unseen."""
    label = Label.objects.select_for_update().filter(**key).first() if revise else None
    if label is not None and not came_back and _same_choice(label, fields):
        return label
    if label is not None and version is not None and not _is_version(label, version):
        raise LabelError("version", _("your label of this report changed after this page showed it (it is now "
                                      "%(code)s, perhaps saved from another tab); nothing was saved. Press Enter "
                                      "again to replace it with the choice shown here") % {"code": label.code})
    if label is None:
        # The first label of a report, on every round trip: two plain statements instead of the ORM's insert
        # and simple_history's record (see concord.rows), a millisecond of CPU less.
        label = Label(**key, **fields)
        rows.insert(label)
        history.record_created(label)
        return label
    for name, value in fields.items():
        setattr(label, name, value)
    label.save()
    return label


def submit_label(user, round: Round, issue: Issue | int, data: LabelInput) -> Label:
    """Record the user's label for a report of their queue; a second submission revises it, and history keeps
    the first. Marking the report done in the queue and storing the label commit together or not at all."""
    study = round.study
    _check_round(user, round, role_in(user, study))
    issue_id = issue if isinstance(issue, int) else issue.pk
    # A browser sends a textarea's line breaks as CRLF while its page shows them as LF: the note is stored as shown.
    note = data.note.replace("\r\n", "\n").strip()
    fields = _validated(round, data) | {"note": note, "codebook_revision": study.codebook.revision}
    if data.seconds is not None:
        fields["seconds"] = data.seconds
    if study.summary_experiment:
        fields["summary_shown"] = arm_of(study, user.pk, issue_id)
    key = {"study_id": study.pk, "round": round, "issue_id": issue_id, "annotator": user}
    for attempt in range(2):
        try:
            with transaction.atomic():
                # The assignment row is locked first, so two tabs submitting the same report queue up here
                # and only the first one counts the report as done.
                mine = [round.pk, user.pk, issue_id, False, ""]
                first_time = bool(rows.execute(sql.first_done(), [True, *mine]))
                # A report a codebook change sent back has its old label: this submission revises it.
                came_back = not first_time and bool(rows.execute(sql.done_again(), [True, "", *mine]))
                if first_time or came_back:
                    rows.execute(sql.count_done(), [round.pk, user.pk])
                elif not Assignment.objects.filter(queue__round=round, queue__annotator=user,
                                                   issue_id=issue_id).exists():
                    raise LabelError("issue", _("report %(id)s is not in your queue for round %(number)s of %(study)s")
                                     % {"id": issue_id, "number": round.number, "study": study})
                return _store(key, fields, attempt > 0 or not first_time, data.version, came_back)
        except IntegrityError:
            # A label was there after all (a concurrent first submission won the insert): revise it instead.
            if attempt:
                raise
    raise AssertionError("unreachable")
