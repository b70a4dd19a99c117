"""An annotator logs in and labels a report with the keyboard only."""
from __future__ import annotations

import pytest

from annotation.models import Label
from tests.factories import make_issue, make_study, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
THEMES = "fieldset[data-level=theme]"
SUBS = "fieldset[data-level=sub_theme]"


def test_annotator_labels_a_report_with_the_keyboard_only(live_server, page):
    lead = make_user("lead")
    annotator = make_user("alice")
    issues = [make_issue(title="Llama 70B OOM with tensor parallel", body="Hello <script>window.pwned = 1</script>"),
              make_issue(title="Second report")]
    study = make_study(lead, [annotator], issues=issues)

    page.goto(f"{live_server.url}/accounts/login/?next=/studies/{study.pk}/queue/")
    # Log in with the keyboard: the username field has focus, Tab moves, Enter submits.
    page.keyboard.type("alice")
    page.keyboard.press("Tab")
    page.keyboard.type("pw-alice")
    page.keyboard.press("Enter")
    page.wait_for_selector("#label-form[data-ready]")
    assert "Llama 70B OOM" in page.inner_text("h1.issue-title")
    assert page.evaluate("window.pwned") is None

    page.keyboard.press("3")  # Bug
    page.wait_for_selector(f"{THEMES}:visible")
    page.keyboard.press("0")  # Bug has ten themes: their keys have two digits
    page.keyboard.press("2")  # C.2
    page.wait_for_selector(f"{SUBS}:visible")
    page.keyboard.press("4")  # C.2.iv
    page.keyboard.press("n")
    page.keyboard.type("OOM at 70B, TP=4")
    page.keyboard.press("Escape")
    page.keyboard.press("Enter")

    page.locator("h1.issue-title", has_text="Second report").wait_for()
    assert "1 of 2 labeled" in page.inner_text("[data-testid=progress]")
    # The new report's title has the focus, so a screen reader reads it out.
    assert page.evaluate("document.activeElement.id") == "issue-title"
    label = Label.objects.get(annotator=annotator)
    assert (label.issue, label.code, label.note) == (issues[0], "C.2.iv", "OOM at 70B, TP=4")

    # s skips, Backspace undoes a choice; the second report is then labeled not relevant (key 4).
    page.keyboard.press("1")
    page.wait_for_selector(f"{THEMES}:visible")
    page.keyboard.press("Backspace")
    assert page.locator(f"{THEMES}:visible").count() == 0
    page.keyboard.press("4")
    page.keyboard.press("Enter")
    page.wait_for_selector("text=All done")
    assert Label.objects.get(annotator=annotator, issue=issues[1]).code == "NR"
    # At the queue's end p goes back to its last report, as from any report: the one just labeled.
    page.keyboard.press("p")
    page.locator("h1.issue-title", has_text="Second report").wait_for()
    page.get_by_text("You labeled this report already").wait_for()


@pytest.mark.parametrize("delay", [0, 40])
def test_a_full_path_typed_on_a_labeled_report_replaces_the_whole_label(live_server, page, delay):
    """On a report labeled before, "3 0 2 1" means what it means on a new one: the type digit starts the path
    again (it changed only the sub-theme under the old theme), typed at full speed or slowly."""
    from tests.factories import label_with

    lead, annotator = make_user("lead"), make_user("alice")
    issue = make_issue(title="Labeled before")
    study = make_study(lead, [annotator], issues=[issue])
    label_with(annotator, study, issue, "A.1.i" if delay else "A.1")  # every level chosen, or the theme only
    page.goto(f"{live_server.url}/accounts/login/?next=/studies/{study.pk}/issues/{issue.pk}/")
    page.fill("input[name=username]", "alice")
    page.fill("input[name=password]", "pw-alice")
    page.keyboard.press("Enter")
    page.wait_for_selector("#label-form[data-ready]")
    page.locator("body").click(position={"x": 2, "y": 2})
    assert page.inner_text("#label-form [data-chosen]").startswith("Question › A.1 ")
    page.keyboard.type("3021", delay=delay)
    chosen = page.inner_text("#label-form [data-chosen]")
    assert chosen.startswith("Bug › C.2 ") and " › C.2.i " in chosen, chosen
    page.keyboard.press("Enter")
    for _ in range(50):
        label = Label.objects.get(annotator=annotator, issue=issue)
        if not label.code.startswith("A.1"):
            break
        page.wait_for_timeout(100)
    assert label.code == "C.2.i"
