"""The sign-in buttons of the providers this installation set up (django-allauth), for the login and join pages."""
from __future__ import annotations

from django import template
from django.conf import settings
from django.utils.translation import gettext as _

register = template.Library()


@register.simple_tag(takes_context=True)
def signin_providers(context) -> list[dict]:
    from allauth.socialaccount.adapter import get_adapter

    request = context["request"]
    found = []
    for provider in get_adapter().list_providers(request):
        name = provider.name
        if provider.id == "oidc" and not settings.OIDC_NAME:
            name = _("your institution")
        found.append({"id": provider.id, "name": name, "url": provider.get_login_url(request)})
    return sorted(found, key=lambda p: ("oidc", "github", "gitee").index(p["id"]) if p["id"] in
                  ("oidc", "github", "gitee") else 9)
