"""The header's language switcher: anyone may choose, signed in or not (the sign-in page has it too)."""
from __future__ import annotations

from django.conf import settings
from django.http import HttpResponseBadRequest, HttpResponseRedirect
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from .language import remember, supported


@require_POST
def choose_language(request):
    code = request.POST.get("language", "")
    if code and not (len(code) <= 16 and supported(code)):
        return HttpResponseBadRequest(_("language: choose one of %(codes)s.")
                                      % {"codes": ", ".join(c for c, _name in settings.LANGUAGES)})
    remember(request, code)
    back = request.POST.get("next", "")
    # A path of this site only: the value comes from the form and could name any host.
    if not (back.startswith("/") and url_has_allowed_host_and_scheme(
            back, allowed_hosts={request.get_host()}, require_https=request.is_secure())):
        back = "/"
    response = HttpResponseRedirect(back)
    if code:
        response.set_cookie(settings.LANGUAGE_COOKIE_NAME, code, max_age=365 * 24 * 3600, samesite="Lax",
                            secure=request.is_secure())
    else:
        response.delete_cookie(settings.LANGUAGE_COOKIE_NAME)
    return response
