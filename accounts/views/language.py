"""The header's language switcher: anyone may choose, signed in or not (the sign-in page has it too)."""
from __future__ import annotations

from django.conf import settings
from django.http import Http404, HttpResponseBadRequest, HttpResponseRedirect
from django.utils import timezone, translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import last_modified, require_GET, require_POST
from django.views.i18n import JavaScriptCatalog

from ..language import remember, supported


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


STARTED = timezone.now()  # when this process loaded its URLs, and so its catalogue


@require_GET
def javascript_catalog(request, language: str):
    """The labeling script's messages in `language`, which the address names: the page asks for the catalogue of
    the language it is written in, so a browser's cached English catalogue is never read by a Chinese page (one
    address for every language, with a start-time Last-Modified, kept the first language a browser fetched)."""
    if not supported(language):
        raise Http404("no such language")
    with translation.override(language):
        return _catalog(request)


# The catalogue changes only with a deployment, so a browser revalidates it against the time this process started.
_catalog = last_modified(lambda request: STARTED)(JavaScriptCatalog.as_view())
