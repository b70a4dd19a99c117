"""A round's labels as the dashboard's tables (reports × raters, a category index each): the same as the labels
read one by one through the ORM, however the labels are read (one query, or pieces on two connections) and
however a category's place is found (a table of ids, or bisection)."""
from __future__ import annotations

import pytest
from django.db import connection

from agreement import reports
from annotation.models import Label
from annotation.selectors.labels import counted_in_round
from concord import int_columns
from taxonomy.models import Category, Codebook
from tests.factories import study_labeled_as

pytestmark = pytest.mark.django_db(transaction=True)

# Five reports × three annotators; "" where an annotator gave no label. Codes at every depth, "not relevant" too.
LABELS = [
    ("C.6.iv", "C.1", "NR"),
    ("A.1", "A.1", "A.1"),
    ("B.2", "", "B.2"),
    ("NR", "NR", "C.1"),
    ("C.6.iv", "C.6.iv", ""),
]


@pytest.fixture
def round_(lead, annotator_a, annotator_b, annotator_c):
    return study_labeled_as(lead, [annotator_a, annotator_b, annotator_c], LABELS).rounds.get()


def _plainly(round_) -> dict:
    """Per level: {(issue id, username): the category's code}, from the labels one by one."""
    code = dict(Category.objects.values_list("pk", "code"))
    found = {"type": {}, "theme": {}, "sub_theme": {}}
    for label in counted_in_round(round_).select_related("annotator"):
        key = (label.issue_id, label.annotator.username)
        for level in found:
            value = getattr(label, f"{level}_id")
            if not label.is_relevant:
                found[level][key] = "NR"
            elif value:
                found[level][key] = code[value]
    return found


def _as_read(round_) -> dict:
    labels = reports._labels(round_)
    found = {}
    for level, table in labels.tables.items():
        assert table.subjects == labels.issues == sorted(labels.issues)
        assert table.categories == sorted(table.categories, key=reports.sort_key)
        found[level] = {(labels.issues[r], labels.raters[c]): table.categories[table.codes[r, c]]
                        for r in range(len(labels.issues)) for c in range(len(labels.raters))
                        if table.codes[r, c] >= 0}
    return found


@pytest.mark.parametrize("lookup", ["table", "bisection"])
def test_the_tables_hold_each_label_as_given(round_, monkeypatch, lookup):
    if lookup == "bisection":
        monkeypatch.setattr(reports, "TABLE_IDS", 0)
    expected = _plainly(round_)
    assert [len(expected[level]) for level in ("type", "theme", "sub_theme")] == [13, 13, 6]  # as it says
    assert _as_read(round_) == expected


@pytest.mark.skipif(connection.vendor != "postgresql", reason="pieces on two connections are PostgreSQL's")
def test_the_tables_are_the_same_read_in_pieces(round_, monkeypatch):
    expected = _plainly(round_)
    monkeypatch.setattr(int_columns, "PIECE", 2)  # pieces of two primary keys: seven pieces, on two connections
    pieces = []
    real = int_columns._read
    monkeypatch.setattr(int_columns, "_read", lambda *args: pieces.append(args) or real(*args))
    assert _as_read(round_) == expected
    assert len(pieces) >= 7


@pytest.mark.parametrize("lookup", ["table", "bisection"])
def test_a_label_from_another_codebook_is_refused(round_, monkeypatch, lookup):
    if lookup == "bisection":
        monkeypatch.setattr(reports, "TABLE_IDS", 0)
    other = Codebook.objects.create(name="Another")
    stray = Category.objects.create(codebook=other, level=Category.Level.TYPE, code="Z", name="Stray")
    Label.objects.filter(pk=counted_in_round(round_).filter(is_relevant=True).first().pk).update(type=stray)
    with pytest.raises(ValueError, match="not in the study's codebook"):
        reports._labels(round_)
