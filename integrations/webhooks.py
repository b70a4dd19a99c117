"""A webhook message on the wire (Standard Webhooks: the id, the time and the signature in headers): one attempt
to an address a lead typed, through the address guard at every connection, never following a redirect (a
receiver's redirect could point anywhere). Which messages to send, when to try again and what to record are the
study's business (webhooks.services)."""
from __future__ import annotations

from datetime import datetime

import requests
from standardwebhooks.webhooks import Webhook as Signer

from .guard import AddressGuard, Forbidden, GuardedAdapter

TIMEOUT_SECONDS = 10


def post_signed(url: str, *, secret: str, message_id: str, body: str, sent_at: datetime, guard: AddressGuard,
                timeout: float = TIMEOUT_SECONDS) -> tuple[int | None, str]:
    """(the receiver's status or None, what went wrong or ""): "" only when the receiver took it (a 2xx)."""
    headers = {"content-type": "application/json", "webhook-id": message_id,
               "webhook-timestamp": str(int(sent_at.timestamp())),
               "webhook-signature": Signer(secret).sign(message_id, sent_at, body), "user-agent": "Concord-Webhooks"}
    session = requests.Session()
    session.mount("http://", GuardedAdapter(guard))
    session.mount("https://", GuardedAdapter(guard))
    try:
        answer = session.post(url, data=body.encode(), headers=headers, timeout=timeout, allow_redirects=False)
    except Forbidden as exc:
        return None, f"not sent: {exc}"
    except requests.RequestException as exc:
        return None, f"not sent: {exc.__class__.__name__}: {exc}"[:500]
    finally:
        session.close()
    return answer.status_code, "" if 200 <= answer.status_code < 300 else f"the receiver answered {answer.status_code}"
