from __future__ import annotations

import pytest

from tests.ingest.replay import base_url


@pytest.fixture
def api_settings(settings, httpserver):
    """Platform base URLs on the local replay server; retries and waits short enough for a test."""
    settings.GITHUB_API_URL = base_url(httpserver)
    settings.GITEE_API_URL = base_url(httpserver)
    settings.GITHUB_TOKEN = "test-token"
    settings.GITEE_TOKEN = ""
    settings.INGEST_HTTP_ATTEMPTS = 3
    settings.INGEST_HTTP_BACKOFF_SECONDS = 0.01
    settings.INGEST_MAX_WAIT_SECONDS = 5
    return settings
