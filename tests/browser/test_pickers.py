"""The study set-up's long lists are searchable pickers: a click chooses without Ctrl, keywords come grouped by
their list, and the page says what is chosen."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from ingest.models import Keyword, KeywordList, Source
from tests.factories import make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_set_up_pickers(live_server, page):
    make_user("admin", is_staff=True, is_superuser=True)
    for name in ("vllm-project/vllm", "pytorch/pytorch", "huggingface/transformers"):
        Source.objects.create(full_name=name)
    for list_name, terms in (("PyTorch", ["llama", "fsdp"]), ("TensorFlow", ["llama", "tpu"])):
        keywords = KeywordList.objects.create(name=list_name)
        for term in terms:
            keywords.keywords.create(term=term, status=Keyword.Status.ACCEPTED)
    page.goto(f"{live_server.url}/accounts/login/?next=/studies/new/")
    page.fill("input[name=username]", "admin")
    page.fill("input[name=password]", "pw-admin")
    page.press("input[name=password]", "Enter")
    sources = page.locator("#id_sources")
    page.get_by_label("Search Sources").fill("torch")
    visible = sources.locator("option:not([hidden])")
    expect(visible).to_have_count(1)
    visible.first.click()
    page.get_by_label("Search Sources").fill("")
    sources.locator("option", has_text="vllm-project/vllm").click()  # a second click adds, no Ctrl
    assert sorted(sources.evaluate("s => Array.from(s.selectedOptions).map(o => o.textContent)")) == \
        ["pytorch/pytorch", "vllm-project/vllm"]
    expect(page.locator("#id_sources + .picker-chosen")).to_contain_text("2 chosen")
    sources.locator("option", has_text="pytorch/pytorch").click()  # and a click on a chosen one unchooses it
    expect(page.locator("#id_sources + .picker-chosen")).to_have_text("1 chosen: vllm-project/vllm")
    groups = page.locator("#id_keywords optgroup")
    assert groups.evaluate_all("gs => gs.map(g => g.label)") == ["PyTorch", "TensorFlow"]
    page.get_by_label("Search Keywords").fill("tensorflow llama")
    expect(page.locator("#id_keywords option:not([hidden])")).to_have_count(1)
