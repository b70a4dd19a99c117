"""Every main page fits a 390 px wide phone without scrolling sideways; wide tables scroll inside their card."""
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


# Every word of a table's header, and every number in its cells, must stand on one line: a table too wide for its
# card scrolls inside it instead of splitting "0.56" or "Revisions".
SPLIT_WORDS = """() => {
  const split = [];
  for (const cell of document.querySelectorAll('table th, table td')) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const match of node.textContent.matchAll(/\\S+/g)) {
        const word = match[0];
        if (cell.tagName === 'TD' && !/^[-+−]?[\\d.,%]+$/.test(word)) continue;
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + word.length);
        const lines = new Set(Array.from(range.getClientRects()).map(r => Math.round(r.top)));
        if (lines.size > 1) split.push(word);
      }
    }
  }
  return split;
}"""


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
            if split := page.evaluate(SPLIT_WORDS):
                too_wide[path] = split
    advance(study, lead, confirm_missing=True)  # into review: the review and adjudication tables
    context.clear_cookies()
    _sign_in(page, live_server, lead.username)
    for path in (f"/studies/{s}/review/", f"/studies/{s}/issues/{issues[0].pk}/"):
        page.goto(live_server.url + path)
        if (extra := _overflow(page)) > 0:
            too_wide[path] = extra
    context.close()
    assert too_wide == {}, sorted(too_wide.items())


def test_no_table_splits_a_word_or_a_number_at_1280_pixels(live_server, browser):
    lead, alice, bob = make_user("lead"), make_user("alice"), make_user("bob")
    issues = [make_issue(title=f"Report {n}") for n in range(1, 4)]
    study = make_study(lead, [alice, bob], issues=issues, name="Wide")
    for person, code in ((alice, "C.1"), (bob, "C.2"), (lead, "C.1")):
        for issue in issues:
            label_with(person, study, issue, code)
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    _sign_in(page, live_server, lead.username)
    split = {}
    s = study.pk
    for path in (f"/studies/{s}/annotators/", f"/studies/{s}/agreement/", f"/studies/{s}/history/",
                 f"/studies/{s}/issues/", f"/studies/{s}/statistics/", f"/studies/{s}/reports/{issues[0].pk}/"):
        page.goto(live_server.url + path)
        if words := page.evaluate(SPLIT_WORDS):
            split[path] = words
    context.close()
    assert split == {}
