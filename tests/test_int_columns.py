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
        assert _sorted(module._packed(labels, FIELDS)) == expected
