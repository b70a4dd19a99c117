"""Ordering the queues by a machine's doubt while the lead closes the pilot, on PostgreSQL: the independent round
is dealt once, in the order the study records, whichever request comes first; two orderings at once weigh each
report once."""
from __future__ import annotations

from functools import partial

import pytest
from django.db import connection

from annotation.models import QueueWeight, Study
from annotation.services.phases import advance, state_of
from annotation.services.queues import study_order
from annotation.services.studies import create_study
from machines.models import MachineRater
from machines.services.queue_order import QueueOrderError, order_by_doubt
from tests.concurrency import at_once
from tests.factories import codebook, finished_run, make_issue, make_user

pytestmark = [pytest.mark.django_db(transaction=True),
              pytest.mark.skipif(connection.vendor != "postgresql",
                                 reason="row locks need PostgreSQL (SQLite locks the file)")]


def _pilot(n: int = 0):
    lead = make_user(f"lead{n}")
    issues = [make_issue() for _ in range(30)]
    study = create_study(name=f"Doubt {n}", codebook=codebook(), issues=issues, lead=lead,
                         annotators=[make_user(f"a{n}"), make_user(f"b{n}")], with_pilot=True,
                         queue_order=Study.QueueOrder.RANDOM)
    rater = MachineRater.objects.create(study=study, name="doubter", kind="builtin")
    run = finished_run(rater, {issue.pk: "C" for issue in issues},
                       {issue.pk: (n % 10) / 10 for n, issue in enumerate(issues)})
    return study, lead, rater, run


def test_ordering_while_the_pilot_closes_deals_the_round_once_in_the_order_recorded():
    for attempt in range(3):
        study, lead, rater, run = _pilot(attempt)
        expected = state_of(study)
        outcomes = at_once(partial(order_by_doubt, rater, expected_run=run.pk, by=lead),
                           partial(advance, study, lead, confirm_missing=True, expected=expected))
        assert outcomes[1] is None
        assert outcomes[0] is None or isinstance(outcomes[0], QueueOrderError)
        study.refresh_from_db()
        round = study.current_round
        assert study.phase == Study.Phase.INDEPENDENT and round.kind == "independent"
        # Ordered first, or refused because the round was dealt: the study says which, and its queues agree.
        assert study.queue_order == (Study.QueueOrder.CONFIDENCE if outcomes[0] is None else Study.QueueOrder.RANDOM)
        order = study_order(round)
        for queue in round.queues.all():
            assert list(queue.assignments.order_by("position").values_list("issue_id", flat=True)) == order


def test_two_orderings_at_once_weigh_each_report_once():
    study, lead, rater, run = _pilot()
    outcomes = at_once(*(partial(order_by_doubt, rater, expected_run=run.pk, by=lead) for _ in range(3)))
    assert outcomes == [None, None, None]
    assert QueueWeight.objects.filter(study=study).count() == 30
