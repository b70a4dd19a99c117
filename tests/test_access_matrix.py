"""Every URL pattern and API endpoint × every role × every phase, full pages and htmx partials.

Each URL name has an entry saying which rule lets a role in; a URL added without an entry fails the test that
walks the URL conf. Allowed roles get their page (200, or what the entry names); refused ones never get a 2xx
and never a 500: outsiders 404 (the study is not theirs to know of), members without the right 403, anonymous
visitors the login page (or 401/403 from the API). POST-only endpoints answer a GET with 405 and are also sent
an empty POST, which changes nothing and is refused to those without the right.
"""
from __future__ import annotations

from collections.abc import Callable

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from annotation.models import Invitation, Label, Study
from annotation.services.labels import stop_labeling
from annotation.services.phases import advance
from annotation.services.studies import create_study
from codebook.models import Proposal
from ingest.models import IngestRun, Keyword, KeywordList, Source, SummaryBatch
from ingest.services.screening import draw_keyword_sample
from interviews.models import Participant
from machines.models import MachineLabel, MachineRater, MachineRun, ReplacementDecision
from tests.factories import codebook, label_with, make_issue, make_study, make_user
from webhooks.models import Webhook, WebhookDelivery

pytestmark = pytest.mark.django_db

ROLES = ["anonymous", "annotator", "outsider", "other_lead", "lead_blind", "lead_open", "admin"]
PHASES = ["pilot", "independent", "review", "adjudication", "closed"]
MEMBERS = {"annotator", "lead_blind", "lead_open"}
LEADS = {"lead_blind", "lead_open"}


# Who may: the rules of annotation.permissions, restated from the roles' point of view.
def anyone(role, phase):
    return True


def logged_in(role, phase):
    return role != "anonymous"


def staff(role, phase):
    return role == "admin"


def viewer(role, phase):
    return role in MEMBERS or role == "admin"


def labeler(role, phase):
    return role in MEMBERS


def manager(role, phase):
    return role in LEADS or role == "admin"


def lead_only(role, phase):
    return role in LEADS


def sees_labels(role, phase):
    """The blind rule: annotators during the pilot and independent round, the lead while labeling blind."""
    if role in {"admin", "lead_open"}:
        return True
    if role == "lead_blind":
        return phase != "independent"
    return role == "annotator" and phase not in {"pilot", "independent"}


def manager_seeing(role, phase):
    return manager(role, phase) and sees_labels(role, phase)


def screener(role, phase):
    # The sample's screeners are the annotator (alice) and the blind lead (tie-breaker); admins see every sample.
    return role in {"annotator", "lead_blind", "admin"}


GET, POST = "GET", "POST"
# name: (rule, method, statuses an allowed role may get when more than 200 is right)
MATRIX: dict[str, tuple[Callable, str, set[int] | None]] = {
    # Health, for balancers and monitoring: open to anyone (503 while something it checks is missing)
    "healthz": (anyone, GET, None),
    "readyz": (anyone, GET, {200, 503}),
    # Accounts and invitation links
    "login": (anyone, GET, {200, 302}),
    "account_login": (anyone, GET, {200, 302}),
    # Signing in through a provider: none is set up in this test, so each answers 404 to everyone.
    "openid_connect_login": (anyone, GET, {404}),
    "openid_connect_callback": (anyone, GET, {404}),
    "github_login": (anyone, GET, {404}),
    "github_callback": (anyone, GET, {404}),
    "gitee_login": (anyone, GET, {404}),
    "gitee_callback": (anyone, GET, {404}),
    "socialaccount_login_cancelled": (anyone, GET, None),
    "socialaccount_login_error": (anyone, GET, {401}),  # the error page says nobody was signed in
    "socialaccount_signup": (anyone, GET, {302}),  # nothing to sign up with: back to the sign-in page
    "logout": (logged_in, POST, {302}),
    "join": (anyone, GET, {410}),  # an unknown link: gone, whoever asks
    "choose_language": (anyone, POST, {302}),  # the sign-in page has the switcher too
    "javascript_catalog": (anyone, GET, None),
    "notices": (logged_in, GET, None),
    "notices_read": (logged_in, POST, {400}),  # an empty form names no notice
    "notices_kinds": (logged_in, POST, {302}),  # an empty form switches every kind off
    # API
    "api:schema": (logged_in, GET, None),
    "api:study_list": (logged_in, GET, None),
    "api:study_detail": (viewer, GET, None),
    "api:report_list": (viewer, GET, None),
    "api:report_detail": (viewer, GET, None),
    "api:queue_next": (labeler, GET, {200, 204, 404}),  # 404: no open round to take from
    "api:queue_skip": (labeler, POST, {400, 404}),
    "api:label_list": (viewer, GET, None),
    "api:label_history": (manager_seeing, GET, None),
    "api:comment_list": (sees_labels, GET, None),
    "api:study_agreement": (sees_labels, GET, None),
    "api:sample_figures": (staff, GET, None),
    # Studies
    "annotation:study_list": (logged_in, GET, None),
    "annotation:study_new": (staff, GET, None),
    "annotation:study_detail": (viewer, GET, None),
    "annotation:study_advance": (manager, POST, {302}),
    "annotation:stop_labeling": (lead_only, POST, {302}),
    "annotation:study_settings": (manager, GET, None),
    "annotation:study_export_csv": (manager_seeing, GET, None),
    "corpus:corpus_csv": (manager_seeing, GET, None),
    "corpus:corpus_jsonl": (manager_seeing, GET, None),
    "corpus:study_json": (manager_seeing, GET, None),
    "corpus:dataset_card": (manager_seeing, GET, None),
    "corpus:replication_package": (manager_seeing, GET, None),
    "corpus:qdpx": (manager_seeing, GET, None),
    "findings:statistics": (sees_labels, GET, None),
    "findings:table1_csv": (sees_labels, GET, None),
    "findings:figure3_csv": (sees_labels, GET, None),
    "findings:shares": (sees_labels, GET, None),
    "findings:shares_csv": (sees_labels, GET, None),
    "findings:comparison": (sees_labels, GET, None),
    "findings:comparison_csv": (sees_labels, GET, None),
    "findings:baseline": (manager_seeing, POST, {302}),
    "findings:comparison_card": (manager_seeing, POST, {302}),
    "findings:subset_define": (manager_seeing, POST, {302}),
    "annotation:history": (manager_seeing, GET, None),
    "annotation:history_csv": (manager_seeing, GET, None),
    # Members and invitations
    "annotation:members": (manager, GET, None),
    "annotation:invitation_create": (manager, POST, {400}),
    "webhooks:list": (manager, GET, None),
    "annotation:study_sso": (staff, POST, {302}),  # an empty form names no state: nothing changes
    "webhooks:add": (manager, POST, {400}),
    "webhooks:switch": (manager, POST, {302}),  # an empty form names no state: nothing changes
    "webhooks:again": (manager, POST, {302}),  # the message is not dead: nothing changes
    "annotation:invitation_revoke": (manager, POST, {302}),
    "annotation:member_remove": (manager, POST, {302}),
    "annotation:member_deactivate": (staff, POST, {302}),
    # Reports and labeling
    "annotation:issue_list": (viewer, GET, None),
    "annotation:report": (viewer, GET, None),
    "annotation:queue": (labeler, GET, None),
    "annotation:previous": (labeler, GET, {200, 302}),
    "annotation:instructions_read": (labeler, POST, {302}),
    "annotation:annotators": (manager_seeing, GET, None),
    "annotation:issue_label": (labeler, GET, {200, 404}),
    "annotation:label_submit": (labeler, POST, {302, 404}),
    "annotation:label_skip": (labeler, POST, {302, 400, 404}),
    "codebook:category_add": (viewer, POST, {302}),
    # Review and adjudication
    "annotation:review_list": (sees_labels, GET, None),
    "annotation:comment_post": (sees_labels, POST, {400, 404}),
    "annotation:adjudication_list": (manager_seeing, GET, None),
    "annotation:adjudicate": (manager_seeing, GET, None),
    # Agreement
    "agreement:study_agreement": (sees_labels, GET, None),
    "agreement:recompute": (sees_labels, POST, {302}),
    "agreement:planner": (sees_labels, GET, None),
    "agreement:pair": (sees_labels, GET, {400}),  # 400: the walk names no pair
    # Sources, runs and screening
    "ingest:source_list": (staff, GET, None),
    "audit_log": (staff, GET, None),
    "audit_csv": (staff, GET, None),
    "ingest:source_detail": (staff, GET, None),
    "ingest:source_ingest": (staff, POST, {302, 400}),
    "ingest:source_decisions_csv": (staff, GET, None),
    "ingest:batch_progress": (staff, GET, {200, 286}),
    "ingest:run_progress": (staff, GET, {200, 286}),
    "ingest:run_retry": (staff, POST, {302}),
    "ingest:screening_list": (logged_in, GET, None),
    "findings:screening_report": (staff, GET, None),
    "ingest:sample_create": (staff, POST, {302}),
    "ingest:sample_detail": (staff, GET, None),
    "ingest:sample_decide": (staff, POST, {302}),
    "ingest:sample_queue": (screener, GET, None),
    "ingest:item_judge": (screener, POST, {400}),
    # Codebook, proposals, interviews
    "codebook:codebook": (viewer, GET, None),
    "codebook:change": (manager, POST, {302}),
    "codebook:changelog": (viewer, GET, None),
    "codebook:saturation": (manager_seeing, GET, None),
    "codebook:instructions": (viewer, GET, None),
    "codebook:clarify_pair": (manager_seeing, GET, {400}),  # 400: the walk names no pair
    "codebook:proposals": (viewer, GET, None),
    "codebook:proposal": (viewer, GET, None),
    "codebook:export": (viewer, GET, None),
    "codebook:details_csv": (sees_labels, GET, None),
    "codebook:second_language": (viewer, GET, None),
    "codebook:second_language_upload": (manager, POST, {302}),
    "codebook:details": (viewer, GET, None),
    "interviews:interviews": (manager, GET, None),
    "interviews:interview_results": (manager, GET, None),
    "interviews:guide": (manager, GET, None),
    "interviews:participant_add": (manager, POST, {302, 400}),
    "interviews:interview_results_csv": (manager, GET, None),
    "interviews:participant": (manager, GET, None),
    "codebook:my_votes": (logged_in, GET, None),
    "taxonomy:import": (staff, GET, None),
    # Machine raters: everything that shows a machine's figures follows the lead's seeing-labels rule; the two
    # fragments answer every member (empty unless the machine rule lets them see something).
    "machines:index": (manager_seeing, GET, None),
    "machines:add": (manager_seeing, POST, {400}),
    "machines:rater": (manager_seeing, GET, None),
    "machines:run": (manager_seeing, POST, {302}),
    "machines:calls": (manager_seeing, GET, None),
    "machines:decide": (manager_seeing, POST, {302}),
    "machines:order_queues": (manager_seeing, POST, {302}),
    "machines:run_progress": (manager_seeing, GET, {200, 286}),
    "machines:withdraw": (manager_seeing, POST, {302}),
    "machines:apply": (manager_seeing, POST, {302}),
    "machines:carry": (manager_seeing, POST, {302}),
    "machines:jury": (manager_seeing, GET, None),
    "machines:delegate": (manager_seeing, POST, {302}),
    "machines:end_delegation": (manager_seeing, POST, {302}),
    "machines:report_labels": (viewer, GET, None),
    "machines:flags": (viewer, GET, None),
    "findings:summary_experiment": (manager_seeing, GET, None),
}
# Not study-scoped: refused people are sent to log in (user_passes_test) or get 403, never 404 by design.
REFUSED = {302, 401, 403, 404, 405}


def _walk(patterns, ns=""):
    for p in patterns:
        if isinstance(p, URLResolver):
            yield from _walk(p.url_patterns, f"{ns}{p.namespace}:" if p.namespace else ns)
        elif isinstance(p, URLPattern) and p.name:
            yield f"{ns}{p.name}", p


def test_every_url_has_an_entry():
    names = {name for name, _ in _walk(get_resolver().url_patterns) if not name.startswith("admin:")}
    assert names - set(MATRIX) == set(), "URLs without an entry in the access matrix"
    assert set(MATRIX) - names == set(), "entries for URLs that no longer exist"


def _world(phase: str) -> tuple[dict, dict]:
    """A study in `phase` with the cast; the users by role and the values for every URL's arguments."""
    lead, lead2 = make_user("lead"), make_user("lead2")
    alice, bob = make_user("alice"), make_user("bob")
    users = {"annotator": alice, "outsider": make_user("mallory"), "lead_blind": lead, "lead_open": lead2,
             "admin": make_user("admin", is_staff=True, is_superuser=True)}
    users["other_lead"] = make_user("olga")
    make_study(users["other_lead"], [], n_issues=1, name="Another study")
    issues = [make_issue(title=f"Report {n}") for n in range(3)]
    study = create_study(name="Matrix", codebook=codebook(), issues=issues, lead=lead, annotators=[alice, bob],
                         with_pilot=phase == "pilot", lead_labels_blind=True)
    study.memberships.create(user=lead2, role="lead")
    carl = make_user("carl")  # the member the remove and deactivate buttons act on
    study.memberships.create(user=carl, role="annotator")
    c1 = study.codebook.categories.get(code="C.1")
    proposal = Proposal.objects.create(study=study, parent=c1, name="Drift", definition="d", proposer=alice)
    if phase != "pilot":
        for person in (alice, bob):
            for issue in issues:
                label_with(person, study, issue, "C.1")
        # The blind lead has labeled one report of three; the second lead stopped labeling to see everything.
        label_with(lead, study, issues[0], "C.1")
        from annotation.services.phases import join_round

        join_round(study, lead2)
        stop_labeling(lead2, Study.objects.get(pk=study.pk), 1)
    for target in PHASES[PHASES.index("independent") + 1:PHASES.index(phase) + 1] if phase != "pilot" else []:
        study = advance(Study.objects.get(pk=study.pk), users["admin"], confirm_missing=True)
        assert study.phase == target
    study = Study.objects.get(pk=study.pk)
    assert study.phase == phase
    keyword = KeywordList.objects.create(name="k").keywords.create(term="report", status=Keyword.Status.CANDIDATE)
    source = Source.objects.create(full_name="o/r", keyword_list=keyword.keyword_list)
    make_issue(source, title="report on llm")
    sample = draw_keyword_sample(keyword, (alice, bob, lead), seed=1, size=1)
    invitation = Invitation.objects.create(study=study, created_by=lead, token_hash="x" * 64,
                                           expires_at="2099-01-01T00:00:00Z")
    values = {
        "study_id": study.pk, "issue_id": issues[0].pk, "category_id": c1.pk, "fmt": "json",
        "proposal_id": proposal.pk, "invitation_id": invitation.pk, "source_id": source.pk,
        "participant_id": Participant.objects.create(study=study, code="U1", group="user").pk,
        "batch_id": SummaryBatch.objects.create(source=source, backend="extractive", prompt_version="1").pk,
        "run_id": IngestRun.objects.create(source=source, kind="file").pk,
        "sample_id": sample.pk, "item_id": sample.items.get().pk, "token": "no-such-token", "user_id": carl.pk,
        "provider_id": "oidc", "language": "zh-hans",
        **_webhook_values(study, lead),
        **_machine_values(study, lead2),
    }
    return users, values


def _webhook_values(study, lead) -> dict:
    hook = Webhook.objects.create(study=study, url="https://hooks.example.org/concord", secret="whsec_QUJD",
                                  created_by=lead)
    delivery = WebhookDelivery.objects.create(webhook=hook, message_id="msg_1", event="round.closed", body="{}",
                                              delivered_at="2026-01-01T00:00:00Z")
    return {"webhook_id": hook.pk, "delivery_id": delivery.pk}


def _machine_values(study, lead) -> dict:
    rater = MachineRater.objects.create(study=study, name="tfidf", kind="builtin", settings={"folds": 2})
    run = MachineRun.objects.create(rater=rater, status="succeeded")
    MachineLabel.objects.create(run=run, issue=study.issues.order_by("pk").first(), type_code="C", theme_code="C.1")
    decision = ReplacementDecision.objects.create(rater=rater, level="type", epsilon=0.15, figures={}, reason="r",
                                                  decided_by=lead)
    return {"rater_id": rater.pk, "machine_run_id": run.pk, "decision_id": decision.pk}


def _expected(name: str, role: str, phase: str) -> tuple[bool, set[int]]:
    rule, method, extra = MATRIX[name]
    allowed = rule(role, phase)
    return allowed, (extra or {200}) if allowed else REFUSED


@pytest.mark.slow
@pytest.mark.parametrize("phase", PHASES)
def test_who_may_open_and_send_what_in_every_phase(phase):
    users, values = _world(phase)
    labels_before = Label.objects.count()
    wrong = []
    for name, pattern in _walk(get_resolver().url_patterns):
        if name.startswith("admin:"):
            continue
        url = reverse(name, kwargs={k: values[k] for k in pattern.pattern.converters})
        method = MATRIX[name][1]
        for role in ROLES:
            client = Client()
            if role != "anonymous":
                client.force_login(users[role])
            allowed, statuses = _expected(name, role, phase)
            if method == GET:
                for headers in ({}, {"HX-Request": "true"}):
                    status = client.get(url, headers=headers).status_code
                    if status not in statuses:
                        wrong.append(f"{phase} {role} GET {name}{' (htmx)' if headers else ''}: {status}")
            else:
                status = client.get(url).status_code
                if status not in {302, 401, 403, 404, 405}:
                    wrong.append(f"{phase} {role} GET on POST-only {name}: {status}")
                status = client.post(url, {}).status_code
                if status >= 500 or (allowed and status in {401, 403}) or (not allowed and status not in REFUSED):
                    wrong.append(f"{phase} {role} POST {name}: {status}")
    assert not wrong, "\n".join(wrong)
    # Empty posts name no state and carry no choice: none of them changed a label.
    assert Label.objects.count() == labels_before


def test_notices_digests_and_webhook_bodies_tell_no_one_what_their_pages_refuse(settings, mailoutbox):
    """During the blind round, what reaches a person outside the pages says no more than their own pages would.
    Retiring C.1 sends back Bob's C.1 labels: the lead, labeling blind, must not learn from a "queue stands still"
    notice (or its digest) how many of them there were, nor hear of a machine flagged against the people's labels;
    webhook bodies carry no label and no progress of the independent round."""
    import json as json_module
    from datetime import timedelta

    from django.utils import timezone

    from accounts import notices
    from accounts.digests import send_digest
    from accounts.models import Notice
    from annotation.models import Round
    from annotation.permissions import can_manage_seeing_labels, labels_blind
    from annotation.selectors.phases import missing_labels
    from codebook.services.changes import retire
    from machines.services.measurements import _tell_leads
    from reminders.idle import tell_idle
    from tests.factories import category
    from webhooks import services as webhooks

    settings.QUEUE_IDLE_DAYS = 3
    settings.WEBHOOK_ALLOWED_NETWORKS = "0.0.0.0/0"
    lead, ann, bob = make_user("lead"), make_user("ann"), make_user("bob")
    for person in (lead, ann, bob):
        person.email = f"{person.username}@example.org"
        person.save()
    study = make_study(lead, [ann, bob], n_issues=4, lead_labels_blind=True)
    hook = Webhook.objects.create(study=study, url="https://hooks.example.org/x", secret="whsec_QUJD",
                                  created_by=lead, events=list(webhooks.EVENTS))
    issues = list(study.issues.order_by("created_at", "id"))
    for issue in issues:  # Bob finishes, three of four with C.1; Ann labels one; the lead one of four
        label_with(bob, study, issue, "C.1" if issue != issues[3] else "C.2")
    label_with(ann, study, issues[0], "C.2")
    label_with(lead, study, issues[0], "C.2")
    retire(study, lead, category("C.1", study.codebook).pk, "folded into C.2",
           expected_revision=study.codebook.revision)
    round = study.current_round
    assert labels_blind(lead, study) and round.kind == Round.Kind.INDEPENDENT
    long_ago = timezone.now() - timedelta(days=10)
    Round.objects.filter(pk=round.pk).update(opened_at=long_ago)
    Label.objects.filter(round=round).update(updated_at=long_ago)

    assert tell_idle() == 3  # Bob's queue too: three reports sent back, untouched since
    shown = {m.username: m.count for m in missing_labels(round, lead)}  # what the lead's study page says
    for notice in Notice.objects.filter(user=lead, kind="stuck"):
        named = notice.params["annotator"]
        assert named in shown and notice.params["left"] == shown[named], (notice.params, shown)
    assert "bob" not in shown and not Notice.objects.filter(user=lead, params__annotator="bob").exists()

    decision = ReplacementDecision.objects.create(rater=MachineRater.objects.create(
        study=study, name="tfidf", kind="builtin", settings={}), level="type", epsilon=0.15, figures={},
        reason="r", decided_by=lead)
    _tell_leads(decision)
    assert not can_manage_seeing_labels(lead, study)
    assert not Notice.objects.filter(user=lead, kind="flagged").exists()

    # The digest is the notices' own text: nothing more reaches the lead's mailbox.
    assert send_digest(lead.pk) == Notice.objects.filter(user=lead).count() > 0
    body = mailoutbox[-1].body
    assert "bob" not in body and all(notices.text(n) in body for n in Notice.objects.filter(user=lead))
    # Bob hears that his own queue waits, with his own count (three sent back): his pages show it.
    assert "reports left: 3" in " ".join(notices.text(n) for n in Notice.objects.filter(user=bob))

    webhooks.count_labels(timezone.now() + timedelta(hours=1))
    bodies = [json_module.loads(d.body) for d in WebhookDelivery.objects.filter(webhook=hook)]
    assert bodies and all(b["type"] in webhooks.EVENTS for b in bodies)
    text = json_module.dumps(bodies)
    for secret in ("C.1", "C.2", "done", "total", "bob", "ann"):
        assert secret not in text, (secret, bodies)
