"""A whole study as its people run it, through the pages only, in Chromium: an admin sets it up, the lead labels
the pilot and grows the codebook, a volunteer joins by an invitation link (on a 390 px phone; the others at
1280 × 800), four people label the independent round by keyboard (digits, / find, notes saved with Ctrl+Enter
and with Enter, a skip, p, a double Enter, a reload mid-draft, a dropped connection), a proposal passes
unanimously, ties are reviewed with comments and re-labels, the lead adjudicates, the study closes, and every
export is downloaded. Midway the lead carries last year's decision about a machine to the study, hands it the
volunteer's seat and withdraws it again.

The test keeps its own ledger of what the screen showed at each save. At the end the exported corpus, the
label history and the agreement figures must say what the ledger says. On PostgreSQL with REDIS_URL set (CI)
the app's tasks run on a real Celery worker; elsewhere they run in the request."""
from __future__ import annotations

import csv
import io
import json
import os
import re
import time
import zipfile
from collections import Counter, defaultdict

import pytest
from django.contrib.auth import get_user_model
from django.utils import translation
from django.utils.translation.trans_real import DjangoTranslation
from playwright.sync_api import expect

from concord.numbers import number
from tests.factories import make_issue, make_source, make_user

REAL_WORKER = bool(os.environ.get("REDIS_URL") and os.environ.get("DATABASE_URL", "").startswith("postgres"))
pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True),
              *([pytest.mark.integration] if REAL_WORKER else [])]

if REAL_WORKER:
    from tests.test_celery_worker import celery_worker_process  # noqa: F401 - a fixture

TYPE_KEYS = {"A": "1", "B": "2", "C": "3", "NR": "4"}
ROMAN = ["i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x"]
# Reports 0–7 and what each of the four raters labels them in the independent round (the lead, ann1, ann2 and
# the volunteer, in that order): unanimous, majorities, a tie at the type, a tie at the theme, the grown theme.
PLAN = [
    ("C.1.i", "C.1.i", "C.1.i", "C.1.i"),
    ("C.2", "C.2", "C.2", "A.1"),
    ("C.1", "A.1", "C.1", "A.1"),    # tied at type: stays tied through the review, the lead decides
    ("NR", "NR", "NR", "NR"),
    ("B.1", "B.1", "B.2", "B.2"),    # tied at theme: ann1 re-labels B.2 in the review
    ("C.11", "C.11", "C.11", "C.3"),
    ("A.2", "A.2", "A.2", "A.2"),
    ("C.2", "C.2", "C.3", "C.4"),
]
RATERS = ["lead", "ann1", "ann2", "vol"]
EXPECTED_FINAL = {0: "C.1.i", 1: "C.2", 2: "C.1", 3: "NR", 4: "B.2", 5: "C.11", 6: "A.2", 7: "C.2"}

SHOWN = """() => {
  const f = document.getElementById("label-form");
  const checked = ["type", "theme", "sub_theme"].map(n => f.querySelector(`input[name=${n}]:checked`));
  const codes = checked.filter(Boolean).map(r => r.dataset.code || r.value);
  const article = document.querySelector("article[data-issue]");
  return { issue: article ? Number(article.dataset.issue) : null, code: codes.length ? codes[codes.length - 1] : "",
           note: f.querySelector("textarea[name=note]").value.trim() };
}"""


def keys_of(code: str, themes_of: dict[str, int]) -> list[str]:
    """The key presses that choose `code` on the labeling page: two digits in a list of ten or more."""
    if code == "NR":
        return [TYPE_KEYS["NR"]]
    parts = code.split(".")
    keys = [TYPE_KEYS[parts[0]]]
    if len(parts) > 1:
        width = 2 if themes_of[parts[0]] >= 10 else 1
        keys += list(parts[1].zfill(width))
    if len(parts) > 2:
        keys += list(str(ROMAN.index(parts[2]) + 1))
    return keys


class Words:
    """What the pages say, in the language the walk is made in: Django's catalogue, and the scripts' own."""

    def __init__(self, language: str):
        self.language = language

    def __call__(self, msgid: str, context: str | None = None, **params) -> str:
        with translation.override(self.language):
            said = translation.pgettext(context, msgid) if context else translation.gettext(msgid)
        return said % params if params else said

    def n(self, singular: str, plural: str, count: int, **params) -> str:
        with translation.override(self.language):
            return translation.ngettext(singular, plural, count) % {"count": count, **params}

    def js(self, msgid: str, **params) -> str:
        said = msgid if self.language == "en" else DjangoTranslation(self.language, domain="djangojs").gettext(msgid)
        return said % params if params else said

    def of(self, lazy) -> str:
        """A lazily translated text (a model's choice, a catalogue's entry) in the walk's language."""
        with translation.override(self.language):
            return str(lazy)

    def part(self, msgid: str, *unknown: str, **params) -> str:
        """The longest stretch of the sentence that does not depend on the values the test does not know."""
        said = self(msgid, **params, **{name: "\x00" for name in unknown})
        return max(said.split("\x00"), key=len).strip()


class Person:
    """One browser context signed in as one person. Every page it loads is kept (its address and HTML), for the
    walk in Chinese to read afterwards."""

    def __init__(self, browser, live_server, username: str, password: str, viewport=(1280, 800), locale="en-US"):
        self.name = username
        self.context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]}, locale=locale)
        self.page = self.context.new_page()
        self.page.set_default_timeout(20_000)
        self.page.on("pageerror", lambda e: pytest.fail(f"script error for {username}: {e}"))
        self.seen: list[tuple[str, str]] = []
        if locale != "en-US":
            self.page.on("load", self._keep)
        self.url = live_server.url
        if password:
            self.sign_in(password)

    def _keep(self, page):
        try:
            self.seen.append((page.url, page.content()))
        except Exception:  # noqa: BLE001 - a page left before it could be read is read at its next load
            pass

    def sign_in(self, password: str):
        self.page.goto(f"{self.url}/accounts/login/")
        self.page.fill("input[name=username]", self.name)
        self.page.fill("input[name=password]", password)
        self.page.press("input[name=password]", "Enter")
        self.page.wait_for_load_state()

    def go(self, path: str):
        self.page.goto(self.url + path)

    def get(self, path: str) -> bytes:
        response = self.page.request.get(self.url + path)
        assert response.ok, f"{path}: {response.status}"
        return response.body()

    def move_on(self, study_id: int, button: str, then: str):
        """Tick the study page's confirmation and press the button that moves the study on, as shown."""
        self.go(f"/studies/{study_id}/")
        form = self.page.locator("#move-on form")
        expect(form.locator("button[type=submit]")).to_have_text(button)
        form.locator("input[name=confirm]").check()
        with self.page.expect_navigation():
            form.locator("button[type=submit]").click()
        expect(self.page.locator("ol.phases [aria-current=step]")).to_have_text(then)


class Ledger:
    """What the screen showed at each save: (rater, report, round kind) → (code, note), and every save made."""

    def __init__(self):
        self.last: dict[tuple[str, int, str], tuple[str, str]] = {}
        self.saves: list[tuple[str, int, str, str, str]] = []

    def record(self, person: Person, kind: str) -> dict:
        shown = person.page.evaluate(SHOWN)
        return {"person": person.name, "kind": kind, **shown}

    def saved(self, shown: dict):
        key = (shown["person"], shown["issue"], shown["kind"])
        value = (shown["code"], shown["note"])
        if self.last.get(key) != value:
            self.saves.append((*key, *value))
        self.last[key] = value


def label(person: Person, ledger: Ledger, kind: str, code: str, themes_of: dict, *, note: str = "",
          how: str = "keys", save: str = "Enter", title_after: str | None = None):
    """Choose `code` (by digits, or by the / finder), write a note, save it; record what the screen showed."""
    page = person.page
    page.wait_for_selector("#label-form[data-ready]")
    title = page.inner_text("h1.issue-title")
    if how == "find":
        page.keyboard.press("/")
        page.keyboard.type(code)
        expect(page.locator("#palette-list [role=option]").first).to_contain_text(code)
        page.keyboard.press("Enter")
    else:
        for key in keys_of(code, themes_of):
            page.keyboard.press(key)
    if note:
        page.keyboard.press("n")
        page.keyboard.type(note)
        if save == "Enter":
            page.keyboard.press("Escape")
    shown = ledger.record(person, kind)
    assert shown["code"] == code, f"{person.name} chose {code}, the screen shows {shown['code']}"
    page.keyboard.press("Control+Enter" if save == "Control+Enter" else "Enter")
    if save == "double":
        page.keyboard.press("Enter")
    ledger.saved(shown)
    expect(page.locator("h1").first).not_to_have_text(title)
    if title_after:
        expect(page.locator("h1").first).to_have_text(title_after)
    return shown


def _csv(body: bytes) -> list[dict]:
    return list(csv.DictReader(io.StringIO(body.decode("utf-8-sig"))))


class WholeStudy:
    """The study's people and what the test knows of it, with a method for each stage of the method."""

    def __init__(self, browser, live_server, settings, language: str = "en"):
        from taxonomy.services import load_codebook

        self.browser, self.live_server = browser, live_server
        self.t = Words(language)
        self.locale = "zh-CN" if language.startswith("zh") else "en-US"
        source = make_source("acme/llm-runtime")
        self.issues = [make_issue(source, title=f"Report {n}: something about model serving", number=str(100 + n))
                       for n in range(8)]
        make_user("lead", is_staff=True, is_superuser=True)
        for name in ("ann1", "ann2"):
            make_user(name)
        self.codebook = load_codebook(settings.BASE_DIR / "taxonomy" / "codebooks" / "llm-centric-2025.json")
        self.ledger = Ledger()
        self.lead = Person(browser, live_server, "lead", "pw-lead", locale=self.locale)
        self.people = {"lead": self.lead}
        self.number_of = {issue.pk: n for n, issue in enumerate(self.issues)}
        self.title_of = {n: issue.title for n, issue in enumerate(self.issues)}
        self.themes_of = {"A": 5, "B": 5, "C": 10}
        self.study_id = 0

    def set_up(self):
        """By the lead, who is an admin too: every stored report, two annotators, a pilot of 18 %."""
        self.lead.go("/studies/new/")
        page = self.lead.page
        page.fill("#id_name", "Serving study")
        page.select_option("#id_codebook", value=str(self.codebook.pk))
        page.select_option("#id_lead", label="lead")
        # The annotators' picker, as a person uses it: narrow it by typing, then a click each, no Ctrl.
        t = self.t
        page.get_by_label(t.js("Search %(list)s", list=t("Annotators"))).fill("ann")
        for name in ("ann1", "ann2"):
            page.locator("#id_annotators option", has_text=name).click()
        expect(page.locator("#id_annotators + .picker-chosen")).to_have_text(
            t.js("%(n)s chosen: %(names)s", n=2, names="ann1, ann2"))
        page.fill("#id_seed", "7")
        # Queues in the seeded random order: the reports labeled by any moment are a random sample.
        page.select_option("#id_queue_order", "random")
        page.get_by_role("button", name=t("Count the reports")).click()
        expect(page.locator("p.notice[role=status]")).to_have_text(
            t.n("%(count)s report matches these rules.", "%(count)s reports match these rules.", 8))
        page.get_by_role("button", name=t("Create study")).click()
        page.wait_for_url("**/studies/*/")
        self.study_id = int(page.url.rstrip("/").rsplit("/", 1)[1])
        assert page.locator("[data-testid=what-next]").is_visible()

    def invite_a_volunteer(self):
        """A volunteer is invited by a link and makes an account with it, on a phone."""
        self.lead.go(f"/studies/{self.study_id}/members/")
        self.lead.page.get_by_role("button", name=self.t("Create link")).click()
        link = self.lead.page.locator("#invitation-link").inner_text().strip()
        vol = Person(self.browser, self.live_server, "vol", "", viewport=(390, 844), locale=self.locale)
        vol.page.goto(link)
        vol.page.fill("#id_username", "vol")
        vol.page.fill("#id_password1", "a volunteer's own pass 42")
        vol.page.fill("#id_password2", "a volunteer's own pass 42")
        vol.page.get_by_role("button", name=self.t("Create my account and join")).click()
        vol.page.wait_for_load_state()
        expect(vol.page.locator("body")).to_contain_text("Serving study")
        self.people["vol"] = vol

    def pilot(self):
        """The lead grows the codebook (C.11) from the labeling page and labels the sample."""
        lead, page = self.lead, self.lead.page
        lead.go(f"/studies/{self.study_id}/queue/")
        page.locator("details.pilot-category summary").click()
        page.select_option("#cat-parent", label=f"C Bug ({self.t('new theme')})")
        page.fill("#cat-name", "Serving engine faults")
        page.fill("#cat-definition", "Faults of the serving engine itself.")
        page.get_by_role("button", name=self.t("Add")).click()
        page.wait_for_selector("#label-form[data-ready]")
        self.themes_of["C"] = 11
        pilot = []
        while page.locator("#label-form").count():
            pilot.append(label(lead, self.ledger, "pilot", "C.11" if not pilot else "A.1.i", self.themes_of,
                               note="pilot note"))
        assert len(pilot) == 2  # 18 % of 8, rounded up
        lead.move_on(self.study_id, self.t("Close the pilot and start the independent round"),
                     self.t("Independent round"))
        for name in ("ann1", "ann2"):
            self.people[name] = Person(self.browser, self.live_server, name, f"pw-{name}", locale=self.locale)

    def label_queue(self, person: Person, rater: int, twists: dict[int, dict]):
        """Label the queue in its order, each report as PLAN says, with the twists asked for on some."""
        person.go(f"/studies/{self.study_id}/queue/")
        while True:
            person.page.wait_for_selector("#workspace")
            if not person.page.locator("#label-form").count():
                break
            n = self.number_of[int(person.page.locator("article[data-issue]").get_attribute("data-issue"))]
            twist = twists.pop(n, {})
            if twist.get("skip"):
                self._skip(person)
            elif twist.get("reload"):
                self._reload_mid_draft(person, PLAN[n][rater], n)
            elif twist.get("offline"):
                self._offline(person, PLAN[n][rater], n)
            else:
                label(person, self.ledger, "independent", twist.get("first", PLAN[n][rater]), self.themes_of,
                      note=twist.get("note", ""), how=twist.get("how", "keys"), save=twist.get("save", "Enter"))
                if twist.get("first"):
                    self._back_and_revise(person, PLAN[n][rater], n)
        assert not twists, f"{person.name}: twists never met: {twists}"

    def _skip(self, person: Person):
        person.page.keyboard.press("s")
        person.page.keyboard.type("Coming back to it later")
        person.page.keyboard.press("Enter")
        expect(person.page.locator("#status")).to_have_text(self.t.js("Skipped."))

    def _reload_mid_draft(self, person: Person, code: str, n: int):
        for key in keys_of(code, self.themes_of):
            person.page.keyboard.press(key)
        person.page.keyboard.press("n")
        person.page.keyboard.type("typed before the reload")
        person.page.reload()
        person.page.wait_for_selector("#draft-notice:visible")
        person.page.keyboard.press("Escape")
        shown = self.ledger.record(person, "independent")
        assert (shown["code"], shown["note"]) == (code, "typed before the reload")
        person.page.locator("body").press("Enter")
        self.ledger.saved(shown)
        expect(person.page.locator("h1").first).not_to_have_text(self.title_of[n])

    def _offline(self, person: Person, code: str, n: int):
        for key in keys_of(code, self.themes_of):
            person.page.keyboard.press(key)
        person.context.set_offline(True)
        person.page.keyboard.press("Enter")
        expect(person.page.locator("#status .error")).to_contain_text(self.t.js(
            "Not saved: the connection was lost. Your choices are kept here; press Enter to try again."))
        person.context.set_offline(False)
        shown = self.ledger.record(person, "independent")
        person.page.keyboard.press("Enter")
        self.ledger.saved(shown)
        expect(person.page.locator("h1").first).not_to_have_text(self.title_of[n])

    def _back_and_revise(self, person: Person, code: str, n: int):
        """Back with p, and the label revised to what the plan says."""
        person.page.keyboard.press("p")
        expect(person.page.locator("h1.issue-title")).to_have_text(self.title_of[n])
        expect(person.page.locator("#label-form")).to_contain_text(self.t.part(
            "You labeled this report already (%(code)s); saving revises your label, and its history keeps the "
            "earlier one.", "code"))
        # p opens the report as a whole page: keys pressed before its script is ready do nothing.
        person.page.wait_for_selector("#label-form[data-ready]")
        for _ in range(3):  # undo the choices down to nothing
            person.page.keyboard.press("Backspace")
        label(person, self.ledger, "independent", code, self.themes_of)

    def carry_a_machine_into_a_seat_and_back(self):
        """The lead carries last year's decision about a machine to this study, runs the machine here, hands it the
        volunteer's seat and, on second thoughts, withdraws it: the reports the seat took come back to the
        volunteer's queue, each button having named how many."""
        from annotation.models import Assignment
        from tests.machines.test_seats import _study

        lead, page = self.lead, self.lead.page
        from machines.services.measurements import measure

        old, _, _, decision, _ = _study(lead=get_user_model().objects.get(username="lead"), name="Last year")
        measure(decision.rater.runs.get(), "type", "", decision.epsilon, decision.pk)  # its watch, holding
        vol_queue = Assignment.objects.filter(queue__round__study=self.study_id, queue__annotator__username="vol")
        waiting = vol_queue.count()
        lead.go(f"/studies/{old.pk}/machines/{decision.rater_id}/")
        page.select_option(f"#carry-to-{decision.pk}", label="Serving study")
        page.fill(f"#carry-reason-{decision.pk}", "The same frameworks, a year on.")
        t = self.t
        page.get_by_role("button", name=t("Carry the decision")).click()
        expect(page.locator("body")).to_contain_text(t.part(
            "The decision stands in %(study)s too, for its rater %(rater)s: run it there, then apply the decision "
            "in that study's independent round.", "rater", study="Serving study"))
        lead.go(f"/studies/{self.study_id}/machines/")
        page.get_by_role("link", name="oracle").first.click()
        expect(page.locator("[data-testid=carried-from]")).to_contain_text(t.part(
            "Carried from the study %(study)s, where %(who)s decided it on %(on)s: the figures above are that "
            "study's. Here its sentinels are watched against the sentinels of that study.", "who", "on",
            study="Last year"))
        expect(page.locator("[data-testid=decision]")).to_contain_text(t(
            "%(name)s has not rated this study's reports yet: run it, then apply the decision during the "
            "independent round.", name="oracle"))
        page.get_by_role("button", name=t("Run", "verb"), exact=True).click()
        expect(page.locator("body")).to_contain_text(t("Succeeded"), timeout=120_000)
        page.reload()
        hand_says = re.escape(t("Hand %(person)s's seat to %(name)s: %(n)s reports leave their queue",
                                person="vol", name="oracle", n="\x00")).replace("\x00", r"\d+")
        hand = page.get_by_role("button", name=re.compile(f"^{hand_says}$"))
        taken = int(re.findall(r"\d+", hand.inner_text())[-1])
        assert 0 < taken < waiting  # the sentinels keep the volunteer
        hand.click()
        expect(page.locator("body")).to_contain_text(t(
            "%(machine)s stands in %(person)s's seat: %(n)s reports left their queue.", machine="oracle",
            person="vol", n=taken))
        assert vol_queue.count() == waiting - taken
        page.get_by_label(t("Why withdraw")).fill("Our volunteers want to label every report this year.")
        page.get_by_role("button", name=t("Withdraw")).click()
        expect(page.locator("body")).to_contain_text(
            t("Decision withdrawn.") + " " + t("%(n)s reports returned to %(person)s's queue.", n=taken, person="vol"))
        assert vol_queue.count() == waiting

    def propose(self):
        """A proposal during the independent round passes when every member votes yes; the lead adds it."""
        ann1 = self.people["ann1"]
        ann1.go(f"/studies/{self.study_id}/proposals/")
        ann1.page.select_option("#id_parent", label="C.2 " + ann1.page.locator("#id_parent option", has_text="C.2 ")
                                .first.inner_text().split("C.2 ", 1)[1])
        ann1.page.fill("#id_name", "Tokenizer mismatch")
        ann1.page.fill("#id_definition", "The tokenizer of the served model differs from its training one.")
        ann1.page.fill("#id_examples", f"acme/llm-runtime#{self.issues[1].number}")
        ann1.page.get_by_role("button", name=self.t("Open the proposal")).click()
        ann1.page.wait_for_load_state()
        proposal_url = ann1.page.url
        assert "/proposals/" in proposal_url
        for person in self.people.values():
            person.page.goto(proposal_url)
            person.page.get_by_label(self.t("Yes")).check()
            person.page.get_by_role("button", name=self.t("Vote", "verb")).click()
            person.page.wait_for_load_state()
        self.lead.page.goto(proposal_url)
        self.lead.page.get_by_role("button", name=self.t("Add to the codebook")).click()
        self.lead.page.wait_for_load_state()
        self.lead.go(f"/studies/{self.study_id}/codebook/changes/")
        expect(self.lead.page.locator("body")).to_contain_text("Tokenizer mismatch")

    def review(self):
        """The ties are listed; a comment (c, Ctrl+Enter) and a re-label that settles report 4."""
        self.lead.move_on(self.study_id, self.t("Close round %(number)s and start the review", number=2),
                          self.t("Review"))
        self.lead.go(f"/studies/{self.study_id}/review/")
        for n in (2, 4):
            expect(self.lead.page.locator("body")).to_contain_text(self.title_of[n])
        ann1 = self.people["ann1"]
        ann1.go(f"/studies/{self.study_id}/queue/")
        for _ in range(2):
            ann1.page.wait_for_selector("#label-form[data-ready]")
            n = self.number_of[int(ann1.page.locator("article[data-issue]").get_attribute("data-issue"))]
            ann1.page.keyboard.press("c")
            ann1.page.keyboard.type(f"On report {n}: I read it again.")
            ann1.page.keyboard.press("Control+Enter")
            expect(ann1.page.locator(f"#thread-{self.issues[n].pk}")).to_contain_text(
                f"On report {n}: I read it again.")
            # Posted: focus is back on the labeling form, so the keys that follow label (and Enter saves).
            assert ann1.page.evaluate("!document.activeElement.matches('[data-comment-box]')")
            label(ann1, self.ledger, "review", "B.2" if n == 4 else "A.1", self.themes_of)

    def adjudicate_and_close(self):
        """Report 2 is still tied two against two; the lead decides it with a rationale, then closes the study."""
        lead = self.lead
        lead.move_on(self.study_id, self.t("Close the review and start adjudication"), self.t("Adjudication"))
        lead.go(f"/studies/{self.study_id}/adjudication/")
        lead.page.get_by_role("link", name=self.title_of[2]).click()
        lead.page.wait_for_selector("#label-form[data-ready]")
        for key in keys_of("C.1", self.themes_of):
            lead.page.keyboard.press(key)
        lead.page.keyboard.press("n")
        lead.page.keyboard.type("The stack trace is the engine's.")
        with lead.page.expect_navigation():
            lead.page.keyboard.press("Control+Enter")
        lead.move_on(self.study_id, self.t("Close the study and write the final labels"), self.t("Closed"))
        lead.go(f"/studies/{self.study_id}/")
        expect(lead.page.locator("[data-testid=what-next]")).to_contain_text(self.t.part(
            "The study is closed: download the labeled corpus, its dataset card and the replication package below."))

    def check_exports(self):
        """Every export, and what they say against the ledger."""
        lead, issues, study_id = self.lead, self.issues, self.study_id
        by_number = {issue.number: n for n, issue in enumerate(issues)}
        corpus = _csv(lead.get(f"/studies/{study_id}/corpus.csv"))
        finals = {by_number[row["number"]]: row for row in corpus}
        assert len(finals) == len(issues)
        for n, code in EXPECTED_FINAL.items():
            row = finals[n]
            assert (row["final_sub_theme_code"] or row["final_theme_code"] or row["final_type_code"]) == code, (n, row)
            assert row["study_status"] == "closed"
        assert finals[2]["final_how"] == "lead decision" and "consensus" in finals[4]["final_how"]
        stored = {}
        for n, row in finals.items():
            for one in json.loads(row["labels"]):
                stored[(one["annotator"], issues[n].pk, one["round_kind"])] = (one["choice"], one["note"])
        assert stored == self.ledger.last
        for path in ("corpus.jsonl", "study.json", "dataset-card.md", "export.csv", "project.qdpx"):
            assert lead.get(f"/studies/{study_id}/{path}")
        with zipfile.ZipFile(io.BytesIO(lead.get(f"/studies/{study_id}/replication.zip"))) as package:
            assert any(name.endswith("recompute.py") for name in package.namelist())

        # History: each save that changed something is one version, and nothing else is.
        history = _csv(lead.get(f"/studies/{study_id}/history.csv"))
        kinds = {1: "pilot", 2: "independent", 3: "review"}
        seen = Counter((row["annotator"], issues[by_number[row["number"]]].pk, kinds[int(row["round"])])
                       for row in history)
        assert seen == Counter((person, issue_id, kind) for person, issue_id, kind, *_ in self.ledger.saves)

    def check_agreement(self) -> float:
        """The type kappa the app reports is the one computed from the ledger's independent labels."""
        from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

        types = defaultdict(list)
        for (_, issue_id, kind), (code, _) in self.ledger.last.items():
            if kind == "independent":
                types[issue_id].append(code.split(".")[0])
        table, _ = aggregate_raters([sorted(v) for _, v in sorted(types.items())])
        expected = fleiss_kappa(table)
        deadline = time.monotonic() + 120
        while True:
            answer = self.lead.page.request.get(f"{self.lead.url}/api/studies/{self.study_id}/agreement/")
            if answer.status == 200:
                break
            assert answer.status == 202 and time.monotonic() < deadline, answer.status
            time.sleep(1)
        assert answer.json()["type"]["kappa"] == pytest.approx(expected, abs=1e-9)
        return expected

    def read_after_the_study(self, kappa: float):
        """The dashboard shows that kappa, the planner fills in by itself while a worker simulates, the annotators
        page opens on the independent round and shows any round chosen; a report read-only, reached from the
        study's list as the lead reaches it, holds every label the ledger saw saved on it and the final label."""
        lead, study_id = self.lead, self.study_id
        lead.go(f"/studies/{study_id}/agreement/")
        expect(lead.page.locator("tr[data-figure=type] td").first).to_contain_text(number(kappa))
        self.open_the_most_confused_types()
        lead.go(f"/studies/{study_id}/agreement/")
        t = self.t
        lead.page.get_by_role("link", name=t("How many reports are enough?")).click()
        expect(lead.page.locator("[data-testid=plan]").first).to_be_visible(timeout=120_000)
        lead.go(f"/studies/{study_id}/annotators/")
        expect(lead.page.locator("body")).to_contain_text(
            t("Round %(number)s (%(kind)s, closed).", number=2, kind=t("Independent").lower()))
        with lead.page.expect_navigation():
            lead.page.select_option("#round-choice", "3")
        expect(lead.page.locator("body")).to_contain_text(
            t("Round %(number)s (%(kind)s, closed).", number=3, kind=t("Review").lower()))

        lead.go(f"/studies/{study_id}/issues/")
        lead.page.get_by_role("link", name=self.title_of[2]).click()
        expect(lead.page.locator("h1")).to_have_text(self.title_of[2])
        rows = lead.page.locator("article table tbody tr").all_inner_texts()
        for (person, issue_id, kind), (code, note) in self.ledger.last.items():
            if issue_id == self.issues[2].pk and kind != "pilot":
                assert any(person in row and code in row and note in row for row in rows), (person, code, rows)
        expect(lead.page.locator("[data-testid=final-label]")).to_contain_text(f"C.1 ({t('Lead decision').lower()})")
        expect(lead.page.locator("[data-testid=final-label]")).to_contain_text("The stack trace is the engine's.")

    def open_the_most_confused_types(self):
        """The dashboard's most confused pair of types opens on the very reports the ledger has given both."""
        page = self.lead.page
        pair = page.locator("[data-testid=confusion-type] tbody tr").first
        expect(pair).to_be_visible()
        first, second = pair.get_attribute("data-pair").split("|")
        pair.locator("a").click()
        expect(page.locator("[data-testid=pair-reports]")).to_be_visible()
        types = defaultdict(set)
        for (_, issue_id, kind), (code, _) in self.ledger.last.items():
            if kind == "independent":
                types[issue_id].add(code.split(".")[0])
        shown = page.locator("[data-testid=pair-reports] tbody tr[data-report]").evaluate_all(
            "rows => rows.map(row => Number(row.dataset.report))")
        assert set(shown) == {i for i, given in types.items() if {first, second} <= given} != set()

    def machine_and_shares(self):
        """The lead adds the built-in model, runs it, and reads every share three ways from the statistics page:
        people's share of bugs is 5 of 8, and with 3 reports outside the category no interval is trusted."""
        lead, page, study_id = self.lead, self.lead.page, self.study_id
        lead.go(f"/studies/{study_id}/machines/")
        page.fill("#id_name", "built-in")
        page.select_option("#id_kind", "builtin")
        t = self.t
        with page.expect_navigation():
            page.get_by_role("button", name=t("Add")).click()
        expect(page.locator("h1")).to_contain_text("built-in")
        page.get_by_role("button", name=t("Run", "verb"), exact=True).click()
        # Run eagerly the page shows it done at once; with a worker, its progress fills in where it stands.
        expect(page.locator("body")).to_contain_text(t("Succeeded"), timeout=120_000)
        lead.go(f"/studies/{study_id}/statistics/")
        page.locator("[data-testid=shares-link]").click()
        # A worker computes them; the page fills in when they are kept.
        expect(page.locator("[data-testid=shares-population]")).to_contain_text(t.part(
            "%(name)s, run %(run)s, labeled %(reports)s reports; people labeled %(labeled)s of them", "run",
            name="built-in", reports=8, labeled=8), timeout=120_000)
        expect(page.locator("[data-testid=shares-population]")).to_contain_text(t.part(
            "The queues deal reports in the study's seeded random order: the estimates use the %(n)s reports before "
            "the first in that order still without people's label, a random sample", "n"))
        bugs = page.locator("[data-testid=shares-type] tr", has_text=t("all years")).filter(has_text="Bug")
        cells = bugs.locator("td.num").all_inner_texts()
        assert cells[0].startswith("62.50 %") and "n 8" in cells[0], cells
        assert cells[1].endswith("N 8") and cells[2] == t("too few of people's labels (%(inside)s of %(of)s)",
                                                          inside=5, of=8), cells

    def read_the_audit_log(self):
        """From the admin's link in the header: the study's whole path is in it, the chain whole."""
        from concord.audit import ACTIONS, broken_links

        page, t = self.lead.page, self.t
        page.get_by_role("link", name=t("Audit log")).click()
        audit = page.locator("[data-testid=audit]")
        for action in ("phase changed", "invitation made", "invitation used", "codebook add", "export"):
            expect(audit).to_contain_text(t.of(ACTIONS[action]))
        page.select_option("#audit-action", "phase changed")
        page.get_by_role("button", name=t("Show")).click()
        expect(audit.locator("tbody tr")).to_have_count(4)  # into independent, review, adjudication, closed
        assert list(broken_links()) == []

    def no_english_was_shown(self):
        """Every page any of the study's people loaded, read for English: names, identifiers, codes and what the
        study's people wrote (its codebook is in English) aside."""
        from tests.test_chinese_pages import data_words, english

        allowed = data_words()
        left = {}
        for person in self.people.values():
            for url, html in person.seen:
                if words := english(html, allowed):
                    left.setdefault(url.replace(person.url, ""), set()).update(words)
        assert sum(len(p.seen) for p in self.people.values()) > 50
        assert not left, "\n".join(f"{url}: {' '.join(sorted(words))}" for url, words in sorted(left.items()))


# Once as an English-speaking lab runs it, once in Chinese: every browser asks for Chinese, every button is found by
# its Chinese name, and no page any of them loaded holds an English word but names, codes and the study's data.
@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_a_whole_study_through_its_pages(live_server, browser, request, settings, language):
    if REAL_WORKER:
        request.getfixturevalue("celery_worker_process")
    study = WholeStudy(browser, live_server, settings, language)
    study.set_up()
    study.invite_a_volunteer()
    study.pilot()
    people = study.people
    study.label_queue(people["lead"], 0, {1: {"offline": True}, 5: {"note": "engine crash", "save": "Control+Enter"}})
    study.label_queue(people["ann1"], 1, {0: {"how": "find", "note": "found by code"}, 1: {"first": "A.2"},
                                          5: {"note": "same engine", "save": "Control+Enter"}, 6: {"save": "double"}})
    study.label_queue(people["ann2"], 2, {2: {"reload": True}, 3: {"skip": True}, 4: {"note": "looks like B.2"}})
    study.carry_a_machine_into_a_seat_and_back()
    study.label_queue(people["vol"], 3, {7: {"note": "memory", "save": "Control+Enter"}})
    study.propose()
    study.review()
    study.adjudicate_and_close()
    study.check_exports()
    study.read_after_the_study(study.check_agreement())
    study.machine_and_shares()
    study.read_the_audit_log()
    for person in people.values():
        person.context.close()
    if language != "en":
        study.no_english_was_shown()
