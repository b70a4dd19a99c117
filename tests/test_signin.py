"""Signing in through an institution, GitHub or Gitee, end to end: a real OpenID Connect provider (a Django
project with django-oidc-provider, tests/idp) started on 127.0.0.1, and GitHub's and Gitee's recorded OAuth
answers served from a real HTTP server on 127.0.0.1. Accounts made this way have the roles the provider's
claims give, accept invitations, open a study that requires single sign-on, and meet the lock-out and the
access rules like every other account; a person removed at the provider cannot sign in, and their labels stay."""
from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs, urljoin, urlsplit

import pytest
import requests
from allauth.socialaccount.providers.github.views import GitHubOAuth2Adapter
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from annotation.models import Label, Membership, Study
from annotation.services.invitations import invite
from annotation.signin import SSO_SESSION_KEY
from tests.factories import label_with, make_study, make_user
from tests.oauth_replay import Platform

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parent.parent
SECRET = "client-secret-of-the-tests"
CALLBACK = "http://testserver/accounts/oidc/oidc/login/callback/"


@pytest.fixture(scope="module")
def idp(tmp_path_factory):
    """The identity provider in a process of its own, with its own database and three people."""
    database = tmp_path_factory.mktemp("idp") / "idp.sqlite3"
    setup = {"client_id": "concord", "client_secret": SECRET, "redirect_uris": [CALLBACK], "users": [
        {"username": "li.wei", "password": "pw-li-wei-idp", "email": "li.wei@uni.example", "groups": ["llm-lab"]},
        {"username": "zhang.admin", "password": "pw-zhang-idp", "groups": ["concord-admins"]},
        {"username": "stranger", "password": "pw-stranger-idp", "groups": []},
    ]}
    process = subprocess.Popen([sys.executable, "-m", "tests.idp.serve", json.dumps(setup)], cwd=ROOT,
                               stdout=subprocess.PIPE, text=True, env={**_env(), "IDP_DATABASE": str(database)})
    url = process.stdout.readline().strip()
    assert url.startswith("http://127.0.0.1:"), "the identity provider did not start"
    yield {"url": url, "database": database}
    process.terminate()
    process.wait(timeout=10)


def _env() -> dict:
    import os

    return {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}


@pytest.fixture
def oidc(settings, idp):
    settings.SOCIALACCOUNT_PROVIDERS = {"openid_connect": {"APPS": [{
        "provider_id": "oidc", "name": "Test University", "client_id": "concord", "secret": SECRET,
        "settings": {"server_url": f"{idp['url']}/openid"}}]}}
    settings.OIDC_NAME = "Test University"
    settings.SSO_ADMIN_GROUPS = {"concord-admins"}
    return idp


def _idp_sign_in(client: Client, idp: dict, username: str, password: str, next_url: str = "/", meddle=None):
    """Press the institution's button, sign in at the provider as a browser would, and come back (after
    `meddle(client, the query sent to the provider)` has changed what it will)."""
    start = client.post(reverse("openid_connect_login", kwargs={"provider_id": "oidc"}), {"next": next_url})
    assert start.status_code == 302 and start["Location"].startswith(idp["url"]), start.content[:300]
    if meddle is not None:
        meddle(client, parse_qs(urlsplit(start["Location"]).query))
    browser = requests.Session()
    page = browser.get(start["Location"])  # the provider asks who it is
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
    answer = browser.post(page.url, data={"csrfmiddlewaretoken": token, "username": username,
                                          "password": password, "next": parse_qs(urlsplit(page.url).query)["next"][0]},
                          allow_redirects=False)
    if answer.status_code != 302:
        return None  # the provider refused the person
    location = answer.headers["Location"]
    while not location.startswith("http://testserver"):
        location = browser.get(urljoin(idp["url"], location), allow_redirects=False).headers["Location"]
    return client.get(location)


def test_an_institution_account_signs_in_with_the_roles_its_groups_give(oidc, settings):
    lead = make_user("lead")
    study = make_study(lead, name="Study of LLM bugs")
    settings.SSO_GROUP_ROLES = [("llm-lab", study.pk, "annotator")]
    client = Client()
    # The login page offers the institution by its name.
    assert "Sign in with Test University" in client.get(reverse("login")).content.decode()
    back = _idp_sign_in(client, oidc, "li.wei", "pw-li-wei-idp")
    assert back.status_code == 302 and back["Location"] == "/"
    person = get_user_model().objects.get(username="li.wei")
    assert not person.has_usable_password() and not person.is_staff
    assert Membership.objects.get(study=study, user=person).role == "annotator"
    assert client.session[SSO_SESSION_KEY] == "oidc"
    assert client.get(reverse("annotation:study_detail", args=[study.pk])).status_code == 200
    # Blind and role rules hold for such an account as for any: the set-up and another study stay closed.
    assert client.get(reverse("annotation:study_settings", args=[study.pk])).status_code == 403
    other = make_study(lead, name="Another study")
    assert client.get(reverse("annotation:study_detail", args=[other.pk])).status_code == 404
    # A second sign-in finds the same account.
    again = Client()
    _idp_sign_in(again, oidc, "li.wei", "pw-li-wei-idp")
    assert get_user_model().objects.filter(username__startswith="li.wei").count() == 1


def test_the_admin_group_makes_an_admin_and_leaving_it_unmakes_one(oidc):
    _idp_sign_in(Client(), oidc, "zhang.admin", "pw-zhang-idp")
    assert get_user_model().objects.get(username="zhang.admin").is_staff
    with sqlite3.connect(oidc["database"]) as idp_db:
        idp_db.execute("DELETE FROM auth_user_groups WHERE user_id = (SELECT id FROM auth_user WHERE username = ?)",
                       ["zhang.admin"])
    _idp_sign_in(Client(), oidc, "zhang.admin", "pw-zhang-idp")
    assert not get_user_model().objects.get(username="zhang.admin").is_staff
    with sqlite3.connect(oidc["database"]) as idp_db:
        idp_db.execute("INSERT INTO auth_user_groups (user_id, group_id) SELECT u.id, g.id FROM auth_user u, "
                       "auth_group g WHERE u.username = ? AND g.name = ?", ["zhang.admin", "concord-admins"])


def test_a_study_that_requires_single_sign_on_refuses_a_password_sign_in(oidc, settings):
    lead, admin = make_user("lead"), make_user("root", is_staff=True)
    study = make_study(lead, name="Closed lab study")
    settings.SSO_GROUP_ROLES = [("llm-lab", study.pk, "annotator")]
    _idp_sign_in(Client(), oidc, "li.wei", "pw-li-wei-idp")
    staff = Client()
    staff.force_login(admin)
    for _ in range(2):  # a double click changes it once
        staff.post(reverse("annotation:study_sso", args=[study.pk]), {"expected": "off"})
    assert Study.objects.get(pk=study.pk).sso_required
    # The lead signed in with a password: refused, told how to get in.
    by_password = Client()
    assert by_password.post(reverse("login"), {"username": "lead", "password": "pw-lead"}).status_code == 302
    refused = by_password.get(reverse("annotation:study_detail", args=[study.pk]))
    assert refused.status_code == 403 and "sign in through their institution" in refused.content.decode()
    # Through the institution: in.
    through = Client()
    _idp_sign_in(through, oidc, "li.wei", "pw-li-wei-idp")
    assert through.get(reverse("annotation:study_detail", args=[study.pk])).status_code == 200
    # Signing in with a password afterwards in the same browser leaves no mark of the institution behind.
    li = get_user_model().objects.get(username="li.wei")
    li.set_password("a-local-password-9")
    li.save()
    through.post(reverse("login"), {"username": "li.wei", "password": "a-local-password-9"})
    assert through.get(reverse("annotation:study_detail", args=[study.pk])).status_code == 403


def test_a_person_removed_at_the_provider_cannot_sign_in_and_their_labels_stay(oidc, settings):
    lead = make_user("lead")
    study = make_study(lead, name="Study of LLM bugs")
    settings.SSO_GROUP_ROLES = [("llm-lab", study.pk, "annotator")]
    _idp_sign_in(Client(), oidc, "li.wei", "pw-li-wei-idp")
    li = get_user_model().objects.get(username="li.wei")
    label_with(li, study, study.issues.first(), "C.1", note="seen in vLLM 0.4")
    with sqlite3.connect(oidc["database"]) as idp_db:
        idp_db.execute("UPDATE auth_user SET is_active = 0 WHERE username = ?", ["li.wei"])
    try:
        assert _idp_sign_in(Client(), oidc, "li.wei", "pw-li-wei-idp") is None
        assert Label.objects.filter(annotator=li, study=study).count() == 1
        assert Membership.objects.filter(study=study, user=li).exists()
    finally:
        with sqlite3.connect(oidc["database"]) as idp_db:
            idp_db.execute("UPDATE auth_user SET is_active = 1 WHERE username = ?", ["li.wei"])


@pytest.fixture
def github(settings, httpserver, monkeypatch):
    platform = Platform(httpserver, "github", "/login/oauth/access_token", "/api/v3/user")
    settings.SOCIALACCOUNT_PROVIDERS = {"github": {"APPS": [{"client_id": "gh-client", "secret": "gh-secret"}],
                                                   "GITHUB_URL": platform.url}}
    # GitHub Enterprise's addresses, as GITHUB_URL sets them when the server starts.
    for name, value in {"web_url": platform.url, "api_url": f"{platform.url}/api/v3",
                        "access_token_url": f"{platform.url}/login/oauth/access_token",
                        "authorize_url": f"{platform.url}/login/oauth/authorize",
                        "profile_url": f"{platform.url}/api/v3/user",
                        "emails_url": f"{platform.url}/api/v3/user/emails"}.items():
        monkeypatch.setattr(GitHubOAuth2Adapter, name, value)
    return platform


@pytest.fixture
def gitee(settings, httpserver):
    platform = Platform(httpserver, "gitee", "/oauth/token", "/api/v5/user")
    settings.SOCIALACCOUNT_PROVIDERS = {"gitee": {"APPS": [{"client_id": "ge-client", "secret": "ge-secret"}],
                                                  "GITEE_URL": platform.url}}
    return platform


def test_github_makes_no_account_without_an_invitation(github):
    client = Client()
    page = github.sign_in(client, reverse("github_login"))
    assert "makes an account only for someone invited to a study" in page.content.decode()
    assert not get_user_model().objects.filter(username="octocat").exists()


def test_an_invitation_is_accepted_by_signing_in_with_github(github, settings):
    lead = make_user("lead")
    study = make_study(lead, name="Study of LLM bugs")
    _, token = invite(study, lead, "annotator", 7, "for the GitHub volunteer")
    client = Client()
    join = reverse("join", args=[token])
    page = client.get(join).content.decode()
    assert "Sign in with GitHub" in page  # beside the password form
    back = github.sign_in(client, reverse("github_login"), next_url=join)
    # Signed in at GitHub, not yet joined: no account exists until the person presses Join.
    assert back.status_code == 302 and back["Location"] == reverse("socialaccount_signup")
    assert not get_user_model().objects.filter(username="octocat").exists()
    page = client.get(back["Location"]).content.decode()
    assert "Join Study of LLM bugs" in page and 'value="octocat"' in page and "GitHub" in page
    joined = client.post(back["Location"], {"username": "octocat"})
    assert joined.status_code == 302 and joined["Location"] == reverse("annotation:study_detail", args=[study.pk])
    person = get_user_model().objects.get(username="octocat")
    assert not person.has_usable_password() and client.session[SSO_SESSION_KEY] == "github"
    assert Membership.objects.get(study=study, user=person).role == "annotator"
    # The recorded conversation: the code for a token (with the app's own secret), then the person.
    (token_path, _, form, _), (user_path, _, _, headers) = github.requests
    assert form["code"] == "recorded-code" and form["client_secret"] == "gh-secret"
    assert headers["Authorization"] == "token gho_16C7e42F292c6912E7710c838347Ae178B4a"
    # The lock-out holds for the account: it has no password, and guessing one locks it out like any other.
    guesser = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT):
        guesser.post(reverse("login"), {"username": "octocat", "password": "guess"})
    assert guesser.post(reverse("login"), {"username": "octocat", "password": "guess"}).status_code == 429


def test_an_invitation_is_accepted_by_signing_in_with_gitee_in_chinese(gitee):
    lead = make_user("lead")
    study = make_study(lead, name="Study of LLM bugs")
    _, token = invite(study, lead, "annotator", 7, "")
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-CN")
    join = reverse("join", args=[token])
    assert "使用 Gitee 登录" in client.get(join).content.decode()
    back = gitee.sign_in(client, reverse("gitee_login"), next_url=join)
    assert "加入" in client.get(back["Location"]).content.decode()
    assert client.post(back["Location"], {"username": "wang-xiaoming"}).status_code == 302
    person = get_user_model().objects.get(username="wang-xiaoming")
    assert person.first_name == "王小明" and Membership.objects.filter(study=study, user=person).exists()
    (_, _, form, _), (_, args, _, _) = gitee.requests
    assert form["code"] == "recorded-code" and args["access_token"] == "5f9c1e2a7b3d4c6e8f0a1b2c3d4e5f60"


def test_an_invitation_link_makes_no_account_for_those_who_do_not_join(github):
    """Four browsers open one link and sign in with GitHub: none has an account until Join, and the link makes
    one account, for the first who presses it; a later Join makes nothing."""
    lead = make_user("lead")
    study = make_study(lead, name="Study of LLM bugs")
    _, token = invite(study, lead, "annotator", 7, "")
    join = reverse("join", args=[token])
    signed_in = []
    for _ in range(4):
        client = Client()
        client.get(join)
        back = github.sign_in(client, reverse("github_login"), next_url=join)
        assert back["Location"] == reverse("socialaccount_signup")
        signed_in.append(client)
    assert set(get_user_model().objects.values_list("username", flat=True)) == {"lead"}
    first = signed_in[0].post(reverse("socialaccount_signup"), {"username": "octocat"})
    assert first.status_code == 302 and Membership.objects.filter(study=study, user__username="octocat").exists()
    for client, name in ((signed_in[1], "octocat"), (signed_in[2], "octocat-2")):
        late = client.post(reverse("socialaccount_signup"), {"username": name})
        assert late.status_code in (200, 400, 410) and "_auth_user_id" not in client.session, late.status_code
    assert set(get_user_model().objects.values_list("username", flat=True)) == {"lead", "octocat"}


def test_a_used_invitation_does_not_open_sign_up(gitee):
    lead = make_user("lead")
    study = make_study(lead)
    _, token = invite(study, lead, "annotator", 7, "")
    client = Client()
    client.get(reverse("join", args=[token]))
    from annotation.services.invitations import accept

    accept(token, user=make_user("someone"))
    page = gitee.sign_in(client, reverse("gitee_login"))
    assert "makes an account only for someone invited" in page.content.decode()
    assert not get_user_model().objects.filter(username="wang-xiaoming").exists()


@pytest.mark.parametrize("query", [
    {"code": "recorded-code", "state": "forged"},  # a state this browser was never given
    {"code": "recorded-code"},
    {"error": "access_denied", "state": "x"},  # the person pressed "Cancel" at GitHub
    {"code": "\x00", "state": "y" * 5000},
])
def test_a_forged_or_refused_callback_signs_no_one_in(github, query):
    client = Client()
    answer = client.get(reverse("github_callback"), query)
    assert answer.status_code in (200, 401) and "obody was signed in" in answer.content.decode()
    assert "_auth_user_id" not in client.session
    assert not get_user_model().objects.exists() and github.requests == []


def test_an_unknown_identity_provider_is_a_404(oidc):
    assert Client().post(reverse("openid_connect_login", kwargs={"provider_id": "other"})).status_code == 404


def test_each_sign_in_sends_a_nonce_and_a_pkce_challenge_and_checks_both(oidc):
    """The provider is asked with a fresh nonce and an S256 PKCE challenge; the ID token must bring the nonce
    back and the token request must carry the verifier, or nobody is signed in."""
    from accounts.oidc import SESSION_PREFIX

    sent = []

    def keep(client, query):
        sent.append(query)

    assert _idp_sign_in(Client(), oidc, "li.wei", "pw-li-wei-idp", meddle=keep).status_code == 302
    assert _idp_sign_in(Client(), oidc, "li.wei", "pw-li-wei-idp", meddle=keep).status_code == 302
    first, second = sent
    assert first["code_challenge_method"] == ["S256"] and len(first["code_challenge"][0]) >= 43
    assert len(first["nonce"][0]) >= 32 and first["nonce"] != second["nonce"]
    assert get_user_model().objects.filter(username="li.wei").count() == 1

    def other_nonce(client, query):
        session = client.session
        session[SESSION_PREFIX + query["state"][0]] = "a nonce of another sign-in"
        session.save()

    def no_nonce(client, query):
        session = client.session
        del session[SESSION_PREFIX + query["state"][0]]
        session.save()

    def other_verifier(client, query):
        session = client.session
        states = session["socialaccount_states"]
        state, at, provider = states[query["state"][0]]
        states[query["state"][0]] = ({**state, "pkce_code_verifier": "x" * 64}, at, provider)
        session["socialaccount_states"] = states
        session.save()

    for meddle in (other_nonce, no_nonce, other_verifier):
        client = Client()
        back = _idp_sign_in(client, oidc, "stranger", "pw-stranger-idp", meddle=meddle)
        assert "_auth_user_id" not in client.session, meddle.__name__
        assert back.status_code in (200, 400, 401) and "obody was signed in" in back.content.decode(), meddle.__name__
    assert not get_user_model().objects.filter(username="stranger").exists()
