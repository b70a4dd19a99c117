"""Every choice is reachable from the keyboard whatever the codebook's size, and a category keeps its key when
others are split off or retired."""
from __future__ import annotations

import pytest

from annotation.models import Label
from codebook.services.changes import split
from taxonomy.services import add_category
from tests.factories import category, make_issue, make_study, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
THEME = "fieldset[data-level=theme]:visible input:checked"


@pytest.fixture
def grown(live_server, page):
    """Bug's themes after C.3 was split into C.11 and C.12 and more were added, up to C.25: 24 live themes."""
    lead, annotator = make_user("lead"), make_user("alice")
    study = make_study(lead, [annotator], issues=[make_issue(title=f"Report {n}") for n in range(1, 5)])
    split(study, lead, category("C.3", study.codebook).pk, [("Shapes", "Wrong shapes."), ("Dtypes", "Wrong dtypes.")],
          "two kinds of fault")
    bug = category("C", study.codebook)
    for n in range(13, 26):
        add_category(bug, f"Extra theme {n}", "Added to grow the list.")
    page.goto(f"{live_server.url}/accounts/login/?next=/studies/{study.pk}/queue/")
    page.fill("input[name=username]", "alice")
    page.fill("input[name=password]", "pw-alice")
    page.press("input[name=password]", "Enter")
    page.wait_for_selector("#label-form[data-ready]")
    return study, annotator


def _save_and_wait(page, title: str):
    page.keyboard.press("Enter")
    page.locator("h1.issue-title", has_text=title).wait_for()
    page.wait_for_selector("#label-form[data-ready]")


def test_the_11th_and_the_25th_theme_by_their_digits_and_keys_that_stay_with_codes(grown, page):
    study, annotator = grown
    page.keyboard.press("3")  # Bug
    # A list of ten or more: every key has two digits, shown so on its chip.
    assert page.locator("fieldset[data-level=theme]:visible input[data-code='C.4']").get_attribute("data-key") == "04"
    page.keyboard.press("1")
    page.keyboard.press("1")  # 11 at any speed; C.1 is 01
    assert page.locator(THEME).get_attribute("data-code") == "C.11"
    # The sticky line names the path beside Save, and stays in view however long the lists.
    line = page.locator("[data-chosen]")
    assert line.inner_text() == "Bug › C.11 Shapes"
    page.locator("fieldset[data-level=theme]:visible input[data-code='C.1']").scroll_into_view_if_needed()
    height = page.viewport_size["height"]
    for shown in (line, page.locator("[data-action=submit]")):
        box = shown.bounding_box()
        assert box and 0 <= box["y"] and box["y"] + box["height"] <= height
    _save_and_wait(page, "Report 2")
    assert page.inner_text("#status") == "Saved."  # stays on the next report until the next action
    page.keyboard.press("3")
    assert page.inner_text("#status") == ""
    page.keyboard.press("2")
    page.keyboard.press("5")
    assert page.locator(THEME).get_attribute("data-code") == "C.25"
    _save_and_wait(page, "Report 3")
    page.keyboard.press("3")
    page.keyboard.press("0")
    page.keyboard.press("4")  # C.4 kept its key when C.3 was retired
    assert page.locator(THEME).get_attribute("data-code") == "C.4"
    _save_and_wait(page, "Report 4")
    codes = dict(Label.objects.filter(annotator=annotator).values_list("issue__title", "theme__code"))
    assert codes == {"Report 1": "C.11", "Report 2": "C.25", "Report 3": "C.4"}


def test_find_a_category_by_code_or_name(grown, page):
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "palette-input"
    page.keyboard.type("dtypes")
    assert page.locator("#palette-list [role=option]").all_inner_texts() == ["Bug › C.12 Dtypes"]
    page.keyboard.press("Enter")  # picks the path; does not save
    assert page.locator("#palette").is_hidden()
    assert page.locator(THEME).get_attribute("data-code") == "C.12"
    assert page.get_by_role("radio", name="Bug", exact=True).is_checked()
    page.keyboard.press("/")
    page.keyboard.type("C.2.")
    options = page.locator("#palette-list [role=option]").all_inner_texts()
    assert len(options) > 1 and all(o.startswith("Bug › C.2 ") and " › C.2." in o for o in options), options
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Escape")  # closes without choosing
    assert page.locator(THEME).get_attribute("data-code") == "C.12"
    _save_and_wait(page, "Report 2")
    assert Label.objects.get(issue__title="Report 1").theme.code == "C.12"


def test_an_enter_before_the_form_is_ready_waits_instead_of_posting_the_page(grown, page):
    study, annotator = grown
    queue_url = page.url
    page.keyboard.press("4")  # not relevant
    # The form as it is in the moment after a swap, before htmx has taken it over: a copy htmx has not seen.
    page.evaluate("""() => { const f = document.getElementById('label-form'); const copy = f.cloneNode(true);
        copy.removeAttribute('data-ready'); copy.removeAttribute('data-wired'); f.replaceWith(copy); }""")
    page.keyboard.press("Enter")
    page.wait_for_timeout(300)
    assert page.url == queue_url and not Label.objects.exists()
    # htmx takes over the form: the waiting submit goes, as htmx's, and the next report comes in its place.
    page.evaluate("htmx.process(document.getElementById('label-form'))")
    page.evaluate("document.body.dispatchEvent(new CustomEvent('htmx:load', {bubbles: true}))")
    page.locator("h1.issue-title", has_text="Report 2").wait_for()
    assert page.url == queue_url and Label.objects.get(annotator=annotator).code == "NR"
