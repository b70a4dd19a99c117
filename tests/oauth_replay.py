"""GitHub or Gitee in the tests: their recorded OAuth answers (tests/data/oauth) from a real HTTP server on
127.0.0.1, standing in for github.com and gitee.com."""
from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlencode

import requests
from django.test import Client
from werkzeug import Response

OAUTH = Path(__file__).resolve().parent / "data" / "oauth"


class Platform:
    """GitHub or Gitee as a real HTTP server on 127.0.0.1: its authorize page sends the person straight back with
    a code, as after a click on "Authorize"; its token and user answers are the recorded ones."""

    def __init__(self, httpserver, name: str, token_path: str, user_path: str):
        self.server, self.requests = httpserver, []
        httpserver.expect_request(f"/{'login/oauth/authorize' if name == 'github' else 'oauth/authorize'}") \
            .respond_with_handler(self._authorize)
        token = json.loads((OAUTH / f"{name}-token.json").read_text())
        user = json.loads((OAUTH / f"{name}-user.json").read_text(encoding="utf-8"))
        httpserver.expect_request(token_path, method="POST").respond_with_handler(self._keep(token))
        httpserver.expect_request(user_path).respond_with_handler(self._keep(user))
        self.url = httpserver.url_for("/").rstrip("/")

    def _authorize(self, request):
        back = request.args["redirect_uri"] + "?" + urlencode({"code": "recorded-code", "state": request.args["state"]})
        return Response(status=302, headers={"Location": back})

    def _keep(self, body):
        def answer(request):
            self.requests.append((request.path, dict(request.args), dict(request.form), dict(request.headers)))
            return Response(json.dumps(body, ensure_ascii=False), content_type="application/json")
        return answer

    def sign_in(self, client: Client, login_url: str, next_url: str = "/"):
        start = client.post(login_url, {"next": next_url})
        assert start.status_code == 302 and start["Location"].startswith(self.url), start.content[:300]
        back = requests.get(start["Location"], allow_redirects=False).headers["Location"]
        return client.get(back)
