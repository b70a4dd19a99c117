from allauth.socialaccount.providers.oauth2.urls import default_urlpatterns

from .provider import GiteeProvider

urlpatterns = default_urlpatterns(GiteeProvider)
