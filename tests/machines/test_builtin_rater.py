"""The built-in model as a rater of record: imported real data, `manage.py rate`, `manage.py raters`, and the
figures the README quotes."""
from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from machines.classifier import MODEL
from machines.models import MachineLabel, MachineRater, MachineRun
from machines.selectors import measurement

pytestmark = pytest.mark.django_db


def test_rating_the_vllm_reports_with_the_built_in_model(vllm_study):
    out = io.StringIO()
    call_command("rate", "vllm", rater="tfidf-sgd", kind="builtin", stdout=out)
    run = MachineRun.objects.get()
    assert run.status == "succeeded" and run.done == run.total == 974, out.getvalue()
    assert run.model_reported == MODEL  # the run says which version of the model made its labels
    assert MachineLabel.objects.filter(run=run).count() == 974
    rater = MachineRater.objects.get()
    figures = measurement(rater, level="type")
    # The figures in the README: an honest, low kappa. The humans agree far better with each other.
    assert figures["reports"] == 974 and figures["rated"] == 974
    assert figures["cohen_plurality"]["value"] == pytest.approx(0.342, abs=0.002)
    assert figures["humans_fleiss"]["value"] > 0.9
    assert not figures["alt_test"]["passed"]
    assert len(figures["cohen_humans"]) == 7 and len(figures["replacing"]) == 7


def test_the_raters_command_reports_every_level_as_json(vllm_study):
    call_command("rate", "vllm", rater="tfidf-sgd", kind="builtin", stdout=io.StringIO())
    out = io.StringIO()
    call_command("raters", "vllm", format="json", stdout=out)
    data = json.loads(out.getvalue())
    (rater,) = data["raters"]
    assert rater["name"] == "tfidf-sgd" and rater["settings"] == {"folds": 5, "seed": 0}
    scopes = [(f["level"], f["type"]) for f in rater["figures"]]
    assert scopes[0] == ("type", "") and ("theme", "C") in scopes
    table = io.StringIO()
    call_command("raters", "vllm", stdout=table)
    assert "tfidf-sgd (builtin)" in table.getvalue()


def test_a_second_run_replaces_nothing_but_its_own_labels_and_unknown_raters_are_named(vllm_study):
    call_command("rate", "vllm", rater="m", kind="builtin", folds="3", stdout=io.StringIO())
    call_command("rate", "vllm", rater="m", stdout=io.StringIO())
    assert MachineRun.objects.filter(status="succeeded").count() == 2
    assert MachineLabel.objects.count() == 2 * 974
    with pytest.raises(CommandError, match="no machine rater 'other'.*it has: m"):
        call_command("rate", "vllm", rater="other")
    with pytest.raises(CommandError, match="folds"):
        call_command("rate", "vllm", rater="bad", kind="builtin", folds="99")


def test_a_raters_runs_are_numbered_from_one_whatever_other_raters_ran():
    from machines.models import MachineRater, MachineRun
    from tests.factories import make_study, make_user

    study = make_study(make_user("lead"), [])
    first = MachineRater.objects.create(study=study, name="first", kind="builtin")
    second = MachineRater.objects.create(study=study, name="second", kind="builtin")
    MachineRun.objects.create(rater=first)
    runs = [MachineRun.objects.create(rater=second) for _ in range(2)]
    assert [run.number for run in runs] == [1, 2]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the planner's statistics are PostgreSQL's")
def test_a_run_leaves_the_planner_knowing_its_labels(vllm_study):
    """An export right after a run reads its labels a chunk of reports at a time; planned on statistics from
    before the run, every chunk walked all of the run's labels. The run analyses the table it wrote."""
    call_command("rate", "vllm", rater="tfidf-sgd", kind="builtin", stdout=io.StringIO())
    with connection.cursor() as cursor:
        cursor.execute("SELECT reltuples FROM pg_class WHERE relname = %s", [MachineLabel._meta.db_table])
        assert cursor.fetchone()[0] == MachineLabel.objects.count() == 974


def test_a_run_keeps_its_calibration_curve_and_the_page_shows_it(vllm_study, client_as):
    from django.urls import reverse

    from annotation.models import Membership
    from tests.factories import make_user

    call_command("rate", "vllm", rater="tfidf-sgd", kind="builtin", stdout=io.StringIO())
    run = MachineRun.objects.get()
    curve = run.calibration
    assert curve["n"] == 974 and curve["ece"] < 0.05
    assert sum(b["n"] for b in curve["bins"]) == 974
    assert all(0 <= b["right"] <= 1 and b["right_low"] <= b["right"] <= b["right_high"] for b in curve["bins"])
    labels = MachineLabel.objects.filter(run=run)
    assert labels.filter(confidence__isnull=False, type_confidence__isnull=False).count() == 974
    lead = make_user("lead")
    Membership.objects.create(study=vllm_study, user=lead, role=Membership.Role.LEAD)
    page = client_as(lead).get(reverse("machines:rater", args=[vllm_study.pk, run.rater_id])).content.decode()
    assert 'data-testid="calibration"' in page and "Expected calibration error" in page
    assert curve["right"] == pytest.approx(sum(b["n"] * b["right"] for b in curve["bins"]) / 974)
    # In the pilot the page offers to order the queues by its doubt, and says when that pays.
    from annotation.models import Study

    Study.objects.filter(pk=vllm_study.pk).update(phase=Study.Phase.PILOT)
    page = client_as(lead).get(reverse("machines:rater", args=[vllm_study.pk, run.rater_id])).content.decode()
    assert 'data-testid="queue-order-caution"' in page and f"{100 * curve['right']:.2f} %" in page
