"""Every main page fits a 390 px wide phone without scrolling sideways; wide tables scroll inside their card
(issue 17, item 12)."""
from __future__ import annotations

import pytest

from annotation.services.phases import advance
from codebook.services.changes import set_instructions
from tests.factories import label_with, make_issue, make_study, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
WIDTH = 390


def _sign_in(page, live_server, username: str):
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", f"pw-{username}")
    page.press("input[name=password]", "Enter")
    page.wait_for_load_state()


def _overflow(page) -> int:
    return page.evaluate("document.documentElement.scrollWidth") - WIDTH


def test_every_main_page_fits_390_pixels(live_server, browser):
    lead, alice, bob = make_user("lead"), make_user("alice"), make_user("bob")
    admin = make_user("admin", is_staff=True, is_superuser=True)
    long_note = "A very long note without spaces " + "x" * 300
    issues = [make_issue(title=f"Report {n} with a rather long title that goes on and on") for n in range(1, 4)]
    study = make_study(lead, [alice, bob], issues=issues, name="A study with a long name for narrow screens")
    set_instructions(study, lead, "Read **everything**.", "first")
    label_with(alice, study, issues[0], "C.1", note=long_note)
    label_with(bob, study, issues[0], "C.2", note=long_note)
    context = browser.new_context(viewport={"width": WIDTH, "height": 844})
    page = context.new_page()
    too_wide = {}
    s = study.pk
    for user, paths in (
        (alice, [f"/studies/{s}/queue/", "/", f"/studies/{s}/", f"/studies/{s}/issues/",
                 f"/studies/{s}/codebook/", f"/studies/{s}/proposals/"]),
        (lead, [f"/studies/{s}/", f"/studies/{s}/members/", f"/studies/{s}/settings/", f"/studies/{s}/annotators/",
                f"/studies/{s}/codebook/changes/", f"/studies/{s}/codebook/instructions/",
                f"/studies/{s}/history/"]),
        (admin, ["/sources/", "/screening/", "/studies/new/", f"/studies/{s}/agreement/", f"/studies/{s}/statistics/",
                 f"/studies/{s}/compare/", "/screening/report/"]),
    ):
        context.clear_cookies()
        _sign_in(page, live_server, user.username)
        for path in paths:
            page.goto(live_server.url + path)
            for dialog in page.locator("dialog[open]").all():
                dialog.evaluate("d => d.close()")
            if (extra := _overflow(page)) > 0:
                too_wide[path] = extra
    advance(study, lead, confirm_missing=True)  # into review: the review and adjudication tables
    context.clear_cookies()
    _sign_in(page, live_server, lead.username)
    for path in (f"/studies/{s}/review/", f"/studies/{s}/issues/{issues[0].pk}/"):
        page.goto(live_server.url + path)
        if (extra := _overflow(page)) > 0:
            too_wide[path] = extra
    context.close()
    assert too_wide == {}, sorted(too_wide.items())
