"""Signing in through an institution (OpenID Connect), GitHub or Gitee, with django-allauth: who may make an
account that way, the roles an institution's claims give at every sign-in, and the mark in the session that a
study requiring single sign-on reads.

An account is made by signing in when the provider is open (SSO_OPEN_SIGNUP: the institution's, by default) or
when the person arrived through a study's invitation link, which the join page keeps in the session. Such an
account has no password; it is a person like any other, so the lock-out, the roles and blind labeling apply to
it unchanged. A person removed at the provider can no longer sign in; their labels stay, as every label does."""
from __future__ import annotations

from urllib.parse import urlsplit

from allauth.account.adapter import DefaultAccountAdapter
from allauth.socialaccount.adapter import DefaultSocialAccountAdapter
from django.conf import settings
from django.contrib import messages
from django.db import transaction
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _

from concord.audit import record

from .models import Membership, Study
from .services.invitations import InvitationError, accept, usable

# The provider a person signed in through this session ("oidc", "github", "gitee"); absent after a password.
SSO_SESSION_KEY = "concord_sso"
# The invitation link a person opened before signing in, so that signing in may make their account.
INVITATION_SESSION_KEY = "concord_invitation"


class AccountAdapter(DefaultAccountAdapter):
    def is_open_for_signup(self, request) -> bool:
        # Password accounts come from invitation links and admins, through Concord's own forms.
        return False

    def respond_user_inactive(self, request, user):
        messages.error(request, _("This account was deactivated; the study's lead can tell you why."))
        return redirect("login")


class SocialAdapter(DefaultSocialAccountAdapter):
    def is_auto_signup_allowed(self, request, sociallogin) -> bool:
        # A provider open for sign-up (an institution's) makes the account at once. Through an invitation link
        # the account is made only when the person presses Join on the page that follows (annotation's
        # views/signin.social_signup): signing in at GitHub alone must not leave an account behind, or one
        # link could make as many accounts as people who open it.
        return sociallogin.account.provider in settings.SSO_OPEN_SIGNUP

    def save_user(self, request, sociallogin, form=None):
        token = request.session.get(INVITATION_SESSION_KEY)
        if not token or sociallogin.account.provider in settings.SSO_OPEN_SIGNUP:
            return super().save_user(request, sociallogin, form)
        # The account and its membership are made together, or neither: a link used up in between (another tab,
        # another person) leaves no account (InvitationError, shown by the view).
        with transaction.atomic():
            study_id = usable(token).study_id
            user = super().save_user(request, sociallogin, form)
            accept(token, user=user)
        request.session.pop(INVITATION_SESSION_KEY, None)
        sociallogin.state["next"] = reverse("annotation:study_detail", args=[study_id])
        return user

    def is_open_for_signup(self, request, sociallogin) -> bool:
        if sociallogin.account.provider in settings.SSO_OPEN_SIGNUP:
            return True

        token = request.session.get(INVITATION_SESSION_KEY)
        try:
            return bool(token) and usable(token) is not None
        except InvitationError:
            return False


def claims(sociallogin) -> dict:
    """What the identity provider said of the person: the ID token's claims, and the user info's over them."""
    data = sociallogin.account.extra_data or {}
    return {**(data.get("id_token") or {}), **(data.get("userinfo") or {})}


def groups_of(found: dict) -> set[str]:
    value = found.get(settings.SSO_ROLE_CLAIM)
    if isinstance(value, str):
        return {value}
    if isinstance(value, list):
        return {v for v in value if isinstance(v, str)}
    return set()


def apply_claims(user, sociallogin) -> None:
    """An institution's groups give roles at every sign-in: admin (kept in step both ways, a superuser aside) and
    membership of studies (added, never taken away here: removing someone from a study keeps a record, and is
    the lead's)."""
    if sociallogin.account.provider != "oidc":
        return
    groups = groups_of(claims(sociallogin))
    if settings.SSO_ADMIN_GROUPS and not user.is_superuser:
        staff = bool(groups & settings.SSO_ADMIN_GROUPS)
        if user.is_staff != staff:
            type(user).objects.filter(pk=user.pk).update(is_staff=staff)
            user.is_staff = staff
            record("admin role from sign-in", None, None, user=user.username, admin=staff)
    from .services.studies import add_member

    for group, study_id, role in settings.SSO_GROUP_ROLES:
        study = Study.objects.filter(pk=study_id).first()
        if group in groups and study is not None and not Membership.objects.filter(study=study, user=user).exists():
            add_member(study, user, role)


def signed_in_through_provider(sender, request, user, sociallogin=None, **kwargs) -> None:
    """allauth's signal, after Django's: the session was signed into through a provider."""
    if sociallogin is None or request is None:
        return
    request.session[SSO_SESSION_KEY] = sociallogin.account.provider
    apply_claims(user, sociallogin)


def signed_in(sender, request, user, **kwargs) -> None:
    """Django's signal, sent for every sign-in: a password sign-in leaves no provider's mark behind."""
    if request is not None and hasattr(request, "session"):
        request.session.pop(SSO_SESSION_KEY, None)


def provider_origins() -> list[str]:
    """Where a sign-in form's POST is sent on to: each configured provider's origin (its authorize page)."""
    providers = settings.SOCIALACCOUNT_PROVIDERS
    urls = [app.get("settings", {}).get("server_url", "")
            for app in providers.get("openid_connect", {}).get("APPS", [])]
    if "github" in providers:
        urls.append(providers["github"].get("GITHUB_URL") or "https://github.com")
    if "gitee" in providers:
        urls.append(providers["gitee"].get("GITEE_URL") or "https://gitee.com")
    found = []
    for url in urls:
        parts = urlsplit(url)
        if parts.scheme in ("http", "https") and parts.netloc and f"{parts.scheme}://{parts.netloc}" not in found:
            found.append(f"{parts.scheme}://{parts.netloc}")
    return found


class SigninFormAction:
    """The policy's form-action lets a sign-in button's POST be sent on to the provider's page: a browser holds
    the redirect that follows a form to the form's policy, and the policy is Concord's own origin otherwise."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        origins = provider_origins()
        if origins:
            update = dict(getattr(response, "_csp_update", None) or {})
            update["form-action"] = [*update.get("form-action", []), *origins]
            response._csp_update = update
        return response


def through_provider(request) -> bool:
    return bool(getattr(request, "session", None) and request.session.get(SSO_SESSION_KEY))
