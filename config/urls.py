from allauth.socialaccount import views as social_views
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView

from accounts.views import notices as notice_views
from accounts.views.language import choose_language, javascript_catalog
from agreement import urls as agreement_urls
from annotation import urls as annotation_urls
from annotation.views import signin
from annotation.views.members import join
from codebook import urls as codebook_urls
from concord import audit_views, health_views
from corpus import urls as corpus_urls
from findings import urls as findings_urls
from ingest import urls as ingest_urls
from interviews import urls as interviews_urls
from machines import urls as machines_urls
from taxonomy import urls as taxonomy_urls
from webhooks import urls as webhooks_urls

api_patterns = [
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    *annotation_urls.api_urlpatterns,
    *agreement_urls.api_urlpatterns,
    *ingest_urls.api_urlpatterns,
]

urlpatterns = [
    # For balancers, Compose and monitoring: the process answers; what it needs answers too.
    path("healthz", health_views.healthz, name="healthz"),
    path("readyz", health_views.readyz, name="readyz"),
    # Accounts and admin
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    # The same page under the name allauth sends people back to.
    path("accounts/login/", auth_views.LoginView.as_view(), name="account_login"),
    path("accounts/language/", choose_language, name="choose_language"),
    # Signing in through an institution, GitHub or Gitee (django-allauth); each answers 404 where not set up.
    path("accounts/oidc/<str:provider_id>/login/", signin.oidc_login, name="openid_connect_login"),
    path("accounts/oidc/<str:provider_id>/login/callback/", signin.oidc_callback, name="openid_connect_callback"),
    path("accounts/github/login/", signin.github_login, name="github_login"),
    path("accounts/github/login/callback/", signin.github_callback, name="github_callback"),
    path("accounts/gitee/login/", signin.gitee_login, name="gitee_login"),
    path("accounts/gitee/login/callback/", signin.gitee_callback, name="gitee_callback"),
    path("accounts/social/cancelled/", social_views.login_cancelled, name="socialaccount_login_cancelled"),
    path("accounts/social/error/", social_views.login_error, name="socialaccount_login_error"),
    path("accounts/social/signup/", signin.social_signup, name="socialaccount_signup"),
    # The labeling script's messages, at an address of each language.
    path("jsi18n/<str:language>/", javascript_catalog, name="javascript_catalog"),
    path("notices/", notice_views.inbox, name="notices"),
    path("notices/read/", notice_views.mark_read, name="notices_read"),
    path("notices/kinds/", notice_views.choose_kinds, name="notices_kinds"),
    path("admin/", admin.site.urls),
    path("audit/", audit_views.audit_log, name="audit_log"),
    path("audit.csv", audit_views.audit_csv, name="audit_csv"),
    # Invitation links: open to anyone holding one (the token is the credential)
    path("join/<str:token>/", join, name="join"),
    # API
    path("api/", include((api_patterns, "api"), namespace="api")),
    # Screens
    path("", include(annotation_urls)),
    path("", include(agreement_urls)),
    path("", include(ingest_urls)),
    path("", include(taxonomy_urls)),
    path("", include(codebook_urls)),
    path("", include(interviews_urls)),
    path("", include(findings_urls)),
    path("", include(corpus_urls)),
    path("", include(machines_urls)),
    path("", include(webhooks_urls)),
]

# Whatever escapes the views and middleware: a lost database connection is a 503 there too.
handler500 = "concord.server_errors.server_error"
