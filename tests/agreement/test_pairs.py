"""A confused pair's page (figures, both definitions, the reports behind it, behind the blind rule) and a
clarification made from it, which keeps the pair as its evidence in the change log."""
from __future__ import annotations

import pytest
from django.urls import reverse

from agreement.models import AgreementSnapshot
from codebook.models import ChangeLogEntry
from taxonomy.models import Category
from tests.factories import label_with, make_issue, make_study

pytestmark = pytest.mark.django_db


@pytest.fixture
def confused(lead, annotator_a, annotator_b, client_as):
    """Six reports two people call A.2 and one A.3, one report the reverse, five everyone calls C.1; and the
    dashboard's figures of them, as the lead's visit computes them."""
    issues = [make_issue(title=f"Report {i}") for i in range(12)]
    study = make_study(lead, [annotator_a, annotator_b], issues=issues)
    for i, issue in enumerate(issues):
        codes = ("A.2", "A.2", "A.3") if i < 6 else ("A.3", "A.3", "A.2") if i == 6 else ("C.1",) * 3
        for person, code in zip((lead, annotator_a, annotator_b), codes, strict=True):
            label_with(person, study, issue, code)
    client_as(lead).get(reverse("agreement:study_agreement", args=[study.pk]))
    return study


def _pair_url(study, **query) -> str:
    return reverse("agreement:pair", args=[study.pk]) + "?" + "&".join(f"{k}={v}" for k, v in query.items())


def test_the_dashboard_links_each_pair_to_its_reports_and_both_definitions(confused, lead, client_as):
    client = client_as(lead)
    dashboard = client.get(reverse("agreement:study_agreement", args=[confused.pk])).content.decode()
    link = f"{reverse('agreement:pair', args=[confused.pk])}?level=theme&amp;at=theme&amp;a=A.2&amp;b=A.3"
    assert link in dashboard
    page = client.get(link.replace("&amp;", "&"))
    assert page.status_code == 200
    text = page.content.decode()
    kept = next(p for p in AgreementSnapshot.objects.get().figures["confusion"]["theme"] if p["first"] == "A.2")
    # The reports behind the pair are those the figures counted.
    assert page.context["total"] == kept["reports"] == 7 and len(page.context["reports"]) == 7
    assert [counts for _, counts in page.context["reports"]] == [{"A.2": 2, "A.3": 1}] * 6 + [{"A.2": 1, "A.3": 2}]
    for code in ("A.2", "A.3"):
        category = Category.objects.get(codebook=confused.codebook, code=code)
        assert f'data-testid="definition-{code}"' in text and category.name in text
    for issue, _ in page.context["reports"]:
        report = reverse("annotation:report", args=[confused.pk, issue.pk])
        assert report in text and client.get(report).status_code == 200
    assert 'data-testid="clarify"' in text


def test_the_type_level_pair_and_not_relevant_are_pairs_too(lead, annotator_a, client_as):
    issues = [make_issue() for _ in range(4)]
    study = make_study(lead, [annotator_a], issues=issues)
    for issue in issues:
        label_with(lead, study, issue, "A.1")
        label_with(annotator_a, study, issue, "NR")
    client = client_as(lead)
    client.get(reverse("agreement:study_agreement", args=[study.pk]))
    page = client.get(_pair_url(study, level="theme", at="type", a="A", b="NR"))
    assert page.status_code == 200 and page.context["total"] == 4
    assert "Not relevant" in page.content.decode()
    # Not relevant is no category of the codebook: nothing to clarify.
    assert 'data-testid="clarify"' not in page.content.decode()


def test_blind_people_see_no_pair(confused, annotator_a, lead, client_as):
    url = _pair_url(confused, level="theme", at="theme", a="A.2", b="A.3")
    assert client_as(annotator_a).get(url).status_code == 403
    # A lead who labels blind, with reports left in their queue, is an annotator here.
    blind = make_study(lead, [annotator_a], n_issues=2, lead_labels_blind=True)
    assert client_as(lead).get(_pair_url(blind, level="theme", at="theme", a="A.2", b="A.3")).status_code == 403
    assert client_as(lead).get(reverse("codebook:clarify_pair", args=[blind.pk])).status_code == 403


@pytest.mark.parametrize(("query", "named"), [
    ({"level": "theme", "at": "theme", "b": "A.3"}, "a:"),
    ({"level": "theme", "at": "theme", "a": "A.2" * 30, "b": "A.3"}, "a:"),
    ({"level": "theme", "at": "theme", "a": "A.2%00", "b": "A.3"}, "a:"),
    ({"level": "theme", "at": "theme", "a": "Z.9", "b": "A.3"}, "a:"),
    ({"level": "theme", "at": "theme", "a": "A.2", "b": "A.2"}, "b:"),
    ({"level": "theme", "at": "sub_theme", "a": "A.2", "b": "A.3"}, "at:"),
    ({"level": "type", "at": "theme", "a": "A.2", "b": "A.3"}, "level:"),
    ({"level": "theme", "at": "theme", "a": "<script>", "b": "A.3"}, "a:"),
])
def test_a_hostile_query_is_refused_with_its_name(confused, lead, client_as, query, named):
    for client in (client_as(lead),):
        for name in ("agreement:pair", "codebook:clarify_pair"):
            url = reverse(name, args=[confused.pk]) + "?" + "&".join(f"{k}={v}" for k, v in query.items())
            page = client.get(url)
            assert page.status_code == 400 and named in page.content.decode()


def _clarify(client, study, **changes):
    url = reverse("codebook:clarify_pair", args=[study.pk]) + "?level=theme&at=theme&a=A.2&b=A.3"
    shown = client.get(url)
    assert shown.status_code == 200
    form = shown.context["form"]
    data = {name: form[name].value() for name in form.fields} | changes
    return url, shown, data


def test_clarifying_a_pair_changes_both_definitions_once_and_keeps_the_pair(confused, lead, client_as):
    client = client_as(lead)
    url, shown, data = _clarify(client, confused, first_definition="Asking how to use an API.",
                                second_exclusion="Not when the user only asks how to use it (A.2).")
    reason = shown.context["form"]["reason"].value()
    assert reason.startswith("People confused A.2 ") and "7 reports given both" in reason
    assert "alpha between the two" in reason and "For example " in reason
    revision = confused.codebook.revision
    response = client.post(url, data)
    assert response.status_code == 302
    entry = ChangeLogEntry.objects.get(codebook=confused.codebook, revision=revision + 1)
    assert entry.kind == "clarify" and [c["code"] for c in entry.after] == ["A.2", "A.3"]
    assert entry.after[0]["definition"] == "Asking how to use an API."
    snapshot = AgreementSnapshot.objects.get()
    assert entry.evidence["pair"] == ["A.2", "A.3"]
    assert entry.evidence["computed_at"] == snapshot.computed_at.isoformat()
    assert entry.evidence["figures"]["reports"] == 7 and entry.evidence["reports_given_both"] == 7
    assert len(entry.evidence["examples"]) == 5
    # What the page showed is what was stored.
    assert entry.evidence == shown.context["evidence"]
    # A double click: the second is refused, nothing more changes.
    again = client.post(url, data)
    assert again.status_code == 400 and "revision" in again.content.decode()
    assert ChangeLogEntry.objects.filter(codebook=confused.codebook).count() == 1
    log = client.get(reverse("codebook:changelog", args=[confused.pk])).content.decode()
    assert 'data-testid="pair-evidence"' in log and "7 reports given both" in log
    first_example = confused.issues.get(number=entry.evidence["examples"][0]["ref"].rsplit("#", 1)[1])
    assert reverse("annotation:report", args=[confused.pk, first_example.pk]) in log


def test_the_figures_recomputed_meanwhile_refuse_the_clarification(confused, lead, client_as):
    client = client_as(lead)
    url, _, data = _clarify(client, confused, first_definition="New.")
    client.post(reverse("agreement:recompute", args=[confused.pk]),
                {"level": "theme", "expected": AgreementSnapshot.objects.get().pk})
    refused = client.post(url, data)
    assert refused.status_code == 400 and "recomputed since this page was shown" in refused.content.decode()
    # What was typed is shown again as typed, with the new figures' snapshot and revision.
    assert 'id="id_first_definition">\nNew.</textarea>' in refused.content.decode()
    assert refused.context["form"]["snapshot"].value() == str(AgreementSnapshot.objects.latest("id").pk)
    assert not ChangeLogEntry.objects.filter(codebook=confused.codebook).exists()
    # Shown again with the new figures, a deliberate second save goes through.
    assert client.post(url, refused.context["form"].data).status_code == 302


def test_unchanged_definitions_change_nothing_and_only_the_lead_clarifies(confused, lead, annotator_a,
                                                                         client_as):
    client = client_as(lead)
    url, _, data = _clarify(client, confused)
    refused = client.post(url, data)
    assert refused.status_code == 400 and "as they were" in refused.content.decode()
    assert client_as(annotator_a).get(url).status_code == 403
    assert client_as(annotator_a).post(url, data).status_code == 403
    assert not ChangeLogEntry.objects.filter(codebook=confused.codebook).exists()


def test_the_coincidence_matrix_at_each_level_is_kept_and_shown(confused, lead, client_as):
    kept = AgreementSnapshot.objects.get().figures["coincidences"]
    themes = kept["theme"]
    a2, a3 = themes["categories"].index("A.2"), themes["categories"].index("A.3")
    # Six reports A.2, A.2, A.3 and one A.3, A.3, A.2: each pair of labels weighs 1/2 on a report of three.
    assert themes["matrix"][a2][a3] == themes["matrix"][a3][a2] == pytest.approx(7 * 2 * 0.5)
    assert themes["matrix"][a2][a2] == pytest.approx(6 * 2 * 0.5)
    assert kept["type"]["categories"] == ["A", "C"]
    page = client_as(lead).get(reverse("agreement:study_agreement", args=[confused.pk])).content.decode()
    assert 'data-testid="coincidences-theme"' in page and 'data-testid="coincidences-type"' in page
