"""A source's page says how many issues it holds once its run has finished, without a reload."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from ingest.models import IngestRun, Source
from tests.factories import make_issue, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_counts_follow_the_run(live_server, page):
    make_user("admin", is_staff=True, is_superuser=True)
    source = Source.objects.create(full_name="o/r")
    run = IngestRun.objects.create(source=source, kind=IngestRun.Kind.API, status=IngestRun.Status.RUNNING)
    page.goto(f"{live_server.url}/accounts/login/?next=/sources/{source.pk}/")
    page.fill("input[name=username]", "admin")
    page.fill("input[name=password]", "pw-admin")
    page.press("input[name=password]", "Enter")
    expect(page.locator("#source-counts")).to_have_text("0 issues stored, 0 kept")
    for _ in range(3):
        make_issue(source)
    run.status = IngestRun.Status.SUCCEEDED
    run.save()
    expect(page.locator("#source-counts")).to_have_text("3 issues stored, 3 kept", timeout=10_000)
