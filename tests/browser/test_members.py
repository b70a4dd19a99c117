"""A new invitation link is one click from the clipboard."""
from __future__ import annotations

import pytest

from tests.factories import make_study, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_copy_the_invitation_link(live_server, browser):
    lead = make_user("lead")
    study = make_study(lead, [make_user("alice")])
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    page.goto(f"{live_server.url}/accounts/login/?next=/studies/{study.pk}/members/")
    page.fill("input[name=username]", "lead")
    page.fill("input[name=password]", "pw-lead")
    page.press("input[name=password]", "Enter")
    page.get_by_role("button", name="Create link").click()
    link = page.inner_text("[data-testid=invitation-link]")
    assert "/join/" in link
    page.get_by_role("button", name="Copy the link").click()
    page.locator("[data-copied]").wait_for()
    assert page.evaluate("navigator.clipboard.readText()") == link
    context.close()
