"""While the independent round runs, the dashboard's agreement and tie rate with confidence sequences."""
from __future__ import annotations

import pytest
from django.urls import reverse

from agreement.models import AgreementSnapshot
from agreement.watch import round_watch
from annotation.services.phases import advance
from stats.confseq import sequence
from tests.factories import label_with, make_issue, make_study

pytestmark = pytest.mark.django_db


def test_reports_count_once_every_rater_labeled_them_in_the_order_they_became_complete(
        lead, annotator_a, annotator_b, client_as):
    issues = [make_issue() for _ in range(6)]
    study = make_study(lead, [annotator_a, annotator_b], issues=issues)
    rows = [("C.1", "C.1", "C.2"), ("B.1", "B.1", "B.1"), ("A.1", "B.1", "C.1"), ("C.1", "C.1", "C.1"),
            ("NR", "NR", "B.2")]
    for issue, codes in zip(issues, rows, strict=False):  # the sixth report is left unlabeled
        for person, code in zip((lead, annotator_a, annotator_b), codes, strict=True):
            label_with(person, study, issue, code)
    label_with(lead, study, issues[5], "C.1")  # one label of three: not complete
    watched = round_watch(study.rounds.get())
    assert (watched["raters"], watched["complete"], watched["population"]) == (3, 5, 6)
    agree = [1.0, 1.0, 0.0, 1.0, 0.0]  # the same type: C.1 and C.2 are both of type C
    assert watched["agreement"]["n"] == 5 and watched["agreement"]["share"] == pytest.approx(3 / 5)
    low, high = sequence(agree, 6)
    assert (watched["agreement"]["low"], watched["agreement"]["high"]) == (float(low[-1]), float(high[-1]))
    assert watched["ties"]["share"] == pytest.approx(1 / 5)  # A, B, C: one each
    per_type = {t["type"]: (t["share"], t["n"]) for t in watched["per_type"]}
    assert per_type == {"B": (1.0, 1), "C": (1.0, 2), "NR": (0.0, 1)}
    page = client_as(lead).get(reverse("agreement:study_agreement", args=[study.pk])).content.decode()
    assert 'data-testid="watch"' in page and "5 of 6 reports labeled by all 3 raters" in page
    assert AgreementSnapshot.objects.get().figures["watch"]["complete"] == 5
    advance(study, lead, confirm_missing=True)  # the independent round closes: nothing is watched any more
    assert round_watch(study.rounds.get(number=1)) is None
