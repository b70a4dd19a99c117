"""Signing in through a provider: allauth's views, answered with a 404 where the provider is not configured (an
installation sets up the ones it uses, from the environment)."""
from __future__ import annotations

from collections.abc import Callable

from allauth.socialaccount import views as social_views
from allauth.socialaccount.providers.github import views as github
from django.conf import settings
from django.http import Http404
from django.shortcuts import render

from accounts import oidc
from accounts.gitee import views as gitee

from ..services.invitations import InvitationError, usable
from ..signin import INVITATION_SESSION_KEY


def _configured(key: str, view: Callable, provider_id: str | None = None) -> Callable:
    def guarded(request, *args, **kwargs):
        if key not in settings.SOCIALACCOUNT_PROVIDERS:
            raise Http404("That way of signing in is not set up here.")
        if provider_id is not None and kwargs.get("provider_id") != provider_id:
            raise Http404("No such identity provider.")
        return view(request, *args, **kwargs)

    guarded.__name__ = guarded.__qualname__ = view.__name__ if hasattr(view, "__name__") else key
    return guarded


oidc_login = _configured("openid_connect", oidc.login, "oidc")
oidc_callback = _configured("openid_connect", oidc.callback, "oidc")
github_login = _configured("github", github.oauth2_login)
github_callback = _configured("github", github.oauth2_callback)
gitee_login = _configured("gitee", gitee.oauth2_login)
gitee_callback = _configured("gitee", gitee.oauth2_callback)


def social_signup(request):
    """The page after signing in through GitHub or Gitee with an invitation link: it names the study and the
    account the provider gave, and pressing Join makes the account and its membership at once."""
    token = request.session.get(INVITATION_SESSION_KEY)
    try:
        invitation = usable(token) if token else None
        response = social_views.signup(request)
    except InvitationError as exc:
        return render(request, "annotation/join.html", {"error": str(exc)}, status=410)
    if hasattr(response, "context_data") and response.context_data is not None:
        response.context_data["invitation"] = invitation
    return response
