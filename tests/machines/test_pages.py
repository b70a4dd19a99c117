"""The lead's pages: add a rater, run it on the worker's queue, watch the run, read the figures and the log."""
from __future__ import annotations

import pytest
from django.urls import reverse

from machines.models import LlmCall, MachineRater, MachineRun
from tests.factories import label_with

pytestmark = pytest.mark.django_db


def test_a_lead_adds_a_built_in_rater_runs_it_and_reads_its_figures(study, lead, annotator_a, annotator_b,
                                                                     annotator_c, client_as,
                                                                     django_capture_on_commit_callbacks):
    for issue in study.issues.all():
        for person, code in ((annotator_a, "C.1"), (annotator_b, "C.1"), (annotator_c, "B.1")):
            label_with(person, study, issue, code)
    client = client_as(lead)
    assert client.get(reverse("machines:index", args=[study.pk])).status_code == 200
    response = client.post(reverse("machines:add", args=[study.pk]), {"name": "tfidf", "kind": "builtin",
                                                                        "training": "plurality", "folds": "2"})
    rater = MachineRater.objects.get(name="tfidf")
    assert response.status_code == 302 and rater.settings == {"folds": 2, "seed": 0}
    again = client.post(reverse("machines:add", args=[study.pk]), {"name": "tfidf", "kind": "builtin"})
    assert again.status_code == 400 and b"already" in again.content
    run_url = reverse("machines:run", args=[study.pk, rater.pk])
    other = MachineRater.objects.create(study=study, name="another", kind="builtin", settings={})
    MachineRun.objects.create(rater=other, status="succeeded")  # runs of other raters take ids too
    with django_capture_on_commit_callbacks(execute=True):
        queued = client.post(run_url, {"expected": "0"}, follow=True)  # the task runs in-process here (eager)
    assert "Run 1 queued." in queued.content.decode()  # the rater's first run, as its page numbers it
    client.post(run_url, {"expected": "0"})  # the same form again: refused, the page now shows the run
    run = MachineRun.objects.get(rater=rater)
    assert run.status == "succeeded" and run.done == 3
    page = client.get(reverse("machines:rater", args=[study.pk, rater.pk]) + "?level=theme&type=C&epsilon=0.2")
    assert page.status_code == 200
    text = page.content.decode()
    for part in ('data-testid="cohen"', 'data-testid="replacing"', 'data-testid="alt-test"', "confusion"):
        assert part in text
    progress = client.get(reverse("machines:run_progress", args=[study.pk, run.pk]), headers={"HX-Request": "true"})
    # Finished: htmx is told to stop asking (286), as with every job's progress.
    assert progress.status_code == 286 and b"Succeeded" in progress.content and b"hx-get" not in progress.content


def test_hostile_query_parameters_fall_back_to_the_defaults(study, lead, client_as):
    rater = MachineRater.objects.create(study=study, name="m", kind="builtin")
    url = reverse("machines:rater", args=[study.pk, rater.pk])
    for query in ("?level=%00", "?type=" + "9" * 40, "?epsilon=nan", "?level=theme&type=Z"):
        assert client_as(lead).get(url + query).status_code == 200
    calls = reverse("machines:calls", args=[study.pk, rater.pk])
    assert client_as(lead).get(calls + "?page=99999999999999999999").status_code == 200


def test_the_call_log_lists_every_call(study, lead, client_as):
    rater = MachineRater.objects.create(study=study, name="m", kind="llm", settings={"model": "x"})
    issue = study.issues.first()
    LlmCall.objects.create(rater=rater, issue=issue, key="k", prompt_hash="h" * 64, model="x", answer='{"type":"C"}')
    LlmCall.objects.create(rater=rater, issue=issue, key="k2", prompt_hash="h" * 64, model="x", failure="POST → 500")
    page = client_as(lead).get(reverse("machines:calls", args=[study.pk, rater.pk])).content.decode()
    assert "POST → 500" in page and "{&quot;type&quot;:&quot;C&quot;}" in page


def test_a_jury_whose_alpha_is_undefined_says_so(monkeypatch, client_as, lead, annotator_a):
    """Machines that share too few reports have no alpha: the page says it is undefined, not "alpha : not fit"."""
    from django.urls import reverse

    from machines.models import MachineRater
    from machines.services import delegation
    from stats.proportions import rate
    from tests.factories import make_study

    study = make_study(lead, [annotator_a])
    raters = [MachineRater.objects.create(study=study, name=f"m{n}", kind="builtin", settings={}) for n in range(3)]
    undefined = delegation.Plan("jury: m0, m1, m2", None, False, {}, [], rate(0, 0))
    monkeypatch.setattr(delegation, "plan", lambda *a, **k: undefined)
    monkeypatch.setattr("machines.services.stored_jury.requested", lambda *a, **k: None)
    page = client_as(lead).get(reverse("machines:jury", args=[study.pk]),
                               {"rater": [r.pk for r in raters]}).content.decode()
    assert "alpha is undefined" in page and "alpha :" not in page
