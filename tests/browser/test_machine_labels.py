"""In a real browser: a machine's label appears on the review page, badged, only once the annotator's own label
of the report is saved; the lead's rater page shows the figures."""
from __future__ import annotations

import pytest

from annotation.models import Study
from annotation.services.phases import advance
from machines.models import MachineLabel, MachineRater, MachineRun
from tests.factories import label_with, make_study, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _login(page, live_server, username: str, next_url: str) -> None:
    page.goto(f"{live_server.url}/accounts/login/?next={next_url}")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", f"pw-{username}")
    page.press("input[name=password]", "Enter")


def test_the_review_page_shows_a_machine_label_only_after_ones_own(live_server, page):
    lead, alice, bob = make_user("lead"), make_user("alice"), make_user("bob")
    study = make_study(lead, [alice, bob], n_issues=2)
    first, second = study.issues.order_by("pk")
    label_with(alice, study, first, "C.1")
    label_with(bob, study, first, "B.1")  # a tie: the report goes to review
    label_with(bob, study, second, "B.1")
    rater = MachineRater.objects.create(study=study, name="tfidf", kind="builtin")
    run = MachineRun.objects.create(rater=rater, status="succeeded")
    for issue in (first, second):
        MachineLabel.objects.create(run=run, issue=issue, type_code="C", theme_code="C.6")
    advance(Study.objects.get(pk=study.pk), lead, confirm_missing=True)
    _login(page, live_server, "alice", f"/studies/{study.pk}/issues/{first.pk}/")
    labels = page.locator("[data-testid=machine-labels]")
    labels.wait_for()
    assert "C.6" in labels.inner_text() and labels.locator(".badge-machine").count() >= 1
    # The report alice never labeled: the fragment loads, and is empty.
    with page.expect_response(lambda r: f"/machines/reports/{second.pk}/" in r.url) as answer:
        page.goto(f"{live_server.url}/studies/{study.pk}/machines/reports/{second.pk}/")
    assert answer.value.status == 200 and page.locator("[data-testid=machine-labels]").count() == 0

    lead_page = page.context.new_page()
    _login(lead_page, live_server, "lead", f"/studies/{study.pk}/machines/{rater.pk}/")
    lead_page.locator("[data-testid=measurement]").wait_for()
    assert "alternative annotator test" in lead_page.inner_text("[data-testid=measurement]").lower()
