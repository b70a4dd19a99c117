"""Integer columns read as arrays: on PostgreSQL packed by the database, elsewhere through the ORM; the same
values either way, NULL read as 0, booleans as 0/1, a filter with a subquery kept."""
import numpy as np
import pytest
from django.db import connection

from annotation.models import Label
from annotation.selectors.labels import counted_labels
from concord import int_columns as module
from tests.factories import label_with, make_study

FIELDS = ["issue_id", "annotator_id", "is_relevant", "type_id", "theme_id", "sub_theme_id"]


def _sorted(columns):
    return sorted(zip(*(c.tolist() for c in columns), strict=True))


@pytest.mark.django_db
def test_columns_are_the_labels_values_on_every_database(lead, annotator_a, annotator_b):
    study = make_study(lead, [annotator_a, annotator_b], n_issues=3)
    issues = list(study.issues.order_by("pk"))
    label_with(annotator_a, study, issues[0], "C.6.iv")
    label_with(annotator_a, study, issues[1], "NR")
    label_with(annotator_b, study, issues[0], "B.2")
    label_with(annotator_b, study, issues[2], "A.1")
    labels = counted_labels(Label.objects.filter(study=study)).order_by()
    expected = sorted((i, a, int(r), t or 0, th or 0, s or 0) for i, a, r, t, th, s in labels.values_list(*FIELDS))
    found = module.int_columns(labels, FIELDS)
    assert all(c.dtype == np.int64 for c in found)
    assert _sorted(found) == expected
    assert _sorted(module._streamed(labels, FIELDS)) == expected
    assert [len(c) for c in module.int_columns(labels.none(), FIELDS)] == [0] * 6
    assert [len(c) for c in module.int_columns(labels.filter(pk=-1), FIELDS)] == [0] * 6
    if connection.vendor == "postgresql":
        pieces = module._packed(labels, FIELDS)
        assert _sorted([np.concatenate([piece[i] for piece in pieces]) for i in range(len(FIELDS))]) == expected


def _labeled_study(lead, annotators, labelers, n_issues=6):
    study = make_study(lead, annotators, n_issues=n_issues)
    for i, issue in enumerate(study.issues.order_by("pk")):
        for j, person in enumerate(labelers):
            label_with(person, study, issue, ["C.6.iv", "NR", "B.2", "A.1"][(i + j) % 4])
    return study


needs_postgresql = pytest.mark.skipif(connection.vendor != "postgresql",
                                      reason="pieces and a shared snapshot are PostgreSQL's")


@needs_postgresql
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("shared", [True, False], ids=["two-connections", "a-hot-standby"])
def test_a_large_table_is_read_in_pieces_as_one_query_reads_it(lead, annotator_a, annotator_b, monkeypatch,
                                                               shared):
    study = _labeled_study(lead, [annotator_a, annotator_b], [annotator_a, annotator_b])
    labels = counted_labels(Label.objects.filter(study=study)).order_by()
    whole = _sorted(module._read(labels, FIELDS, "default"))
    monkeypatch.setattr(module, "PIECE", 2)  # a piece of two primary keys: six pieces and more
    if not shared:  # a standby cannot export its snapshot: the pieces one after another in one transaction
        real = module._exported
        monkeypatch.setattr(module, "_exported", lambda alias: real(alias) and None)
    threads = []
    real_under = module._read_under
    monkeypatch.setattr(module, "_read_under", lambda *args: threads.append(args) or real_under(*args))
    assert _sorted(module.int_columns(labels, FIELDS)) == whole and len(whole) == 12
    assert len(threads) == (1 if shared else 0)


@needs_postgresql
@pytest.mark.django_db(transaction=True)
def test_the_pieces_see_the_table_as_it_was_when_the_read_began(lead, annotator_a, annotator_b, annotator_c,
                                                                monkeypatch):
    """A label changed and one saved while the pieces are read are in none of them: both connections read one
    snapshot, the second connection's pieces included."""
    import threading

    from django.db import connection as db_connection

    study = _labeled_study(lead, [annotator_a, annotator_b, annotator_c], [annotator_a, annotator_b])
    labels = counted_labels(Label.objects.filter(study=study)).order_by()
    before = _sorted(module._read(labels, FIELDS, "default"))
    ids = sorted(Label.objects.values_list("pk", flat=True))
    in_second_piece = Label.objects.get(pk=ids[2])  # pieces of two keys: the third label is the second piece's
    monkeypatch.setattr(module, "PIECE", 2)
    real_read, saved = module._read, []

    def change():
        try:
            Label.objects.filter(pk=in_second_piece.pk).update(annotator=annotator_c)
            saved.append(label_with(annotator_c, study, study.issues.order_by("pk").last(), "A.1"))
        finally:
            db_connection.close()

    def read_then_change(*args):
        if not saved:  # once the snapshot is taken, before any piece is read: commits on their own connection
            changer = threading.Thread(target=change)
            changer.start()
            changer.join()
        return real_read(*args)

    monkeypatch.setattr(module, "_read", read_then_change)
    assert _sorted(module.int_columns(labels, FIELDS)) == before
    after = _sorted(module.int_columns(labels, FIELDS))  # a new read sees both
    assert len(after) == len(before) + 1 and after != before


@needs_postgresql
@pytest.mark.django_db(transaction=True)
def test_a_piece_that_fails_ends_the_read_on_both_connections(lead, annotator_a, annotator_b, monkeypatch):
    import threading

    study = _labeled_study(lead, [annotator_a, annotator_b], [annotator_a, annotator_b], n_issues=20)
    labels = counted_labels(Label.objects.filter(study=study)).order_by()
    monkeypatch.setattr(module, "PIECE", 2)  # twenty pieces and more
    real_read, started, first_failed = module._read, [], threading.Event()

    def read(*args):
        started.append(threading.current_thread().name)
        if len(started) == 1:
            first_failed.set()
            raise RuntimeError("the database went away")
        first_failed.wait()
        return real_read(*args)

    monkeypatch.setattr(module, "_read", read)
    with pytest.raises(RuntimeError, match="went away"):
        module.int_columns(labels, FIELDS)
    # The piece that failed, and at most the one the other connection had begun.
    assert len(started) <= 2
