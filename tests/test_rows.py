"""The labeling round trip's hand-written reads (concord.rows) give what the ORM gives, on SQLite and PostgreSQL:
the same instances, field by field, with the database's converters applied (booleans, dates, JSON)."""
from __future__ import annotations

import datetime

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.access import load_study
from annotation.models import Assignment, Membership, Queue, Study
from annotation.selectors.queue import next_assignment, progress_for
from annotation.services.queues import skip
from concord.auth import UserRowBackend
from concord.textcheck import INT64_MAX
from ingest.models import Issue, Source, Summary
from ingest.sql import latest_summary
from tests.factories import label_with, make_issue

pytestmark = pytest.mark.django_db


def _values(instance) -> dict:
    return {field.attname: getattr(instance, field.attname) for field in instance._meta.concrete_fields}


def _same(fast, slow) -> None:
    assert type(fast) is type(slow)
    assert _values(fast) == _values(slow)
    assert fast._state.adding is False and fast._state.db == "default"


def test_a_study_comes_with_its_codebook_round_and_role_in_one_query(study, annotator_a, outsider):
    with CaptureQueriesContext(connection) as queries:
        fast = load_study(study.pk, annotator_a.pk)
        fast.codebook.revision, fast.current_round.number  # noqa: B018 — no further query
    assert len(queries) == 1
    slow = Study.objects.select_related("codebook", "current_round").get(pk=study.pk)
    _same(fast, slow)
    _same(fast.codebook, slow.codebook)
    _same(fast.current_round, slow.current_round)
    assert isinstance(fast.created_at, datetime.datetime) and fast.created_at.tzinfo is not None
    assert fast._role_of == (annotator_a.pk, Membership.Role.ANNOTATOR)
    assert load_study(study.pk, outsider.pk)._role_of == (outsider.pk, None)
    assert not hasattr(load_study(study.pk, None), "_role_of")


def test_a_study_without_a_current_round_has_none(study):
    Study.objects.filter(pk=study.pk).update(current_round=None)
    assert load_study(study.pk, None).current_round is None


@pytest.mark.parametrize("study_id", [0, 10**9, INT64_MAX, INT64_MAX + 1, 10**30])
def test_no_study_for_ids_that_name_none(study, study_id):
    assert load_study(study_id, None) is None


def test_next_report_is_the_orms_with_the_issue_and_source(study, annotator_a):
    issue = make_issue(title="Ünïcode ✓", platform_labels=["bug", "needs triage"], comment_count=4)
    study.issues.add(issue)
    round = study.current_round
    queue = Queue.objects.get(round=round, annotator=annotator_a)
    Assignment.objects.create(queue=queue, issue=issue, position=0)
    Assignment.objects.filter(queue=queue).exclude(issue=issue).update(position=5)
    fast = next_assignment(annotator_a, round)
    slow = (Assignment.objects.filter(queue=queue, done=False).select_related("issue__source")
            .order_by("skipped", "position").first())
    _same(fast, slow)
    _same(fast.issue, slow.issue)
    _same(fast.issue.source, slow.issue.source)
    assert fast.issue.platform_labels == ["bug", "needs triage"] and fast.done is False


def test_next_report_puts_skipped_ones_last_and_ends_with_none(study, annotator_a):
    round = study.current_round
    first = next_assignment(annotator_a, round)
    skip(annotator_a, round, first.issue_id, "unclear")
    assert next_assignment(annotator_a, round).issue_id != first.issue_id
    for issue in study.issues.all():
        label_with(annotator_a, study, issue, "C.1")
    assert next_assignment(annotator_a, round) is None


def test_progress_sums_every_queue_of_the_round(study, annotator_a, annotator_b):
    label_with(annotator_b, study, study.issues.first(), "C.1")
    progress = progress_for(annotator_a, study.current_round)
    queues = Queue.objects.filter(round=study.current_round)
    assert (progress.done, progress.total) == (0, 3)
    assert (progress.round_done, progress.round_total) == (sum(q.done for q in queues), sum(q.total for q in queues))


def test_a_lead_who_stopped_labeling_counts_in_the_round_only_for_what_they_labeled(lead, annotator_a):
    from annotation.services.labels import stop_labeling
    from tests.factories import make_study

    study = make_study(lead, [annotator_a], n_issues=3)
    label_with(lead, study, study.issues.first(), "C.1")
    stop_labeling(lead, study, study.current_round.number)
    progress = progress_for(annotator_a, study.current_round)
    assert (progress.round_done, progress.round_total) == (1, 1 + 3)  # the lead's one label, and ann's three


def test_latest_summary_is_the_newest_one_made(study):
    issue = study.issues.first()
    assert latest_summary(issue) is None
    old = Summary.objects.create(issue=issue, backend="llm", prompt_version="1", content_hash="a", text="old")
    Summary.objects.create(issue=issue, backend="llm", prompt_version="2", content_hash="b", status="failed")
    new = Summary.objects.create(issue=issue, backend="llm", prompt_version="3", content_hash="c", text="new")
    Summary.objects.filter(pk=old.pk).update(updated_at=new.updated_at - datetime.timedelta(days=1))
    _same(latest_summary(issue), Summary.objects.get(pk=new.pk))
    assert latest_summary(Issue.objects.get(pk=issue.pk)).text == "new"


def test_the_signed_in_user_is_the_orms_and_inactive_or_unknown_ids_are_nobody(annotator_a, client):
    backend = UserRowBackend()
    _same(backend.get_user(annotator_a.pk), get_user_model().objects.get(pk=annotator_a.pk))
    for user_id in (0, -1, 10**9, INT64_MAX + 1, "1"):
        assert backend.get_user(user_id) is None
    get_user_model().objects.filter(pk=annotator_a.pk).update(is_active=False)
    assert backend.get_user(annotator_a.pk) is None


def test_a_password_login_is_remembered_with_the_row_backend(annotator_a, client):
    response = client.post("/accounts/login/", {"username": "alice", "password": "pw-alice"})
    assert response.status_code == 302
    assert client.session["_auth_user_backend"] == "concord.auth.UserRowBackend"
    assert client.get("/").context["user"] == annotator_a


def _history_values(row) -> dict:
    values = _values(row)
    for name in ("history_id", "history_date"):
        values.pop(name)
    return values


def test_a_label_inserted_by_hand_is_the_orms_with_its_history_row(study, annotator_a, annotator_b, rf):
    from simple_history.models import HistoricalRecords

    from annotation.models import Label
    from concord.history import record_created
    from concord.rows import insert

    issue = study.issues.order_by("pk").first()
    type_ = study.codebook.categories.filter(level="type").order_by("pk").first()
    request = rf.post("/")
    request.user = annotator_a
    HistoricalRecords.context.request = request  # as its middleware does while a request is served
    try:
        fields = {"study": study, "round": study.rounds.get(), "issue": issue, "type": type_, "note": "ß \u2028",
                  "codebook_revision": 3, "summary_shown": False}
        slow = Label.objects.create(annotator=annotator_b, **fields)
        fast = Label(annotator=annotator_a, **fields)
        with CaptureQueriesContext(connection) as queries:
            insert(fast)
            record_created(fast)
        assert len(queries) == 2
    finally:
        del HistoricalRecords.context.request
    assert fast.pk and fast.created_at and fast.updated_at
    stored = Label.objects.get(pk=fast.pk)
    assert _values(stored) | {"id": 0, "annotator_id": 0} == _values(
        Label.objects.get(pk=slow.pk)) | {"id": 0, "annotator_id": 0, "created_at": stored.created_at,
                                          "updated_at": stored.updated_at}
    assert _values(stored) == _values(fast)
    fast_history, slow_history = stored.history.get(), slow.history.get()
    assert fast_history.history_user_id == slow_history.history_user_id == annotator_a.pk
    ignore = {"id": 0, "annotator_id": 0, "created_at": 0, "updated_at": 0}
    assert _history_values(fast_history) | ignore == _history_values(slow_history) | ignore
    assert fast_history.history_type == "+" and fast_history.history_change_reason is None


def test_outside_a_request_the_history_row_has_no_author(study, annotator_a):
    from annotation.models import Label
    from concord.history import record_created
    from concord.rows import insert

    label = Label(study=study, round=study.rounds.get(), issue=study.issues.first(), annotator=annotator_a,
                  is_relevant=False)
    insert(label)
    record_created(label)
    assert label.history.get().history_user_id is None


def test_named_sql_takes_tables_and_columns_from_the_models():
    from django.core.exceptions import FieldDoesNotExist
    from django.db import connection

    from concord.rows import named

    quote = connection.ops.quote_name
    assert named("SELECT [[i.title]] FROM [[i]] JOIN [[s]] ON s.id = [[i.source]] WHERE x = '{}'", i=Issue,
                 s=Source) == (f"SELECT i.{quote('title')} FROM {quote(Issue._meta.db_table)} i "
                               f"JOIN {quote(Source._meta.db_table)} s ON s.id = i.{quote('source_id')} "
                               "WHERE x = '{}'")
    with pytest.raises(KeyError):
        named("[[q.title]]", i=Issue)
    with pytest.raises(FieldDoesNotExist):
        named("[[i.no_such_field]]", i=Issue)


def test_withdrawing_unlabeled_reports_deletes_what_the_orm_selects(study, annotator_a):
    from django.db.models import Exists, OuterRef

    from annotation import sql
    from annotation.models import Label

    round = study.current_round
    queue = Queue.objects.get(round=round, annotator=annotator_a)
    done, sent_back, waiting = [a.issue for a in queue.assignments.order_by("position")]
    label_with(annotator_a, study, done, "C.1")
    label_with(annotator_a, study, sent_back, "C.1")
    Assignment.objects.filter(queue=queue, issue=sent_back).update(done=False)  # a codebook change sent it back
    ids = [done.pk, sent_back.pk, waiting.pk]
    labeled = Label.objects.filter(round=round, annotator=annotator_a, issue_id=OuterRef("issue_id"))
    slow = set(Assignment.objects.filter(queue=queue, done=False, issue_id__in=ids).exclude(Exists(labeled))
               .values_list("issue_id", flat=True))
    with connection.cursor() as cursor:
        cursor.execute(sql.withdraw_unlabeled(len(ids)), [queue.pk, False, *ids, round.pk, annotator_a.pk])
        fast = {row[0] for row in cursor.fetchall()}
    assert fast == slow == {waiting.pk}
    assert set(queue.assignments.values_list("issue_id", flat=True)) == {done.pk, sent_back.pk}
