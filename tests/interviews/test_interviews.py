"""Stage II: interviews rank and extend the codebook. The study's own files import; unknown codes are refused
on entry and listed on import; results aggregate rankings; quotes become evidence in the change log."""
from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from codebook.services import changes
from interviews.models import InterviewSession, Participant, Quote
from interviews.selectors import results
from interviews.services import (
    InterviewError,
    add_quote,
    default_guide,
    import_interviewees,
    import_quotes,
    save_ranking,
)
from stats.rankings import kendalls_w, rank_matrix
from taxonomy.services import copy_codebook

pytestmark = pytest.mark.django_db
DATA = Path(__file__).parent / "data"


@pytest.fixture
def own(study):
    study.codebook = copy_codebook(study.codebook, "own")
    study.save()
    return study


def test_the_studys_three_files_give_19_participants_and_every_quote_with_c11_unknown(own):
    people = import_interviewees(own, DATA / "interviewee_background.xlsx")
    quotes = import_quotes(own, DATA / "interview_codebook.csv")
    assert people.participants == 19
    groups = {g: Participant.objects.filter(study=own, group=g).count() for g in ("user", "developer")}
    assert groups == {"user": 11, "developer": 8}
    assert quotes.quotes == 19 == Quote.objects.count()
    assert quotes.unknown == [(6, "C.11"), (17, "C.11")]  # U5 and D5 cite it
    u5 = Quote.objects.get(session__participant__code="U5")
    assert sorted(u5.nodes.values_list("code", flat=True)) == ["C.6"]  # C.11 left out, C.6 kept
    d1 = Participant.objects.get(study=own, code="D1")
    assert d1.years == 7 and "Project Manager" in d1.role
    assert Participant.objects.get(study=own, code="U4").years == pytest.approx(0.67)


def test_a_code_the_codebook_lacks_is_refused_on_entry(own):
    person = Participant.objects.create(study=own, code="U1", group="user")
    session = InterviewSession.objects.create(participant=person)
    with pytest.raises(InterviewError, match="C.11 is not in the study's codebook"):
        add_quote(session, "checkpoint failed", ["C.6", "C.11"])
    assert not Quote.objects.exists()


def _interview(study, code, group, orders):
    guide = default_guide(study)
    person = Participant.objects.create(study=study, code=code, group=group)
    session = InterviewSession.objects.create(participant=person, guide=guide)
    for question in guide.questions.filter(kind="ranking"):
        if question.node.code in orders:
            save_ranking(session, question, orders[question.node.code])
    return session


def test_results_aggregate_rankings_per_group_and_overall(own):
    plan = {"U1": ["C.1", "C.2", "C.3"], "U2": ["C.1", "C.3", "C.2"], "U3": ["C.2", "C.1", "C.4"],
            "D1": ["C.5", "C.6", "C.1"], "D2": ["C.6", "C.5", "C.2"]}
    for code, order in plan.items():
        _interview(own, code, "user" if code.startswith("U") else "developer", {"C": order})
    bug = next(r for r in results(own) if r.question.node.code == "C")
    by_group = {g.group: g for g in bug.groups}
    assert by_group["user"].participants == 3 and by_group["all"].participants == 5
    assert by_group["user"].borda["C.1"] == 9 + 9 + 8  # 10 themes: 9 points for first, 8 for second
    users = [plan[c] for c in ("U1", "U2", "U3")]
    assert by_group["user"].concordance.w == pytest.approx(kendalls_w(rank_matrix(users, bug.items)).w)
    assert bug.divergence is not None and bug.divergence.items == 10


def test_a_ranking_of_a_theme_outside_the_type_is_refused(own):
    with pytest.raises(InterviewError, match="B.1 is not a theme of C"):
        _interview(own, "U9", "user", {"C": ["C.1", "B.1"]})


def test_pages_import_record_and_show_results(client_as, own, lead):
    client = client_as(lead)
    upload = SimpleUploadedFile("CodeBook.csv", (DATA / "interview_codebook.csv").read_bytes())
    page = client.post(reverse("interviews:interviews", args=[own.pk]), {"kind": "quotes", "file": upload}).content
    assert "C.11 (line 6)" in page.decode()
    person = Participant.objects.get(study=own, code="U1")
    url = reverse("interviews:participant", args=[own.pk, person.pk])
    bug_question = default_guide(own).questions.get(node__code="C")
    client.post(url, {f"rank-{bug_question.pk}": ["C.2", "C.1", "C.6"]})
    assert person.sessions.get().answers.get(question=bug_question).order == ["C.2", "C.1", "C.6"]
    shown = client.get(reverse("interviews:interview_results", args=[own.pk])).content.decode()
    assert "Kendall" in shown and "undefined: needs two raters and two items" in shown  # one ranking so far
    # The reason a figure is undefined is stored in English and shown in the reader's language.
    chinese = client.get(reverse("interviews:interview_results", args=[own.pk]), HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert "需要两位评定者和两个条目" in chinese.content.decode()
    rows = list(csv.DictReader(io.StringIO(b"".join(client.get(
        reverse("interviews:interview_results_csv", args=[own.pk])).streaming_content).decode())))
    assert any(r["theme"] == "C.2" and r["borda"] == "9" and r["group"] == "user" for r in rows)


def test_a_quote_becomes_the_evidence_of_a_codebook_change(client_as, own, lead):
    import_quotes(own, DATA / "interview_codebook.csv")
    quote = Quote.objects.get(session__participant__code="U3")
    c6 = own.codebook.categories.get(code="C.6")
    client_as(lead).post(reverse("codebook:change", args=[own.pk, c6.pk]),
                         {"kind": "clarify", "definition": "Faults in loading, saving and checkpoint formats.",
                          "reason": "users met incompatible checkpoint formats", "quote": quote.pk,
                          "revision": own.codebook.revision})
    changes.rename(own, lead, own.codebook.categories.get(code="C.2").pk, "Memory", "shorter")
    table2 = client_as(lead).get(reverse("codebook:changelog", args=[own.pk]), {"evidence": "interviews"})
    text = table2.content.decode()
    assert "Modifications from interview results" in text and "interview U3" in text
    assert "Memory" not in text  # the rename had no interview behind it


def test_the_guide_is_versioned_and_sessions_keep_theirs(client_as, own, lead):
    client = client_as(lead)
    first = default_guide(own)
    person = Participant.objects.create(study=own, code="U1", group="user")
    page = reverse("interviews:participant", args=[own.pk, person.pk])
    client.get(page)  # the session starts on the current guide
    client.post(reverse("interviews:guide", args=[own.pk]), {"part": "Part V", "text": "Rank the bug sub-themes.",
                                                           "kind": "ranking", "node": "C.2", "top": "2"})
    assert own.guides.count() == 2 and person.sessions.get().guide == first
    refused = client.post(reverse("interviews:guide", args=[own.pk]), {"text": "x", "kind": "ranking", "node": "Z"},
                          follow=True)
    assert "node: Z is not in the study" in refused.content.decode() and own.guides.count() == 2
    background = first.questions.filter(kind="background").first()
    client.post(page, {f"answer-{background.pk}": "Research engineer"})
    assert person.sessions.get().answers.get(question=background).text == "Research engineer"
    # The shipped guide's words are stored in English and shown in the reader's language, the type by its name in
    # the codebook's second language; the lab's own question is shown as written.
    chinese = client.get(reverse("interviews:guide", args=[own.pk]), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "第一部分：背景" in chinese and "你目前的角色是什么？" in chinese and "排名前 3 的缺陷主题" in chinese
    assert "Rank the bug sub-themes." in chinese and "Part I. Background" not in chinese
    asked = client.get(page, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "第一部分：背景: 你目前的角色是什么？" in asked and "What is your current role?" not in asked
    english = client.get(reverse("interviews:guide", args=[own.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Rank the top 3 bug themes by frequency or impact." in english


def test_interviews_travel_with_the_corpus(client_as, own, lead):
    import json

    import_quotes(own, DATA / "interview_codebook.csv")
    document = json.loads(client_as(lead).get(reverse("corpus:study_json", args=[own.pk])).content)
    interviews = document["interviews"]
    assert len(interviews["participants"]) == 19
    u5 = next(p for p in interviews["participants"] if p["code"] == "U5")
    assert u5["sessions"][0]["quotes"][0]["nodes"] == ["C.6"]
