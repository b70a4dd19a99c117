"""Gitee's OAuth 2 endpoints (https://gitee.com/api/v5/oauth_doc) and its user API, as allauth's adapter."""
from __future__ import annotations

from allauth.socialaccount import app_settings
from allauth.socialaccount.adapter import get_adapter
from allauth.socialaccount.providers.oauth2.views import OAuth2Adapter, OAuth2CallbackView, OAuth2LoginView


def web_url() -> str:
    return app_settings.PROVIDERS.get("gitee", {}).get("GITEE_URL", "https://gitee.com").rstrip("/")


class GiteeOAuth2Adapter(OAuth2Adapter):
    provider_id = "gitee"

    # Read at each use, not when the module is imported, so that the address follows the settings.
    @property
    def access_token_url(self) -> str:
        return f"{web_url()}/oauth/token"

    @property
    def authorize_url(self) -> str:
        return f"{web_url()}/oauth/authorize"

    @property
    def profile_url(self) -> str:
        return f"{web_url()}/api/v5/user"

    def complete_login(self, request, app, token, **kwargs):
        with get_adapter().get_requests_session() as session:
            answer = session.get(self.profile_url, params={"access_token": token.token})
            answer.raise_for_status()
            data = answer.json()
        return self.get_provider().sociallogin_from_response(request, data)


oauth2_login = OAuth2LoginView.adapter_view(GiteeOAuth2Adapter)
oauth2_callback = OAuth2CallbackView.adapter_view(GiteeOAuth2Adapter)
