"""Setting up a study: its reports by rules or a saved list, its people, overlap, pilot and seed."""
from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse

from annotation.models import Study
from annotation.services.selection import Selection, SelectionError, parse_saved_list, select_reports
from ingest.models import Keyword, KeywordList, Source, Summary
from taxonomy.models import Codebook
from tests.factories import codebook, make_issue

pytestmark = pytest.mark.django_db


@pytest.fixture
def corpus(db):
    vllm = Source.objects.create(full_name="vllm-project/vllm")
    torch = Source.objects.create(full_name="pytorch/pytorch", kind=Source.Kind.FRAMEWORK)
    words = KeywordList.objects.create(name="torch words")
    llama = Keyword.objects.create(keyword_list=words, term="llama", status=Keyword.Status.ACCEPTED)
    issues = {
        "v2023": make_issue(vllm, number="1", created_at=dt.datetime(2023, 3, 1, tzinfo=dt.UTC)),
        "v2024": make_issue(vllm, number="2", created_at=dt.datetime(2024, 3, 1, tzinfo=dt.UTC)),
        "t_llama": make_issue(torch, number="10", created_at=dt.datetime(2024, 6, 1, tzinfo=dt.UTC)),
        "t_other": make_issue(torch, number="11", created_at=dt.datetime(2024, 6, 2, tzinfo=dt.UTC)),
        "t_unkept": make_issue(torch, number="12", kept=False),
    }
    issues["t_llama"].matched_keywords.add(llama)
    Summary.objects.create(issue=issues["t_llama"], backend="extractive", prompt_version="1", content_hash="x",
                           text="t", verdict="relevant")
    Summary.objects.create(issue=issues["t_other"], backend="extractive", prompt_version="1", content_hash="y",
                           text="t", verdict="not_relevant")
    return vllm, torch, llama, issues


def _numbers(selection):
    return sorted(select_reports(selection).values_list("number", flat=True))


def test_rules_select_by_source_keyword_date_and_verdict(corpus):
    vllm, torch, llama, _ = corpus
    assert _numbers(Selection()) == ["1", "10", "11", "2"]  # never the issues no keyword kept
    assert _numbers(Selection(sources=[vllm])) == ["1", "2"]
    assert _numbers(Selection(keywords=[llama])) == ["10"]
    assert _numbers(Selection(created_from=dt.date(2024, 1, 1), created_to=dt.date(2024, 6, 1))) == ["10", "2"]
    assert _numbers(Selection(sources=[torch], verdict="included")) == ["10"]
    assert _numbers(Selection(sources=[torch], verdict="excluded")) == ["11"]


def test_a_saved_list_takes_urls_and_short_names(corpus):
    _, _, _, issues = corpus
    text = "# my list\npytorch/pytorch#11\nhttps://github.com/vllm-project/vllm/issues/2\n\n"
    assert parse_saved_list(text) == [issues["t_other"].pk, issues["v2024"].pk]


def test_a_bad_saved_list_names_the_line(corpus):
    with pytest.raises(SelectionError, match=r"line 2: pytorch/pytorch#99 is not among the stored issues"):
        parse_saved_list("pytorch/pytorch#10\npytorch/pytorch#99")
    with pytest.raises(SelectionError, match=r"line 1: 'hello' is neither"):
        parse_saved_list("hello")


def _form(**extra):
    data = {"name": "Torch LLM issues", "codebook": codebook().pk, "verdict": "", "lead": "", "seed": 42,
            "pilot_percent": 18, "with_pilot": "on"}
    data.update(extra)
    return data


def test_an_admin_sets_up_a_study_with_its_own_codebook_and_pilot(client_as, corpus, admin, lead, annotator_a):
    _, torch, _, _ = corpus
    client = client_as(admin)
    assert client.get(reverse("annotation:study_new")).status_code == 200
    preview = client.post(reverse("annotation:study_new"), _form(lead=lead.pk, sources=[torch.pk], preview="1"))
    assert "2 reports match" in preview.content.decode() and not Study.objects.exists()
    # Counting asks about the selection only: with no name and no lead yet, it still counts.
    early = client.post(reverse("annotation:study_new"), _form(name="", sources=[torch.pk], preview="1"))
    assert early.status_code == 200 and "2 reports match" in early.content.decode()
    # A selection that is itself wrong is refused, with its own message.
    bad = client.post(reverse("annotation:study_new"), _form(name="", created_from="not a date", preview="1"))
    assert bad.status_code == 400 and "reports match" not in bad.content.decode()
    response = client.post(reverse("annotation:study_new"),
                           _form(lead=lead.pk, sources=[torch.pk], annotators=[annotator_a.pk], overlap=""))
    study = Study.objects.get()
    assert response.status_code == 302 and response.url == reverse("annotation:study_detail", args=[study.pk])
    assert (study.phase, study.seed, study.pilot_fraction, study.overlap) == ("pilot", 42, 0.18, None)
    assert study.issues.count() == 2 and study.codebook != codebook()
    assert study.codebook.categories.count() == codebook().categories.count()
    assert study.memberships.get(user=lead).role == "lead"


def test_bad_set_up_says_what_is_wrong_and_creates_nothing(client_as, corpus, admin, lead):
    client = client_as(admin)
    codebook()
    taxonomies = Codebook.objects.count()
    response = client.post(reverse("annotation:study_new"), _form(lead=lead.pk, saved_list="pytorch/pytorch#99"))
    assert response.status_code == 400 and "line 1: pytorch/pytorch#99" in response.content.decode()
    response = client.post(reverse("annotation:study_new"), _form(lead=lead.pk, created_from="2030-01-01"))
    assert response.status_code == 400 and "No stored report matches" in response.content.decode()
    response = client.post(reverse("annotation:study_new"), _form(lead=lead.pk, overlap=0))
    assert response.status_code == 400
    assert not Study.objects.exists() and Codebook.objects.count() == taxonomies


def test_a_duplicate_name_leaves_no_orphan_codebook(client_as, corpus, admin, lead):
    client = client_as(admin)
    client.post(reverse("annotation:study_new"), _form(lead=lead.pk))
    taxonomies = Codebook.objects.count()
    response = client.post(reverse("annotation:study_new"), _form(lead=lead.pk))
    assert response.status_code == 400 and "exists already" in response.content.decode()
    assert Codebook.objects.count() == taxonomies


def test_only_admins_set_up_studies(client_as, lead):
    response = client_as(lead).get(reverse("annotation:study_new"))
    assert response.status_code == 302 and "login" in response.url


def _settings(study, **changes):
    data = {"name": study.name, "description": study.description, "overlap": study.overlap or "",
            "pilot_percent": study.pilot_fraction * 100, "seed": study.seed}
    data.update(changes)
    return data


def test_the_lead_redraws_the_pilot_before_labeling_it_then_it_is_fixed(client_as, lead, annotator_a):
    from annotation.models import Assignment, Round
    from annotation.services.studies import create_study
    from tests.factories import label_with

    study = create_study(name="Pilot study", codebook=codebook(), issues=[make_issue() for _ in range(40)],
                         lead=lead, annotators=[annotator_a], with_pilot=True, seed=1)
    url = reverse("annotation:study_settings", args=[study.pk])
    client = client_as(lead)

    def sample():
        return set(Assignment.objects.filter(queue__round__kind=Round.Kind.PILOT).values_list("issue_id", flat=True))

    first = sample()
    assert client.post(url, _settings(study, seed=2, pilot_percent=25)).status_code == 302
    second = sample()
    assert len(second) == 10 and second != first
    study.refresh_from_db()
    label_with(lead, study, study.issues.get(pk=min(second)), "C.1", round=study.current_round)
    response = client.post(url, _settings(study, seed=3))
    assert response.status_code == 400 and "can no longer change" in response.content.decode()
    assert sample() == second
    assert client.post(url, _settings(study, name="Renamed")).status_code == 302
    assert Study.objects.get(pk=study.pk).name == "Renamed"


def test_overlap_is_fixed_once_the_independent_round_begins(client_as, study, lead, annotator_a):
    url = reverse("annotation:study_settings", args=[study.pk])
    response = client_as(lead).post(url, _settings(study, overlap=2))
    assert response.status_code == 400 and "queues are already dealt" in response.content.decode()
    assert client_as(annotator_a).get(url).status_code == 403


def test_a_study_name_as_long_as_its_column_fits_its_codebook_copy(client_as, corpus, admin, lead):
    # The copy's version is named after the study; on PostgreSQL a name past the column was a 500.
    client = client_as(admin)
    names = ["N" * 199 + "a", "N" * 199 + "b"]
    for name in names:
        response = client.post(reverse("annotation:study_new"), _form(name=name, lead=lead.pk))
        assert response.status_code == 302
    versions = [Study.objects.get(name=n).codebook.version for n in names]
    limit = Study._meta.get_field("codebook").related_model._meta.get_field("version").max_length
    assert all(len(v) <= limit for v in versions) and versions[0] != versions[1]


def test_free_version_cuts_to_the_column_and_stays_unique(db):
    from taxonomy.services import copy_codebook, free_version

    base = codebook()
    long = "v" * 400
    first = copy_codebook(base, long)
    second = copy_codebook(base, long)
    assert len(first.version) == len(second.version) == 300 and first.version != second.version
    assert free_version(base.name, long, mark="restored ").endswith("(restored 2)")


def test_the_queue_order_is_chosen_in_the_pilot_then_fixed(client_as, lead, annotator_a, study):
    """Oldest first, or the seeded random order, where any first part of the queues is a random sample; chosen
    during the lead's pilot, fixed once the independent round's queues are dealt; a machine's doubt is not
    chosen here."""
    from annotation.models import Round
    from annotation.planning import by_keys
    from annotation.services.phases import advance
    from annotation.services.studies import create_study

    pilot = create_study(name="Ordered", codebook=codebook(), issues=[make_issue() for _ in range(30)],
                         lead=lead, annotators=[annotator_a], with_pilot=True, seed=4)
    url = reverse("annotation:study_settings", args=[pilot.pk])
    client = client_as(lead)
    assert client.post(url, _settings(pilot, queue_order="confidence")).status_code == 400
    assert client.post(url, _settings(pilot, queue_order="random")).status_code == 302
    pilot.refresh_from_db()
    assert pilot.queue_order == "random"
    advance(pilot, lead, confirm_missing=True)
    round = Round.objects.get(study=pilot, kind=Round.Kind.INDEPENDENT)
    dealt = list(round.queues.get(annotator=annotator_a).assignments.order_by("position")
                 .values_list("issue_id", flat=True))
    assert dealt == by_keys(sorted(pilot.issues.values_list("pk", flat=True)), 4)
    assert dealt != sorted(dealt)
    response = client.post(url, _settings(pilot, queue_order="oldest"))
    assert response.status_code == 400 and "queues are already dealt" in response.content.decode()
    # Unchanged, the field is no change at all: other settings still save after the round began.
    assert client.post(url, _settings(Study.objects.get(pk=pilot.pk), name="Ordered 2",
                                      queue_order="random")).status_code == 302


def test_a_report_keeps_its_key_whatever_else_the_study_holds():
    from annotation.planning import by_keys, order_key

    keys = [order_key(7, i) for i in range(2000)]
    assert all(0 < k <= 1 for k in keys) and abs(sum(keys) / 2000 - 0.5) < 0.03
    assert by_keys([5, 9, 11], 7) == [i for i in by_keys(list(range(20)), 7) if i in (5, 9, 11)]
    # A weight puts a report earlier: key over weight.
    assert by_keys(list(range(200)), 7, {13: 1000.0})[0] == 13
