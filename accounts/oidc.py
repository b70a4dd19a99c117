"""Signing in through an institution's OpenID Connect provider with a nonce and PKCE, which django-allauth's
OpenID Connect adapter does not send.

PKCE (RFC 7636) binds the code the provider returns to this sign-in: allauth sends an S256 challenge when the
app's settings ask (`oauth_pkce_enabled`, set in config.settings). The nonce (OpenID Connect Core 1.0, 3.1.2.1)
binds the ID token to it: a random value goes with the request, is kept in the person's session under the
request's state, and the ID token must carry it back, once. A token without one, or with another, signs no one
in, so an ID token replayed from another sign-in (or injected with a code from one) is refused."""
from __future__ import annotations

import hmac
import secrets

from allauth.socialaccount.models import SocialApp
from allauth.socialaccount.providers.oauth2.client import OAuth2Client, OAuth2Error
from allauth.socialaccount.providers.oauth2.views import OAuth2CallbackView, OAuth2LoginView
from allauth.socialaccount.providers.openid_connect.views import OpenIDConnectOAuth2Adapter
from django.http import Http404

SESSION_PREFIX = "oidc-nonce:"


class NonceClient(OAuth2Client):
    def get_redirect_url(self, authorization_url, scope, extra_params) -> str:
        nonce = secrets.token_urlsafe(32)
        # Under the request's state, so two sign-ins begun in two tabs each keep their own.
        self.request.session[SESSION_PREFIX + str(self.state)] = nonce
        return super().get_redirect_url(authorization_url, scope, {**extra_params, "nonce": nonce})


class NonceAdapter(OpenIDConnectOAuth2Adapter):
    client_class = NonceClient

    def get_provider(self):
        provider = super().get_provider()
        provider.pkce_enabled_default = True  # unless an app's own settings turn it off
        # The provider makes its own adapter (and so its client) to send the person on: this one, with the nonce.
        provider.oauth2_adapter_class = NonceAdapter
        return provider

    def complete_login(self, request, app, token, **kwargs):
        expected = request.session.pop(SESSION_PREFIX + str(request.GET.get("state", "")), None)
        id_token = kwargs["response"].get("id_token")
        if not id_token:
            raise OAuth2Error("the provider sent no ID token: the nonce cannot be checked")
        claims = self._decode_id_token(app, id_token)
        got = claims.get("nonce")
        if not expected or not isinstance(got, str) or not hmac.compare_digest(got, expected):
            raise OAuth2Error("the ID token's nonce is not the one this sign-in sent")
        return super().complete_login(request, app, token, **kwargs)


def login(request, provider_id):
    try:
        return OAuth2LoginView.adapter_view(NonceAdapter(request, provider_id))(request)
    except SocialApp.DoesNotExist:
        raise Http404("No such identity provider.") from None


def callback(request, provider_id):
    try:
        return OAuth2CallbackView.adapter_view(NonceAdapter(request, provider_id))(request)
    except SocialApp.DoesNotExist:
        raise Http404("No such identity provider.") from None
