"""Closing a round cannot happen on one click: the box must be ticked, and the button says what it does."""
from __future__ import annotations

import pytest

from annotation.models import Study
from tests.factories import make_issue, make_study, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_lead_confirms_before_a_round_closes(live_server, page):
    lead = make_user("lead")
    study = make_study(lead, [make_user("alice")], issues=[make_issue(), make_issue()])
    page.goto(f"{live_server.url}/accounts/login/?next=/studies/{study.pk}/")
    page.fill("input[name=username]", "lead")
    page.fill("input[name=password]", "pw-lead")
    page.press("input[name=password]", "Enter")
    consequences = page.inner_text("[data-testid=consequences]")
    assert "4 labels are still missing in round 1" in consequences and "votes tie go to a review round" in consequences
    button = page.get_by_role("button", name="Close round 1 and start the review")
    button.click()  # the box is not ticked: the browser keeps the form
    page.wait_for_timeout(300)
    assert Study.objects.get(pk=study.pk).phase == Study.Phase.INDEPENDENT
    page.get_by_label("I have read what this does; it cannot be undone").check()
    button.click()
    page.get_by_text("is now in its review phase").wait_for()
    assert Study.objects.get(pk=study.pk).phase == Study.Phase.REVIEW
