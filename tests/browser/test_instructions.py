"""Instructions open by themselves on an annotator's first visit, stay closed once read, and are one key away."""
from __future__ import annotations

import pytest

from codebook.services.changes import set_instructions
from tests.factories import make_issue, make_study, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_instructions_on_the_first_visit_then_one_key_away(live_server, page):
    lead, annotator = make_user("lead"), make_user("alice")
    study = make_study(lead, [annotator], issues=[make_issue(title="Report 1"), make_issue(title="Report 2")])
    set_instructions(study, lead, "## Before you start\n\nLabel the **root cause**.", "first version")
    page.goto(f"{live_server.url}/accounts/login/?next=/studies/{study.pk}/queue/")
    page.fill("input[name=username]", "alice")
    page.fill("input[name=password]", "pw-alice")
    page.press("input[name=password]", "Enter")
    dialog = page.locator("dialog#instructions")
    dialog.wait_for()
    assert "Label the root cause." in dialog.inner_text()
    # While they are open, the labeling keys do nothing.
    page.keyboard.press("3")
    assert page.locator("input[name=type]:checked").count() == 0
    page.get_by_role("button", name="I have read them").click()
    dialog.wait_for(state="hidden")
    page.reload()
    page.wait_for_selector("#label-form[data-ready]")
    assert not dialog.is_visible()
    page.keyboard.press("i")
    dialog.wait_for()
    page.keyboard.press("Escape")
    dialog.wait_for(state="hidden")
    # The page settles before the label is typed: typed straight after the dialog closed, the save was lost in
    # about one run in six (cause not found yet; see the session note).
    page.wait_for_load_state("networkidle")
    page.keyboard.press("4")
    # The choice is made before Enter saves it (on a loaded machine the page may lag behind the keys).
    page.locator("input[name=type]:checked").wait_for(state="attached")
    page.keyboard.press("Enter")
    page.locator("h1.issue-title", has_text="Report 2").wait_for()
    # A new version opens again on the next visit.
    set_instructions(study, lead, "Label the root cause; skip reports in Chinese only.", "second version")
    page.reload()
    dialog.wait_for()
    assert "Chinese" in dialog.inner_text()
