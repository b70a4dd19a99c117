"""What long labeling sessions need: nothing typed is lost on a reload or a dropped connection, skipping
takes a reason, "previous" goes back, and the page is usable by a screen reader."""
from __future__ import annotations

import pytest

from annotation.models import Assignment, Label
from tests.factories import make_issue, make_study, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def signed_in(live_server, page):
    lead = make_user("lead")
    annotator = make_user("alice")
    issues = [make_issue(title=f"Report number {n}") for n in range(1, 4)]
    study = make_study(lead, [annotator], issues=issues)
    page.goto(f"{live_server.url}/accounts/login/?next=/studies/{study.pk}/queue/")
    page.fill("input[name=username]", "alice")
    page.fill("input[name=password]", "pw-alice")
    page.press("input[name=password]", "Enter")
    page.wait_for_selector("#label-form[data-ready]")  # the keyboard handlers are in place
    return live_server, study, annotator, issues


def test_a_reload_restores_the_choices_and_the_note(signed_in, page):
    _, _, annotator, _ = signed_in
    page.keyboard.press("3")
    page.keyboard.press("0")
    page.keyboard.press("2")
    page.keyboard.press("n")
    page.keyboard.type("half-written symptoms")
    page.reload()
    page.wait_for_selector("#label-form[data-ready]")
    page.wait_for_selector("#draft-notice:visible")
    assert page.input_value("textarea[name=note]") == "half-written symptoms"
    assert page.get_by_role("radio", name="Bug", exact=True).is_checked()
    assert page.locator("fieldset[data-level=theme]:visible input:checked").count() == 1
    page.keyboard.press("Escape")
    page.locator("body").press("Enter")
    page.locator("h1.issue-title", has_text="Report number 2").wait_for()
    label = Label.objects.get(annotator=annotator)
    assert label.code.startswith("C.2") and label.note == "half-written symptoms"
    # Saved drafts are gone: coming back to the first report shows the saved label, not a stale draft.
    assert page.evaluate("Object.keys(localStorage).filter(k => k.startsWith('concord-draft')).length") == 0


def test_a_lost_connection_keeps_everything_and_says_so(signed_in, page):
    _, _, annotator, _ = signed_in
    page.keyboard.press("4")  # not relevant
    page.keyboard.press("n")
    page.keyboard.type("spam")
    page.keyboard.press("Escape")
    # The browser goes offline (as a dropped Wi-Fi does): the post fails in the browser itself.
    page.context.set_offline(True)
    page.keyboard.press("Enter")
    page.wait_for_selector("#status .error")
    assert "connection was lost" in page.inner_text("#status")
    assert page.input_value("textarea[name=note]") == "spam" and not Label.objects.exists()
    page.context.set_offline(False)
    page.keyboard.press("Enter")
    page.locator("h1.issue-title", has_text="Report number 2").wait_for()
    assert Label.objects.get(annotator=annotator).note == "spam"


def test_skip_with_a_reason_and_go_back_with_previous(signed_in, page):
    _, _, annotator, issues = signed_in
    page.keyboard.press("s")
    assert page.evaluate("document.activeElement.id") == "skip-reason"
    page.keyboard.type("The report is unclear")
    page.keyboard.press("Enter")
    page.locator("h1.issue-title", has_text="Report number 2").wait_for()
    assert page.inner_text("#status") == "Skipped."  # a skip says so, as a save does
    assert Assignment.objects.get(issue=issues[0], queue__annotator=annotator).skip_reason == "The report is unclear"
    page.keyboard.press("4")
    page.keyboard.press("Enter")
    page.locator("h1.issue-title", has_text="Report number 3").wait_for()
    page.keyboard.press("p")
    page.locator("h1.issue-title", has_text="Report number 2").wait_for()
    assert "You labeled this report already (NR)" in page.inner_text("#label-form")
    # The report opened as a whole page: its title has the focus, as after a save.
    page.wait_for_selector("#label-form[data-ready]")
    assert page.evaluate("document.activeElement.id") == "issue-title"


def test_controls_are_labelled_and_focus_is_visible(signed_in, page):
    # Every radio, the note and the skip reason have an accessible name; each choice is described by its
    # definition; the focus ring is drawn.
    for name in ("Question", "Requirement", "Bug", "Not relevant"):
        assert page.get_by_role("radio", name=name, exact=True).count() == 1
    assert page.get_by_role("textbox", name="Note: symptoms, intent or suggested fix").count() == 1
    assert page.get_by_role("combobox", name="Skip for now, because…").count() == 1
    described = page.evaluate("""() => { const r = document.querySelector('input[name=type]');
        return document.getElementById(r.getAttribute('aria-describedby')).innerText; }""")
    assert "question" in described.lower() or len(described) > 10
    page.keyboard.press("Tab")
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline not in ("", "none")
