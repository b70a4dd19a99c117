"""Playwright driving Debian's Chromium, headless, against pytest-django's live server."""
from __future__ import annotations

import os
import shutil

import pytest

# Playwright's sync API runs an event loop in this thread; the ORM calls the tests make are still synchronous.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or shutil.which("chromium-browser")
# CI sets CONCORD_REQUIRE_BROWSER=1 so that a missing browser fails the run instead of skipping.
REQUIRED = os.environ.get("CONCORD_REQUIRE_BROWSER") == "1"


@pytest.fixture(scope="session")
def browser():
    if not CHROMIUM:
        if REQUIRED:
            pytest.fail("Chromium is not installed (apt-get install chromium)")
        pytest.skip("Chromium is not installed (apt-get install chromium); browser tests skipped")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            # No network here but loopback: keep Chromium from reaching for Google's services.
            args=["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"],
        )
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    """A fresh page that fails its test on any Content-Security-Policy violation the browser reports, on any
    script error, and on any page Concord serves without the policy header."""
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(15_000)
    problems: list[str] = []
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}")
            if "Content Security Policy" in m.text or "Content-Security-Policy" in m.text else None)
    page.on("pageerror", lambda e: problems.append(f"script error: {e}"))
    page.on("dialog", lambda d: (problems.append(f"a dialog opened: {d.message}"), d.dismiss()))

    def check_policy(response):
        if response.request.resource_type == "document" and response.url.startswith("http://localhost"):
            policy = response.headers.get("content-security-policy", "")
            if "script-src 'self'" not in policy or "unsafe-inline" in policy:
                problems.append(f"{response.url} came without a strict Content-Security-Policy: {policy!r}")

    page.on("response", check_policy)
    # Tests may look at what was collected before the page closes.
    page.csp_problems = problems
    yield page
    context.close()
    assert not problems, "\n".join(problems)
