"""No URL that came from data can run script: payloads in every field that can carry a
URL (the issue's link, codebook and proposal examples, curated details, links and images in the body), shown on
every page that renders them, in Chromium under the Content-Security-Policy."""
from __future__ import annotations

import pytest
from django.urls import reverse

from codebook.services.proposals import open_proposal
from taxonomy.models import Category, Detail
from tests.factories import make_issue, make_study, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PAYLOADS = ["javascript:window.pwned=1", " JaVaScRiPt:window.pwned=2", "\x01javascript:window.pwned=3",
            "java\tscript:window.pwned=4", "data:text/html,<script>window.pwned=5</script>"]
BODY = ("[click](javascript:window.pwned=6) <a href=\"javascript:window.pwned=7\">raw</a> "
        "<img src=x onerror=\"window.pwned=8\"> <svg onload=\"window.pwned=9\"></svg> "
        "<a href=\"https://example.org/ok\">fine</a>")


def _login(page, live_server, username):
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", f"pw-{username}")
    page.click("main button[type=submit]")
    page.wait_for_load_state()


def _assert_harmless(page):
    hrefs = page.eval_on_selector_all("a[href]", "links => links.map(a => a.href)")
    bad = [h for h in hrefs if not h.startswith(("http://", "https://", "mailto:"))]
    assert not bad, f"{page.url}: {bad}"
    for link in page.locator("a[href]:visible").all():
        if "#" in (link.inner_text() or "") and link.get_attribute("target") is None:
            link.click(modifiers=["Control"])  # a new tab, so this page stays; a javascript: link would run here
    assert page.evaluate("window.pwned") is None


def test_no_url_from_data_runs_script_on_any_page(live_server, page):
    lead, alice = make_user("lead"), make_user("alice")
    issues = [make_issue(title=f"Hostile {n}", body=BODY, url=url) for n, url in enumerate(PAYLOADS)]
    study = make_study(lead, [alice], issues=issues)
    theme = Category.objects.filter(codebook=study.codebook, level=Category.Level.THEME).first()
    theme.examples.add(*issues)
    detail = Detail.objects.create(category=theme, text="A detail", added_by=lead)
    detail.examples.add(*issues)
    proposal = open_proposal(study, alice, parent_id=theme.parent_id, name="New theme", definition="d",
                             example_ids=[i.pk for i in issues])

    _login(page, live_server, "alice")
    for url in (reverse("annotation:queue", args=[study.pk]),
                reverse("annotation:issue_label", args=[study.pk, issues[1].pk]),
                reverse("codebook:codebook", args=[study.pk]),
                reverse("codebook:proposal", args=[study.pk, proposal.pk])):
        page.goto(live_server.url + url)
        page.wait_for_load_state("networkidle")
        if url.endswith("/queue/") or "/issues/" in url:
            page.keyboard.press("o")  # the full report, with its Markdown body
            page.keyboard.press("u")  # the original: nothing to open, as the link was refused
        _assert_harmless(page)

    page.context.clear_cookies()
    _login(page, live_server, "lead")
    for url in (reverse("codebook:details", args=[study.pk, theme.pk]),
                reverse("agreement:study_agreement", args=[study.pk])):
        page.goto(live_server.url + url)
        page.wait_for_load_state("networkidle")
        _assert_harmless(page)
    # The level selector submits its form from concord.js, not from an inline handler.
    page.select_option("select#level", "sub_theme")
    page.wait_for_url("**level=sub_theme**")
    assert not page.csp_problems
