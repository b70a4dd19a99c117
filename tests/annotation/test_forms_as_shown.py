"""Forms submitted exactly as the page renders them, hidden values and all: a study is moved through every phase
to closed from its own page, which is how its lead does it."""
from __future__ import annotations

import lxml.html
import pytest
from django.urls import reverse

from annotation.models import FinalLabel, Study
from annotation.services.phases import advance
from annotation.services.studies import create_study
from tests.factories import codebook, label_with, make_issue

pytestmark = pytest.mark.django_db
Phase = Study.Phase


def form_as_shown(html: str, action: str) -> dict:
    """The values a browser would send from the form posting to `action`, with its confirmation box ticked."""
    forms = [f for f in lxml.html.fromstring(html).forms if f.get("action") == action]
    assert len(forms) == 1, f"{len(forms)} forms post to {action}"
    form = forms[0]
    values = dict(form.form_values())
    for box in form.inputs:
        if getattr(box, "type", None) == "checkbox" and box.get("required") is not None:
            values[box.name] = box.get("value", "on")
    return values


def submit_as_shown(client, page_url: str, action: str):
    page = client.get(page_url)
    assert page.status_code == 200
    # The lead's page leads with the next step of the method.
    assert 'data-testid="what-next"' in page.content.decode()
    return client.post(action, form_as_shown(page.content.decode(), action), follow=True)


def test_the_lead_moves_a_study_from_its_pilot_to_closed_with_the_page_as_shown(client_as, lead, annotator_a,
                                                                                annotator_b):
    issues = [make_issue() for _ in range(6)]
    study = create_study(name="Whole", codebook=codebook(), issues=issues, lead=lead,
                         annotators=[annotator_a, annotator_b], with_pilot=True, seed=3)
    client = client_as(lead)
    page_url = reverse("annotation:study_detail", args=[study.pk])
    action = reverse("annotation:study_advance", args=[study.pk])
    seen = [study.phase]
    assert "a seeded sample of 18 % of the reports" in client.get(page_url).content.decode()
    for _ in range(6):
        study.refresh_from_db()
        if study.phase == Phase.INDEPENDENT:
            # Everyone agrees on every report: no tie goes to review or adjudication.
            for person in (lead, annotator_a, annotator_b):
                for issue in issues:
                    label_with(person, study, issue, "C.2.i", round=study.current_round)
        if study.phase == Phase.CLOSED:
            break
        answer = submit_as_shown(client, page_url, action)
        assert answer.status_code == 200
        said = [str(m) for m in answer.context["messages"]]
        study.refresh_from_db()
        assert study.phase != seen[-1], said
        seen.append(study.phase)
    assert seen == [Phase.PILOT, Phase.INDEPENDENT, Phase.REVIEW, Phase.ADJUDICATION, Phase.CLOSED]
    # Closing wrote the final labels.
    assert FinalLabel.objects.filter(study=study).count() == len(issues)
    # The page of a closed study offers no form that moves it, and points to the corpus.
    closed = client.get(page_url).content.decode()
    assert action not in closed and 'href="#corpus"' in closed


def test_a_second_press_of_the_close_button_changes_nothing(client_as, lead, annotator_a):
    issues = [make_issue() for _ in range(2)]
    study = create_study(name="Twice", codebook=codebook(), issues=issues, lead=lead, annotators=[annotator_a],
                         with_pilot=False, seed=3)
    for person in (lead, annotator_a):
        for issue in issues:
            label_with(person, study, issue, "A.1", round=study.current_round)
    advance(study, lead, confirm_missing=True)
    advance(Study.objects.get(pk=study.pk), lead, confirm_missing=True)
    client = client_as(lead)
    page_url = reverse("annotation:study_detail", args=[study.pk])
    action = reverse("annotation:study_advance", args=[study.pk])
    shown = form_as_shown(client.get(page_url).content.decode(), action)
    first = client.post(action, shown, follow=True)
    assert Study.objects.get(pk=study.pk).phase == Phase.CLOSED, [str(m) for m in first.context["messages"]]
    second = client.post(action, shown, follow=True)
    assert "moved on" in " ".join(str(m) for m in second.context["messages"])
    assert Study.objects.get(pk=study.pk).phase == Phase.CLOSED
