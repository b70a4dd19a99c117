"""The disagreement atlas of the paper's release, in a browser: every confused pair on the dashboard opens its
reports and both codes' definitions, every report it lists opens, and a clarification made from a pair carries
the pair into the change log."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from codebook.models import ChangeLogEntry
from corpus.imports import import_labels
from tests.factories import make_user

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]
RELEASE = Path(__file__).parent.parent / "stats" / "data" / "paper_release_labels.csv.gz"


def test_the_releases_atlas_opens_every_pair_and_a_clarification_keeps_its_pair(live_server, page):
    lead = make_user("lead")
    study = import_labels("Published", RELEASE, keep_first=True, prefix="paper-", lead=lead).study
    page.goto(f"{live_server.url}/accounts/login/?next=/studies/{study.pk}/agreement/")
    page.fill("input[name=username]", "lead")
    page.fill("input[name=password]", "pw-lead")
    # Signing in opens the dashboard, whose figures of the whole release are computed in that request here
    # (tasks run in the request in this test): as long as the wait for them below, on a machine under load.
    page.press("input[name=password]", "Enter", timeout=120_000)
    page.locator("[data-testid=confusion-theme]").wait_for(timeout=120_000)
    rows = page.locator("[data-testid^=confusion-] tbody tr")
    pairs = []
    for i in range(rows.count()):
        row = rows.nth(i)
        given_both = int(re.match(r"\s*(\d+)", row.locator("td").nth(1).inner_text()).group(1))
        pairs.append((row.get_attribute("data-pair"), row.locator("a").get_attribute("href"), given_both))
    # The type pairs and the theme pairs, ten at most each, the release's disagreements being many.
    assert len(pairs) >= 12 and all(n > 0 for _, _, n in pairs)
    for name, href, given_both in pairs:
        first, second = name.split("|")
        page.goto(live_server.url + href)
        # The reports behind the pair are those the dashboard counted.
        assert page.locator("[data-testid=pair-total]").inner_text().startswith(f"{given_both} report"), name
        for code in (first, second):
            assert page.locator(f"[data-testid='definition-{code}'] h3").inner_text()
        first_report = page.locator("[data-testid=pair-reports] tbody tr a").first
        report_url = first_report.get_attribute("href")
        response = page.goto(live_server.url + report_url)
        assert response.status == 200, f"{name}: {report_url} answered {response.status}"
    # The most confused pair of themes, clarified from its page.
    theme_pairs = [p for p in pairs if p[1] and "at=theme" in p[1]]
    name, href, given_both = theme_pairs[0]
    page.goto(live_server.url + href)
    page.locator("[data-testid=clarify]").click()
    page.locator("[data-testid=evidence]").wait_for()
    page.fill("textarea[name=first_exclusion]", f"Not when the report fits {name.split('|')[1]} better.")
    page.get_by_role("button", name="Clarify both as a new revision").click()
    evidence = page.locator("[data-testid=pair-evidence]")
    evidence.wait_for()
    assert f"{given_both} report" in evidence.inner_text()
    entry = ChangeLogEntry.objects.get(codebook=study.codebook, kind="clarify")
    assert entry.evidence["pair"] == name.split("|") and entry.evidence["figures"]["reports"] == given_both
    assert entry.after[0]["exclusion"].startswith("Not when the report fits")
    # The change log's pair opens its page again.
    evidence.locator("a").first.click()
    page.locator("[data-testid=pair-figures]").wait_for()
    assert page.locator("h1").inner_text().replace("\n", " ").startswith("People confused")
