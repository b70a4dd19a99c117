"""A screener logs in and judges sampled issues with the keyboard only."""
from __future__ import annotations

import pytest

from ingest.models import Keyword, KeywordList, ScreeningVote, Source
from ingest.services.screening import draw_keyword_sample
from tests.factories import make_issue, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_screener_judges_with_the_keyboard(live_server, page):
    screeners = make_user("scr-a"), make_user("scr-b"), make_user("scr-c")
    keyword_list = KeywordList.objects.create(name="k")
    keyword = keyword_list.keywords.create(term="llm", status=Keyword.Status.CANDIDATE)
    source = Source.objects.create(full_name="o/r", keyword_list=keyword_list)
    make_issue(source, title="LLM server crash", body="The llm server crashes on start.")
    make_issue(source, title="llm tokenizer", body="Tokenizer fails for llm inputs.")
    sample = draw_keyword_sample(keyword, screeners, seed=1, size=2)

    page.goto(f"{live_server.url}/accounts/login/?next=/screening/samples/{sample.pk}/queue/")
    page.keyboard.type("scr-a")
    page.keyboard.press("Tab")
    page.keyboard.type("pw-scr-a")
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-testid=progress]")
    assert "0 of 2 judged by you" in page.inner_text("[data-testid=progress]")

    page.keyboard.press("m")
    page.keyboard.type("mentions an LLM server")
    page.keyboard.press("Escape")
    page.keyboard.press("1")  # relevant
    page.locator("[data-testid=progress]", has_text="1 of 2").wait_for()
    page.keyboard.press("2")  # not relevant
    page.wait_for_selector("text=Nothing left for you")
    votes = dict(ScreeningVote.objects.values_list("note", "is_relevant"))
    assert votes == {"mentions an LLM server": True, "": False}
