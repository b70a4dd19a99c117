"""Screening pages: drawing samples, the screener's queue (blind), the figures and the decision."""
from __future__ import annotations

import pytest
from django.urls import reverse

from concord.form_tokens import new_token
from ingest.models import Keyword, KeywordList, ScreeningSample, ScreeningVote, Source
from ingest.services.screening import draw_keyword_sample
from tests.factories import make_issue, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def cast(db):
    return make_user("scr-a"), make_user("scr-b"), make_user("scr-c")


@pytest.fixture
def sample(cast):
    keyword_list = KeywordList.objects.create(name="k")
    keyword = keyword_list.keywords.create(term="llm", status=Keyword.Status.CANDIDATE)
    source = Source.objects.create(full_name="o/r", keyword_list=keyword_list)
    make_issue(source, title="LLM serving crash", body="The llm server crashes with an error on start.")
    make_issue(source, title="llm tokenizer", body="Tokenizer fails for llm inputs.")
    # A third match left out of the sample: two verdicts cannot settle a population of three either way.
    make_issue(source, title="llm in a path", body="See llm/tools.")
    return draw_keyword_sample(keyword, cast, seed=1, size=2)


def _judge(client, sample, item, verdict, note="", htmx=False):
    headers = {"HX-Request": "true"} if htmx else {}
    return client.post(reverse("ingest:item_judge", args=[sample.pk, item.pk]),
                       {"verdict": verdict, "note": note}, headers=headers)


def test_admin_draws_a_keyword_sample_from_the_page(client_as, admin, cast):
    keyword_list = KeywordList.objects.create(name="k")
    keyword = keyword_list.keywords.create(term="llm", status=Keyword.Status.CANDIDATE)
    source = Source.objects.create(full_name="o/r", keyword_list=keyword_list)
    for n in range(5):
        make_issue(source, title=f"llm {n}")
    a, b, c = cast
    response = client_as(admin).post(reverse("ingest:sample_create"), {
        "keyword_sample": "1", "once": new_token(),
        "keyword": keyword.pk, "reviewer_a": a.pk, "reviewer_b": b.pk, "tiebreaker": c.pk,
        "seed": 416, "size": 3, "threshold": 0.8})
    sample = ScreeningSample.objects.get()
    assert response.status_code == 302 and sample.items.count() == 3 and sample.population == 5


def test_the_same_person_twice_is_refused(client_as, admin, cast):
    keyword = KeywordList.objects.create(name="k").keywords.create(term="llm")
    a, b, _c = cast
    client_as(admin).post(reverse("ingest:sample_create"), {
        "keyword_sample": "1", "once": new_token(),
        "keyword": keyword.pk, "reviewer_a": a.pk, "reviewer_b": b.pk, "tiebreaker": a.pk,
        "seed": 1, "size": 3, "threshold": 0.8})
    assert not ScreeningSample.objects.exists()


def test_screener_queue_shows_summary_and_judging_moves_on(client_as, sample, cast):
    a, _b, _c = cast
    client = client_as(a)
    first, second = sample.items.order_by("position")
    page = client.get(reverse("ingest:sample_queue", args=[sample.pk])).content.decode()
    assert first.issue.title in page and "0 of 2 judged by you" in page and "Summary" in page
    response = _judge(client, sample, first, "relevant", htmx=True)
    html = response.content.decode()
    assert "<html" not in html and second.issue.title in html and "1 of 2 judged by you" in html
    assert ScreeningVote.objects.get(reviewer=a).is_relevant


def test_screeners_are_blind_to_each_other(client_as, sample, cast):
    a, b, c = cast
    first = sample.items.order_by("position").first()
    _judge(client_as(a), sample, first, "relevant", note="SECRET-NOTE-OF-A")
    page_b = client_as(b).get(reverse("ingest:sample_queue", args=[sample.pk])).content.decode()
    assert first.issue.title in page_b and "SECRET-NOTE-OF-A" not in page_b and "scr-a" not in page_b
    assert client_as(b).get(reverse("ingest:sample_detail", args=[sample.pk])).status_code == 403
    _judge(client_as(b), sample, first, "not_relevant")
    page_c = client_as(c).get(reverse("ingest:sample_queue", args=[sample.pk])).content.decode()
    assert "SECRET-NOTE-OF-A" in page_c and "screeners disagree" in page_c


def test_outsiders_cannot_screen(client_as, sample, outsider):
    assert client_as(outsider).get(reverse("ingest:sample_queue", args=[sample.pk])).status_code == 403


def test_figures_and_decision(client_as, sample, cast, admin):
    a, b, _c = cast
    for item in sample.items.all():
        _judge(client_as(a), sample, item, "relevant")
        _judge(client_as(b), sample, item, "relevant")
    client = client_as(admin)
    page = client.get(reverse("ingest:sample_detail", args=[sample.pk])).content.decode()
    assert "100 % (2 of 2)" in page and "Threshold 0.80, on the whole sample: met" in page
    # 2 of 3 known to be relevant: the sequence is [0.667, 1], on neither side of 0.8, so an admin decides.
    assert "95 % confidence sequence [0.667, 1.000] after the first 2 verdicts" in page
    assert 'data-testid="rule"' in page and 'data-testid="stop"' not in page
    client.post(reverse("ingest:sample_decide", args=[sample.pk]), {"accept": "1", "expected_status": "open"})
    assert Keyword.objects.get().status == Keyword.Status.ACCEPTED
    sample.refresh_from_db()
    assert sample.status == "accepted" and sample.sequence_stop is None
    closed = _judge(client_as(a), sample, sample.items.first(), "not_relevant")
    assert closed.status_code == 400 and "can no longer change" in closed.content.decode()


def test_the_vote_that_takes_the_sequence_past_the_threshold_decides_the_keyword(client_as, cast, admin):
    keyword_list = KeywordList.objects.create(name="k")
    keyword = keyword_list.keywords.create(term="llm", status=Keyword.Status.CANDIDATE)
    source = Source.objects.create(full_name="o/r", keyword_list=keyword_list)
    for n in range(2):
        make_issue(source, title=f"llm {n}")
    sample = draw_keyword_sample(keyword, cast, seed=1, size=2)
    a, b, _c = cast
    first, second = sample.items.order_by("position")
    for item in (first, second):
        _judge(client_as(a), sample, item, "relevant")
    _judge(client_as(b), sample, first, "relevant")
    assert ScreeningSample.objects.get().status == "open"  # one of the two known: [0.5, 1]
    after = _judge(client_as(b), sample, second, "relevant", htmx=True)
    # The whole population read, both relevant: accepted at once, with the verdicts it took.
    sample.refresh_from_db()
    assert sample.status == "accepted" and sample.sequence_stop["n"] == 2 and sample.sequence_stop["meets"]
    assert sample.decided_by is None and Keyword.objects.get().status == Keyword.Status.ACCEPTED
    assert 'data-testid="sample-decided"' in after.content.decode()
    page = client_as(admin).get(reverse("ingest:sample_detail", args=[sample.pk])).content.decode()
    assert "Accepted after 2 verdicts" in page
    api = client_as(admin).get(reverse("api:sample_figures", args=[sample.pk])).json()
    assert api["stop"]["n"] == 2 and api["sequence"]["low"] == 1.0 and api["rule"].startswith("the keyword is")
    assert api["rate"] == {"relevant": 2, "n": 2, "value": 1.0, "wilson_95": api["rate"]["wilson_95"]}
    assert client_as(a).get(reverse("api:sample_figures", args=[sample.pk])).status_code == 403
    refused = client_as(admin).post(reverse("ingest:sample_decide", args=[sample.pk]),
                                    {"reject": "1", "expected_status": "open"})
    assert refused.status_code == 302 and Keyword.objects.get().status == Keyword.Status.ACCEPTED


def test_judging_records_whether_the_summary_was_enough(client_as, sample, cast, admin):
    from ingest.models import Summary, SummaryReview

    a, b, _c = cast
    item = sample.items.order_by("position").first()
    Summary.objects.create(issue=item.issue, backend="extractive", prompt_version="1", content_hash="x",
                           text="Server crashes on start.", verdict="relevant", reason="rule: keyword llm in the title")
    page = client_as(a).get(reverse("ingest:sample_queue", args=[sample.pk])).content.decode()
    assert "Pre-verdict: Relevant — rule: keyword llm in the title" in page
    client_as(a).post(reverse("ingest:item_judge", args=[sample.pk, item.pk]),
                      {"verdict": "relevant", "summary_enough": "1"})
    client_as(b).post(reverse("ingest:item_judge", args=[sample.pk, item.pk]), {"verdict": "relevant"})
    assert sorted(SummaryReview.objects.values_list("reviewer__username", "sufficient")) == [
        ("scr-a", True), ("scr-b", False)]
    figures = client_as(admin).get(reverse("ingest:sample_detail", args=[sample.pk])).content.decode()
    assert "scr-a: 1 of 1 enough" in figures and "agree on 0 of 1" in figures
