"""Models moved between apps by changing Django's model state only — the interview models from the taxonomy app
to the interviews app, proposals, votes and the change log to the codebook app, subsets and comparisons to the
findings app, a person's preferences and notices to the accounts app, webhooks to an app of their own: a
database made before the moves keeps every row, link, rule and permission."""
from __future__ import annotations

import pytest
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from codebook.models import ChangeLogEntry, Proposal, Vote
from interviews.models import Answer, InterviewGuide, Participant, Quote

BEFORE = [("codebook", None), ("interviews", None), ("taxonomy", "0004_taxonomy_version_length"),
          ("annotation", "0008_lead_labels_blind")]
# Undoing the codebook's rename on SQLite rebuilds the tables that point at it (studies, the change log) from the
# state before the rename, which lacks every column added since: those migrations are undone first.
AT_RENAME = [("taxonomy", "0008_codebook"), ("codebook", "0003_change_codebook"), ("annotation", "0015_study_codebook")]


def _migrate(targets) -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor


# Migrating a database back and forth: CI's, not the quick suite's.
@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_database_from_before_the_move_keeps_its_interviews(django_user_model):
    _migrate(AT_RENAME)
    old = _migrate(BEFORE).loader.project_state([t for t in BEFORE if t[1]]).apps
    assert "interviews" not in {m._meta.app_label for m in old.get_models()}
    lead = old.get_model("auth", "User").objects.create(username="lead")
    codebook = old.get_model("taxonomy", "Taxonomy").objects.create(name="Codebook", version="before the move")
    category = old.get_model("taxonomy", "Category")
    bug = category.objects.create(taxonomy=codebook, code="C", name="Bug", level="type")
    memory = category.objects.create(taxonomy=codebook, code="C.2", name="Memory", level="theme", parent=bug)
    study = old.get_model("annotation", "Study").objects.create(name="Before", taxonomy=codebook, created_by=lead)
    guide = old.get_model("taxonomy", "InterviewGuide").objects.create(study=study, title="Guide")
    question = old.get_model("taxonomy", "GuideQuestion").objects.create(guide=guide, part="Part III", text="Rank",
                                                                        kind="ranking", node=bug)
    person = old.get_model("taxonomy", "Participant").objects.create(study=study, code="U1", group="user")
    session = old.get_model("taxonomy", "InterviewSession").objects.create(participant=person, guide=guide,
                                                                          interviewer=lead)
    old.get_model("taxonomy", "Answer").objects.create(session=session, question=question, order=["C.2"])
    quote = old.get_model("taxonomy", "Quote").objects.create(session=session, text="Memory ran out at 70B.")
    quote.nodes.set([memory])
    proposal = old.get_model("taxonomy", "Proposal").objects.create(study=study, parent=bug, name="OOM",
                                                                    definition="Out of memory.", proposer=lead,
                                                                    quote=quote)
    old.get_model("taxonomy", "Vote").objects.create(proposal=proposal, voter=lead, choice=True)
    old.get_model("taxonomy", "ChangeLogEntry").objects.create(taxonomy=codebook, revision=1, kind="rename",
                                                               before=[], after=[], reason="a participant said so",
                                                               made_by=lead, quote=quote, proposal=proposal)
    # The content types of a database from before the move are the taxonomy app's.
    assert not ContentType.objects.filter(app_label="interviews").exists()
    old_type = ContentType.objects.get_or_create(app_label="taxonomy", model="quote")[0]
    proposal_type = ContentType.objects.get_or_create(app_label="taxonomy", model="proposal")[0]

    _migrate(_migrate([]).loader.graph.leaf_nodes())

    moved = Quote.objects.get()
    assert moved.text == "Memory ran out at 70B." and [n.code for n in moved.nodes.all()] == ["C.2"]
    assert moved.session.participant == Participant.objects.get(code="U1", study_id=study.pk)
    assert Answer.objects.get().order == ["C.2"] and InterviewGuide.objects.get().questions.get().node.code == "C"
    assert Proposal.objects.get().quote == moved and ChangeLogEntry.objects.get().quote == moved
    # Permissions and admin history follow the model: the same content type, now the interviews app's.
    assert ContentType.objects.get(pk=old_type.pk).model_class() is Quote
    assert ContentType.objects.get(pk=proposal_type.pk).model_class() is Proposal
    assert Vote.objects.get().proposal == Proposal.objects.get()


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_database_from_before_findings_had_models_keeps_its_subsets_and_comparisons(django_user_model):
    from findings.models import ComparisonRecord, Subset
    from ingest.models import Issue
    from tests.factories import make_issue

    before = [("findings", None), ("annotation", "0020_study_sso_required")]
    old = _migrate(before).loader.project_state([t for t in before if t[1]]).apps
    assert "findings" not in {m._meta.app_label for m in old.get_models()}
    # Only the annotation app went back: the others' rows are made with today's models.
    from taxonomy.models import Codebook

    lead = old.get_model("auth", "User").objects.create(username="lead")
    codebook = Codebook.objects.create(name="Codebook", version="before the move")
    study = old.get_model("annotation", "Study").objects.create(name="Before", codebook_id=codebook.pk,
                                                                created_by=lead)
    issue = make_issue(title="OOM")
    subset = old.get_model("annotation", "Subset").objects.create(study=study, name="baseline", kind="baseline",
                                                                  seed=7)
    subset.issues.set([issue.pk])
    old.get_model("annotation", "ComparisonRecord").objects.create(study=study, by="source", level="type",
                                                                   figures={"p": 0.5})
    subset_type = ContentType.objects.get_or_create(app_label="annotation", model="subset")[0]

    _migrate(_migrate([]).loader.graph.leaf_nodes())

    moved = Subset.objects.get()
    assert (moved.name, moved.seed, moved.study.name) == ("baseline", 7, "Before")
    assert list(moved.issues.all()) == [Issue.objects.get(pk=issue.pk)]
    assert ComparisonRecord.objects.get().figures == {"p": 0.5}
    assert ContentType.objects.get(pk=subset_type.pk).model_class() is Subset


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_database_from_before_accounts_keeps_each_persons_preferences_and_notices(django_user_model):
    from accounts.models import Notice, Preferences

    before = [("accounts", None), ("concord", "0007_notice_settled")]
    old = _migrate(before).loader.project_state([t for t in before if t[1]]).apps
    assert "accounts" not in {m._meta.app_label for m in old.get_models()}
    person = old.get_model("auth", "User").objects.create(username="reader")
    old.get_model("concord", "Preferences").objects.create(user=person, language="zh-hans", notices_off=["comment"])
    old.get_model("concord", "Notice").objects.create(user=person, kind="vote", key="proposal:1",
                                                      params={"name": "OOM"}, created_at="2026-12-01T00:00:00Z")
    notice_type = ContentType.objects.get_or_create(app_label="concord", model="notice")[0]

    _migrate(_migrate([]).loader.graph.leaf_nodes())

    prefs = Preferences.objects.get()
    assert (prefs.user.username, prefs.language, prefs.notices_off) == ("reader", "zh-hans", ["comment"])
    notice = Notice.objects.get()
    assert (notice.kind, notice.key, notice.params, notice.read_at) == ("vote", "proposal:1", {"name": "OOM"}, None)
    assert ContentType.objects.get(pk=notice_type.pk).model_class() is Notice
    # The unread notice's rule came along with its table: a second unread one about the same thing is refused.
    from django.db import IntegrityError, transaction
    with pytest.raises(IntegrityError), transaction.atomic():
        Notice.objects.create(user=prefs.user, kind="vote", key="proposal:1", created_at="2026-12-02T00:00:00Z")


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_database_from_before_the_webhooks_app_keeps_its_webhooks_and_messages(django_user_model):
    from taxonomy.models import Codebook
    from webhooks.models import Webhook, WebhookDelivery

    before = [("webhooks", None), ("annotation", "0021_subsets_moved_out")]
    old = _migrate(before).loader.project_state([t for t in before if t[1]]).apps
    assert "webhooks" not in {m._meta.app_label for m in old.get_models()}
    lead = old.get_model("auth", "User").objects.create(username="lead")
    codebook = Codebook.objects.create(name="Codebook", version="before the move")
    study = old.get_model("annotation", "Study").objects.create(name="Before", codebook_id=codebook.pk,
                                                                created_by=lead)
    hook = old.get_model("annotation", "Webhook").objects.create(study=study, url="https://chat.example/h",
                                                                 secret="whsec_x", events=["round.closed"])
    old.get_model("annotation", "WebhookDelivery").objects.create(webhook=hook, message_id="msg_1",
                                                                  event="round.closed", body="{}")
    hook_type = ContentType.objects.get_or_create(app_label="annotation", model="webhook")[0]

    _migrate(_migrate([]).loader.graph.leaf_nodes())

    moved = Webhook.objects.get()
    assert (moved.url, moved.events, moved.study.name) == ("https://chat.example/h", ["round.closed"], "Before")
    assert WebhookDelivery.objects.get().webhook == moved
    assert ContentType.objects.get(pk=hook_type.pk).model_class() is Webhook
