"""Webhooks against a real HTTP receiver on 127.0.0.1: every message signed with the Standard Webhooks scheme and
checked by its reference implementation, retried with growing waits for about a day when the receiver is down
or refuses it, then dead until sent again; never a label or a note in a body; the lead's forms refuse hostile
input and act once."""
from __future__ import annotations

import json
import socket
import threading
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.urls import reverse
from django.utils import timezone
from standardwebhooks.webhooks import Webhook as Verifier

from annotation.models import Study
from annotation.services.phases import advance
from codebook.services.proposals import cast_vote, open_proposal
from concord import form_tokens
from tests.factories import category, label_with, make_issue, make_study, make_user
from webhooks import services as webhooks
from webhooks.models import Webhook, WebhookDelivery

pytestmark = pytest.mark.django_db

SECRET_NOTE = "I think it is a memory leak in the tokenizer"


class Receiver:
    """An HTTP server on 127.0.0.1 that keeps what it is sent and answers with `status`."""

    def __init__(self):
        self.got: list[tuple[dict, bytes]] = []
        self.status = 204
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                outer.got.append(({k.lower(): v for k, v in self.headers.items()}, body))
                self.send_response(outer.status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def messages(self, secret: str) -> list[dict]:
        # The reference implementation checks each signature (and the timestamp's age) or raises.
        return [Verifier(secret).verify(body, headers) for headers, body in self.got]

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver(settings):
    settings.WEBHOOK_ALLOWED_NETWORKS = "127.0.0.1/32"
    found = Receiver()
    yield found
    found.close()


def _closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/hook"


def test_a_studys_events_reach_the_receiver_signed_and_without_a_label(receiver, settings):
    lead, ann, bob = make_user("lead"), make_user("ann"), make_user("bob")
    issues = [make_issue() for _ in range(2)]
    study = make_study(lead, [ann, bob], issues=issues, name="Hooked")
    hook = webhooks.add(study, receiver.url, [], lead)
    # Labels of a blind round: only their count leaves, every WEBHOOK_LABEL_MINUTES.
    for person, code in ((lead, "C.1"), (ann, "C.2"), (bob, "C.3")):
        label_with(person, study, issues[0], code, note=SECRET_NOTE)
    label_with(ann, study, issues[1], "A.1")
    assert webhooks.send_due() == 0  # too soon for a count
    later = timezone.now() + timedelta(minutes=settings.WEBHOOK_LABEL_MINUTES + 1)
    assert webhooks.send_due(later) == 1
    (saved,) = receiver.messages(hook.secret)
    assert saved["type"] == "label.saved" and saved["data"]["saved"] == 4
    # The blind round's progress stays on its pages, which hide it from a lead labeling blind.
    assert saved["data"]["round"] == {"number": 1, "kind": "independent"}
    assert "done" not in saved["data"] and "total" not in saved["data"]
    # A proposal is decided; the round closes: its closing and its ties are told.
    proposal = open_proposal(study, ann, parent_id=category("C", study.codebook).pk, name="Drift",
                             definition="Tokens differ.", example_ids=[issues[0].pk])
    cast_vote(proposal, bob, False)
    study = advance(study, lead, confirm_missing=True)
    webhooks.send_due(later)
    got = receiver.messages(hook.secret)
    assert [m["type"] for m in got] == ["label.saved", "proposal.decided", "round.closed", "tie.created"]
    decided, closed, ties = got[1:]
    assert closed["data"]["round"] == {"number": 1, "kind": "independent"} and closed["data"]["phase"] == "review"
    assert ties["data"]["ties"] == 1 and ties["data"]["reports"][0]["id"] == issues[0].pk
    assert decided["data"]["outcome"] == "rejected" and decided["data"]["votes"] == {"yes": 0, "no": 1}
    assert all(m["data"]["study"]["id"] == study.pk for m in got)
    # The headers are the standard's; the message id is each delivery's own.
    headers = [h for h, _ in receiver.got]
    assert len({h["webhook-id"] for h in headers}) == 4 and all(h["webhook-signature"].startswith("v1,")
                                                                  for h in headers)
    # A body signed with another secret fails the check: the signature is real.
    with pytest.raises(Exception, match="signature"):
        Verifier(webhooks.new_secret()).verify(receiver.got[0][1], receiver.got[0][0])
    # Never a label, a category or a note.
    for _, body in receiver.got:
        text = body.decode()
        assert SECRET_NOTE not in text and not any(f'"{code}"' in text for code in ("C.1", "C.2", "C.3", "A.1"))
    assert WebhookDelivery.objects.filter(delivered_at__isnull=False).count() == 4


def test_agreement_is_sent_for_a_closed_round_only(receiver):
    from agreement.services import snapshot

    lead, ann = make_user("lead"), make_user("ann")
    issues = [make_issue() for _ in range(3)]
    study = make_study(lead, [ann], issues=issues)
    hook = webhooks.add(study, receiver.url, ["agreement.updated"], lead)
    for issue in issues:
        label_with(lead, study, issue, "C.1")
        label_with(ann, study, issue, "C.1")
    snapshot(study.rounds.get(number=1), "theme")
    assert not WebhookDelivery.objects.exists()  # the round runs, blind
    study = advance(study, lead)
    snapshot(study.rounds.get(number=1), "theme")
    webhooks.send_due()
    (message,) = receiver.messages(hook.secret)
    assert message["type"] == "agreement.updated" and message["data"]["labels"] == 6
    assert message["data"]["per_type"]["C"]["reports"] == 3


def test_a_receiver_that_is_down_is_tried_for_a_day_then_the_message_is_dead_until_sent_again(receiver):
    lead = make_user("lead")
    study = make_study(lead, [make_user("ann")])
    hook = webhooks.add(study, _closed_port_url(), ["round.closed"], lead)
    advance(study, lead, confirm_missing=True)
    delivery = WebhookDelivery.objects.get()
    now, waits = timezone.now(), []
    while True:
        assert webhooks.send_due(now) == 0
        delivery.refresh_from_db()
        if delivery.dead_at is not None:
            break
        waits.append((delivery.next_attempt_at - now).total_seconds())
        assert webhooks.send_due(now + timedelta(seconds=waits[-1] - 2)) == 0  # not due yet: not tried
        now = delivery.next_attempt_at
    assert delivery.attempts == 8 and "ConnectionError" in delivery.last_error
    assert [round(w) for w in waits] == [5, 300, 1800, 7200, 18000, 28800, 28800]
    assert 23 * 3600 < sum(waits) < 25 * 3600  # about a day
    assert webhooks.send_due(now + timedelta(days=3)) == 0  # dead: not tried again by itself
    # The lead sees it on the study's webhooks page and sends it again, to the receiver now up; twice is once.
    Webhook.objects.filter(pk=hook.pk).update(url=receiver.url)
    client = _client(lead)
    page = client.get(reverse("webhooks:list", args=[study.pk])).content.decode()
    assert "ConnectionError" in page and "Send again" in page
    for _ in range(2):
        client.post(reverse("webhooks:again", args=[study.pk, delivery.pk]))
    assert webhooks.send_due() == 1
    (message,) = receiver.messages(hook.secret)
    assert receiver.got[0][0]["webhook-id"] == delivery.message_id and message["type"] == "round.closed"


def test_a_refusing_receiver_is_tried_again_and_an_address_switched_off_is_not_sent_to(receiver):
    lead = make_user("lead")
    study = make_study(lead, [make_user("ann")])
    hook = webhooks.add(study, receiver.url, [], lead)
    receiver.status = 500
    advance(study, lead, confirm_missing=True)
    assert webhooks.send_due() == 0
    delivery = WebhookDelivery.objects.get()
    assert delivery.last_status == 500 and delivery.attempts == 1 and delivery.next_attempt_at is not None
    receiver.status = 200
    assert webhooks.send_due(timezone.now() + timedelta(seconds=6)) == 1
    assert len(receiver.got) == 2 and receiver.got[0][1] == receiver.got[1][1]  # the same bytes, retried
    # Switched off (the form names the state it showed, so a double click switches once): nothing is written.
    client = _client(lead)
    for _ in range(2):
        client.post(reverse("webhooks:switch", args=[study.pk, hook.pk]), {"expected": "on"})
    hook.refresh_from_db()
    assert hook.active is False
    advance(Study.objects.get(pk=study.pk), lead)
    assert WebhookDelivery.objects.count() == 1


def _client(user):
    from django.test import Client

    client = Client()
    client.force_login(user)
    return client


@pytest.mark.parametrize(("field", "value", "said"), [
    ("url", "http://127.0.0.1:9/hook", "loopback"),  # not in WEBHOOK_ALLOWED_NETWORKS here
    ("url", "http://10.0.0.5/hook", "private"),
    ("url", "javascript:alert(1)", "Enter a valid URL"),
    ("url", "https://example.org/\x00", "a NUL character"),  # refused before the view, naming the field
    ("url", "https://example.org/" + "a" * 600, "at most 500 characters"),
    ("events", "tie.deleted", "not one of the available choices"),
])
def test_hostile_webhook_forms_change_nothing(field, value, said):
    lead = make_user("lead")
    study = make_study(lead)
    data = {"url": "https://hooks.example.org/x", "events": ["round.closed"],
            form_tokens.FIELD: form_tokens.new_token(), field: value}
    answer = _client(lead).post(reverse("webhooks:add", args=[study.pk]), data)
    assert answer.status_code == 400 and said in answer.content.decode()
    assert not Webhook.objects.exists()


def test_a_double_click_adds_one_webhook(receiver):
    lead = make_user("lead")
    study = make_study(lead)
    client, token = _client(lead), form_tokens.new_token()
    for _ in range(2):
        client.post(reverse("webhooks:add", args=[study.pk]),
                    {"url": receiver.url, "events": ["round.closed"], form_tokens.FIELD: token})
    assert Webhook.objects.count() == 1
    page = client.get(reverse("webhooks:list", args=[study.pk])).content.decode()
    assert Webhook.objects.get().secret in page and json.dumps("round.closed")[1:-1] in page


def test_adding_switching_and_sending_again_are_audited_once_each(receiver):
    from concord.audit import broken_links
    from concord.models import AuditEntry

    lead = make_user("lead")
    study = make_study(lead, [make_user("ann")])
    client, token = _client(lead), form_tokens.new_token()
    secret_url = receiver.url + "/T000/B000/XXXXsecretpath"
    for _ in range(2):  # a double click: one webhook, one entry
        client.post(reverse("webhooks:add", args=[study.pk]),
                    {"url": secret_url, "events": ["round.closed"], form_tokens.FIELD: token})
    hook = Webhook.objects.get()
    for expected in ("on", "on", "off"):  # off, then a double click that changes nothing, then on again
        client.post(reverse("webhooks:switch", args=[study.pk, hook.pk]), {"expected": expected})
    receiver.status = 500
    advance(study, lead, confirm_missing=True)
    delivery = WebhookDelivery.objects.get()
    WebhookDelivery.objects.filter(pk=delivery.pk).update(dead_at=timezone.now())
    for _ in range(2):
        client.post(reverse("webhooks:again", args=[study.pk, delivery.pk]))
    entries = list(AuditEntry.objects.filter(action__startswith="webhook").values_list("actor", "action", "detail",
                                                                                       "study_id"))
    assert [(actor, action) for actor, action, _, _ in entries] == [
        ("lead", "webhook added"), ("lead", "webhook switched off"), ("lead", "webhook switched on"),
        ("lead", "webhook message sent again")]
    assert all(study_id == study.pk and detail["webhook"] == hook.pk and detail["host"] == "127.0.0.1"
               for _, _, detail, study_id in entries)
    assert "secretpath" not in str(entries)  # a chat service's webhook address carries its secret
    assert entries[3][2]["message"] == delivery.message_id and list(broken_links()) == []
