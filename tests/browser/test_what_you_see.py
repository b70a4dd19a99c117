"""What the screen shows is what is stored, on the report it showed: a note saved with Ctrl+Enter stays on its own
report, a sequence of keys means the same at any typing speed, and a double Enter saves once."""
from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from annotation.models import Label
from annotation.services.labels import version_of
from taxonomy.codes import roman
from taxonomy.models import Category
from tests.factories import category, make_issue, make_study, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
CHECKED = """() => ['type', 'theme', 'sub_theme'].map(n => {
    const r = document.querySelector(`#label-form input[name=${n}]:checked`);
    return r ? (r.dataset.code || r.value) : null; })"""


def sign_in(live_server, page, study, username="alice"):
    page.goto(f"{live_server.url}/accounts/login/?next=/studies/{study.pk}/queue/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", f"pw-{username}")
    page.press("input[name=password]", "Enter")
    page.wait_for_selector("#label-form[data-ready]")


def test_ctrl_enter_from_the_note_leaves_the_next_report_untouched(live_server, page):
    alice = make_user("alice")
    issues = [make_issue(title=f"Report {n}") for n in range(1, 5)]
    study = make_study(make_user("lead"), [alice], issues=issues)
    sign_in(live_server, page, study)
    for n in range(1, 4):
        expect(page.locator("h1.issue-title")).to_have_text(f"Report {n}")
        for key in "30" "11":  # Bug › C.1 › C.1.i
            page.keyboard.press(key)
        page.keyboard.press("n")
        page.keyboard.type(f"note of report {n}")
        page.keyboard.press("Control+Enter")
        expect(page.locator("h1.issue-title")).to_have_text(f"Report {n + 1}")
        # The next report opens empty: no choice, no note, no "restored" notice, no draft stored for it.
        assert page.evaluate(CHECKED) == [None, None, None]
        assert page.input_value("textarea[name=note]") == ""
        assert page.locator("#draft-notice").is_hidden()
        page.wait_for_timeout(150)  # a late change event would have written its draft by now
        drafts = page.evaluate("Object.keys(localStorage).filter(k => k.startsWith('concord-draft'))")
        assert drafts == [], drafts
        label = Label.objects.get(annotator=alice, issue=issues[n - 1])
        assert (label.code, label.note) == ("C.1.i", f"note of report {n}")
    page.reload()
    page.wait_for_selector("#label-form[data-ready]")
    assert page.evaluate(CHECKED) == [None, None, None] and page.locator("#draft-notice").is_hidden()
    assert Label.objects.filter(annotator=alice).count() == 3


def _grow(study, parent_code: str, up_to: int) -> None:
    """Children of `parent_code` numbered on from its last one, as a pilot's additions are, up to `up_to`."""
    parent = category(parent_code, study.codebook)
    kids = list(parent.children.order_by("position"))
    level = Category.Level.THEME if parent.level == Category.Level.TYPE else Category.Level.SUB_THEME
    for n in range(len(kids) + 1, up_to + 1):
        code = f"{parent_code}.{n if level == Category.Level.THEME else roman(n)}"
        Category.objects.create(codebook=study.codebook, parent=parent, level=level, code=code,
                                name=f"Grown {code}", position=1000 + n)


# (how far C's themes and C.1's sub-themes grow, keys typed, the path they choose)
CASES = [
    (11, 6, "311", ("C", "C.11", None)),
    (11, 6, "3011", ("C", "C.1", "C.1.i")),
    (20, 6, "3192", ("C", "C.19", "C.19.ii")),
    (20, 6, "3023", ("C", "C.2", "C.2.iii")),
    (11, 25, "30110", ("C", "C.1", "C.1.x")),
    (11, 25, "30125", ("C", "C.1", "C.1.xxv")),
]


@pytest.mark.parametrize(("themes", "subs", "keys", "chosen"), CASES)
def test_keys_mean_the_same_at_any_typing_speed(live_server, page, themes, subs, keys, chosen):
    lead = make_user("lead")
    alice = make_user("alice")
    study = make_study(lead, [alice], issues=[make_issue(title="Report 1"), make_issue(title="Report 2")])
    _grow(study, "C", themes)
    _grow(study, "C.1", subs)
    if themes >= 19:
        _grow(study, "C.19", 2)
    sign_in(live_server, page, study)
    seen = []
    for delay in (0, 1000):
        page.evaluate("localStorage.clear()")
        page.reload()
        page.wait_for_selector("#label-form[data-ready]")
        for key in keys:
            page.keyboard.press(key)
            page.wait_for_timeout(delay)
        seen.append(tuple(page.evaluate(CHECKED)))
    assert seen == [chosen, chosen]
    # Keys are shown as typed: every chip of a list of ten or more has two digits.
    themes_of_c = page.locator(f"fieldset[data-level=theme][data-parent='{category('C', study.codebook).pk}'] kbd")
    assert themes_of_c.first.inner_text() == "01" and themes_of_c.nth(themes - 1).inner_text() == str(themes)
    page.keyboard.press("Enter")
    expect(page.locator("h1.issue-title")).to_have_text("Report 2")
    assert Label.objects.get(annotator=alice).code == (chosen[2] or chosen[1])


def test_a_digit_waiting_for_its_pair_is_shown_and_enter_does_not_save_past_it(live_server, page):
    alice = make_user("alice")
    study = make_study(make_user("lead"), [alice], issues=[make_issue(title="Report 1")])
    sign_in(live_server, page, study)
    page.keyboard.press("3")
    page.keyboard.press("1")
    expect(page.locator("[data-chosen]")).to_contain_text("1_")
    page.keyboard.press("Enter")
    expect(page.locator("#status .error")).to_contain_text("next digit")
    assert not Label.objects.exists()
    page.keyboard.press("Backspace")  # drops the waiting digit, not the type
    assert page.evaluate(CHECKED) == ["C", None, None]
    for key in "0":
        page.keyboard.press(key)
    page.keyboard.press("Escape")
    assert "_" not in page.inner_text("[data-chosen]")
    for key in "05":
        page.keyboard.press(key)
    assert page.evaluate(CHECKED) == ["C", "C.5", None]


def test_a_double_enter_saves_once(live_server, page):
    alice = make_user("alice")
    issues = [make_issue(title="Report 1"), make_issue(title="Report 2"), make_issue(title="Report 3")]
    study = make_study(make_user("lead"), [alice], issues=issues)
    sign_in(live_server, page, study)
    for key in "302":
        page.keyboard.press(key)
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")
    expect(page.locator("h1.issue-title")).to_have_text("Report 2")
    page.wait_for_timeout(300)
    # One label, one version in history; the second report was not labeled by the second Enter.
    label = Label.objects.get(annotator=alice)
    assert (label.issue, label.code, label.history.count()) == (issues[0], "C.2", 1)
    # Revisiting the label and pressing Enter without a change stores no new version either.
    page.keyboard.press("p")
    expect(page.locator("h1.issue-title")).to_have_text("Report 1")
    page.wait_for_selector("#label-form[data-ready]")
    page.keyboard.press("Enter")
    expect(page.locator("h1.issue-title")).to_have_text("Report 2")
    assert Label.objects.get(annotator=alice).history.count() == 1


def test_a_next_report_that_does_not_arrive_leaves_the_saved_one_said_as_saved(live_server, page):
    """The label is saved, then the connection drops before the next report comes: the page said "Not saved" of a
    stored label, and the unanswered request surfaced as an uncaught script error. It says the label is saved and
    the next report missing; keys do not change the report on screen; Enter fetches the next one."""
    alice = make_user("alice")
    issues = [make_issue(title="Report 1"), make_issue(title="Report 2")]
    study = make_study(make_user("lead"), [alice], issues=issues)
    sign_in(live_server, page, study)
    queue = f"**/studies/{study.pk}/queue/"
    page.route(queue, lambda route: route.abort("internetdisconnected"))
    for key in "302":
        page.keyboard.press(key)
    page.keyboard.press("Enter")
    expect(page.locator("#status .error")).to_contain_text("Saved, but the next report did not arrive")
    assert Label.objects.get(annotator=alice, issue=issues[0]).code == "C.2"
    page.keyboard.press("1")  # the report on screen is stored as shown: no key changes it now
    assert page.evaluate(CHECKED) == ["C", "C.2", None]
    page.unroute(queue)
    page.keyboard.press("Enter")
    expect(page.locator("h1.issue-title")).to_have_text("Report 2")
    expect(page.locator("#status")).to_have_text("Saved.")
    assert Label.objects.get(annotator=alice, issue=issues[0]).history.count() == 1
    assert page.csp_problems == []


# Keys typed as a task of their own the moment the next report's title is on screen: the earliest a person can
# act on what they see. Dispatched from the page so that no round trip to the test can hide a gap.
TYPE_ON_ARRIVAL = """(keys) => { window.arrived = new Promise((done) => {
    const before = document.querySelector('h1.issue-title').textContent;
    new MutationObserver((_, observer) => {
        const title = document.querySelector('h1.issue-title');
        if (!title || title.textContent === before) return;
        observer.disconnect();
        setTimeout(() => {
            for (const key of keys) {
                const event = new KeyboardEvent('keydown', {key, bubbles: true, cancelable: true});
                document.activeElement.dispatchEvent(event);
            }
            done(title.textContent);
        }, 0);
    }).observe(document.body, {childList: true, subtree: true, characterData: true});
}); }"""


def test_keys_typed_the_moment_the_next_report_shows_choose_on_it(live_server, page):
    alice = make_user("alice")
    issues = [make_issue(title=f"Report {n}") for n in range(1, 4)]
    study = make_study(make_user("lead"), [alice], issues=issues)
    _grow(study, "C", 11)
    sign_in(live_server, page, study)
    for key in "301":
        page.keyboard.press(key)
    page.evaluate(TYPE_ON_ARRIVAL, list("3011"))
    page.keyboard.press("Enter")
    assert page.evaluate("window.arrived") == "Report 2"
    # The new report shows the whole path the keys chose, its lists open as for keys typed later.
    assert page.evaluate(CHECKED) == ["C", "C.1", "C.1.i"]
    expect(page.locator("[data-chosen]")).to_contain_text("C.1.i")
    page.keyboard.press("Enter")
    expect(page.locator("h1.issue-title")).to_have_text("Report 3")
    assert [(lb.issue_id, lb.code) for lb in Label.objects.filter(annotator=alice).order_by("issue_id")] == [
        (issues[0].pk, "C.1"), (issues[1].pk, "C.1.i")]


def test_a_draft_comes_back_as_it_was_shown_not_mixed_with_the_stored_label(live_server, page):
    """A draft newer than the stored label is the screen as the annotator left it: the levels it left empty show
    empty, never the stored label's choices there beside the draft's note."""
    alice = make_user("alice")
    issues = [make_issue(title=f"Report {n}") for n in range(1, 4)]
    study = make_study(make_user("lead"), [alice], issues=issues)
    sign_in(live_server, page, study)
    for key in "30" "11":  # Bug › C.1 › C.1.i
        page.keyboard.press(key)
    page.keyboard.press("n")
    page.keyboard.type("stored note")
    page.keyboard.press("Control+Enter")
    expect(page.locator("h1.issue-title")).to_have_text("Report 2")
    label = Label.objects.get(annotator=alice, issue=issues[0])
    # Back on report 1 later, the annotator cleared the theme and the note and left: the draft says so.
    key = f"concord-draft:{alice.pk}:{study.pk}:{label.round_id}:{issues[0].pk}"
    draft = {"type": str(label.type_id), "theme": "", "sub_theme": "", "note": "", "base": version_of(label)}
    page.evaluate("([key, value]) => localStorage.setItem(key, value)", [key, json.dumps(draft)])
    page.goto(f"{live_server.url}/studies/{study.pk}/issues/{issues[0].pk}/")
    page.wait_for_selector("#label-form[data-ready]")
    assert page.evaluate(CHECKED) == ["C", None, None]
    assert page.input_value("textarea[name=note]") == "" and page.locator("#draft-notice").is_visible()
