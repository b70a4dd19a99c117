"""A seeded monkey on the labeling page: thousands of random keys at random speeds (digits, Enter, Backspace, n,
Ctrl+Enter, Esc, p, s, /, ?), reloads and a dropped connection. The page keeps a ledger of what it showed at
every key, and at the end every stored version of every label must be exactly the choice and note the screen
showed at a save, on the report it showed, in the order they were shown; a report seen for the first time must
show nothing chosen; a report seen again must show only what was on it before."""
from __future__ import annotations

import json
import os
import random

import pytest
from playwright.sync_api import Error as PlaywrightError

from annotation.models import Label
from taxonomy.services import add_category
from tests.factories import category, make_issue, make_study, make_user

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]
KEYS = int(os.environ.get("CONCORD_MONKEY_KEYS", "1500"))
SEED = int(os.environ.get("CONCORD_MONKEY_SEED", "20261202"))

# Before the page's own handlers (window, capture phase), what the screen shows as each key is pressed.
LEDGER = """(() => {
  const shown = () => {
    const f = document.getElementById("label-form");
    if (!f) return { form: false };
    const value = (n) => { const r = f.querySelector(`input[name=${n}]:checked`); return r ? r.value : ""; };
    const posts = (f.getAttribute("action").match(/issues\\/(\\d+)\\/label/) || [])[1] || "";
    const article = document.querySelector("article[data-issue]");
    return { form: true, issue: article ? article.dataset.issue : "", posts, type: value("type"),
             theme: value("theme"), sub_theme: value("sub_theme"),
             note: (f.querySelector("textarea[name=note]") || { value: "" }).value };
  };
  window.addEventListener("keydown", (event) => {
    const ledger = JSON.parse(sessionStorage.getItem("ledger") || "[]");
    const focus = document.activeElement ? (document.activeElement.id || document.activeElement.tagName) : "";
    ledger.push({ key: event.key, ctrl: event.ctrlKey, focus, ...shown() });
    sessionStorage.setItem("ledger", JSON.stringify(ledger));
  }, true);
  // And after the page's handlers and the text the key typed: a key may change the screen just before the page
  // moves to another report (a whole-page visit under way) or is reloaded, with no later key on this one to see
  // it. A choice made by a handler that stops the key there (Enter in the "/" palette picks a whole path) is
  // seen by its change events.
  const after = () => {
    const ledger = JSON.parse(sessionStorage.getItem("ledger") || "[]");
    const last = ledger[ledger.length - 1];
    if (last && last.form) {
      last.after = [...(last.after || []), shown()];
      sessionStorage.setItem("ledger", JSON.stringify(ledger));
    }
  };
  window.addEventListener("keydown", after);
  window.addEventListener("input", after);
  window.addEventListener("change", after);
})();"""

# (key, weight): digits most, the rest as a hurried annotator presses them.
PRESSES = [*((str(d), 6) for d in range(10)), ("Enter", 10), ("Backspace", 4), ("n", 2), ("Control+Enter", 3),
           ("Escape", 4), ("p", 2), ("s", 1), ("/", 1), ("?", 1), ("a", 2), ("x", 1)]


def _choice(shown: dict) -> tuple:
    return (shown["type"], shown["theme"], shown["sub_theme"], shown["note"].replace("\r\n", "\n").strip())


def _stored(version) -> tuple:
    return ("NR" if not version.is_relevant else str(version.type_id), str(version.theme_id or ""),
            str(version.sub_theme_id or ""), version.note)


def _trail(ledger: list[dict], at: int, annotator, issue: str) -> str:
    """What led to a failure: the keys before it, each with the report and what the screen showed before the key
    and after it, and every version stored of the report, so that a rare failure can be read from its log."""
    lines = [f"{e['key']}{' +ctrl' if e['ctrl'] else ''} on {e['issue']} (focus {e['focus']}): {_choice(e)}"
             + "".join(f" -> {a['issue']}: {_choice(a)}" for a in e.get("after") or [] if a.get("form"))
             for e in ledger[max(0, at - 40):at + 1]]
    stored = [f"{v.history_date:%H:%M:%S.%f} {v.history_type} {_stored(v)}"
              for v in Label.history.filter(annotator=annotator, issue_id=int(issue)).order_by("history_date")]
    return "keys before it:\n  " + "\n  ".join(lines) + "\nstored versions:\n  " + "\n  ".join(stored)


def _reload(page) -> None:
    """Reload; a whole-page visit that a key started just before aborts a reload, which is then tried again."""
    for _ in range(3):
        try:
            page.reload()
            return
        except PlaywrightError:
            page.wait_for_load_state()
    page.reload()


def test_a_monkey_on_the_labeling_page_stores_only_what_the_screen_showed(live_server, page):
    alice = make_user("alice")
    issues = [make_issue(title=f"Report {n}") for n in range(1, 41)]
    study = make_study(make_user("lead"), [alice], issues=issues)
    bug = category("C", study.codebook)
    add_category(bug, "An eleventh theme", "Grown in the pilot.")  # C.11: a list of two-digit keys
    page.context.add_init_script(LEDGER)
    page.goto(f"{live_server.url}/accounts/login/?next=/studies/{study.pk}/queue/")
    page.fill("input[name=username]", "alice")
    page.fill("input[name=password]", "pw-alice")
    page.press("input[name=password]", "Enter")
    page.wait_for_selector("#label-form[data-ready]")
    page.evaluate("sessionStorage.removeItem('ledger'); localStorage.clear()")

    rng = random.Random(SEED)
    keys, weights = zip(*PRESSES, strict=True)
    offline_until = -1
    for n in range(KEYS):
        if n % 300 == 299:
            _reload(page)  # mid-draft, as a tired annotator does
            page.wait_for_selector("#workspace")
        if n % 500 == 250:
            page.context.set_offline(True)  # the connection drops for a stretch of keys
            offline_until = n + 25
        if n == offline_until:
            page.context.set_offline(False)
        key = rng.choices(keys, weights)[0]
        if page.context and n < offline_until and key == "p":
            continue  # a whole-page visit while offline would leave the page altogether
        page.keyboard.press(key)
        pause = rng.choice([0, 0, 0, 0, 5, 20, 80, 250])
        if pause:
            page.wait_for_timeout(pause)
        if n % 25 == 0 and not page.locator("#label-form").count() and not page.locator("dialog[open]").count():
            # The queue is done (or a whole-page visit went astray): revise a report picked at random.
            page.context.set_offline(False)
            offline_until = -1
            target = rng.choice(issues)
            page.goto(f"{live_server.url}/studies/{study.pk}/issues/{target.pk}/")
            page.wait_for_selector("#label-form[data-ready]")
    page.context.set_offline(False)
    page.wait_for_timeout(1500)  # the last save lands

    ledger = [e for e in json.loads(page.evaluate("sessionStorage.getItem('ledger') || '[]'")) if e["form"]]
    assert len(ledger) > KEYS // 2
    # The form always posts to the report it shows.
    assert all(e["posts"] == e["issue"] for e in ledger)

    # A report seen for the first time shows nothing chosen; seen again, only what was on it before.
    seen: dict[str, set] = {}
    previous = None
    for at, entry in enumerate(ledger):
        if entry["issue"] != previous:
            before = seen.get(entry["issue"])
            state = _choice(entry)
            if before is None:
                assert state == ("", "", "", ""), \
                    f"report {entry['issue']} opened with {state}\n{_trail(ledger, at, alice, entry['issue'])}"
            else:
                assert state == ("", "", "", "") or state in before, \
                    f"report {entry['issue']} came back with {state}, never on it before\n" \
                    f"{_trail(ledger, at, alice, entry['issue'])}"
            previous = entry["issue"]
        seen.setdefault(entry["issue"], set()).add(_choice(entry))
        for after in entry.get("after") or []:
            if after.get("form") and after["issue"] == entry["issue"]:
                seen[entry["issue"]].add(_choice(after))

    # Every stored version was on screen at a save (Enter or Ctrl+Enter), on its report, in the order shown.
    saves = [e for e in ledger if e["key"] == "Enter"]
    versions = list(Label.history.filter(annotator=alice).order_by("history_date", "history_id"))
    assert versions, "the monkey saved nothing: the test proves nothing"
    at = -1
    last: dict[int, tuple] = {}
    for version in versions:
        stored = _stored(version)
        match = next((i for i in range(at + 1, len(saves))
                      if saves[i]["issue"] == str(version.issue_id) and _choice(saves[i]) == stored), None)
        assert match is not None, f"report {version.issue_id} stored {stored}, never shown at a save after the last"
        at = match
        # No version repeats the one before it: an unchanged save stores nothing.
        assert last.get(version.issue_id) != stored, f"report {version.issue_id} stored {stored} twice in a row"
        last[version.issue_id] = stored
    for label in Label.objects.filter(annotator=alice):
        assert _stored(label) == last[label.issue_id]
