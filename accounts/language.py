"""The language a person reads Concord in: their own choice, kept with them and in their session, else the
browser's Accept-Language (Django's LocaleMiddleware, which runs first)."""
from __future__ import annotations

from django.conf import settings
from django.utils import translation

# The session keeps the person's choice, so that a page costs no query to know it.
SESSION_KEY = "concord_language"


def supported(code: str) -> bool:
    return code in {c for c, _ in settings.LANGUAGES}


def remember(request, code: str) -> None:
    """Keep `code` ("" for the browser's language) for this person and this session, and speak it now."""
    from .models import Preferences

    if request.user.is_authenticated:
        Preferences.objects.update_or_create(user=request.user, defaults={"language": code})
    request.session[SESSION_KEY] = code
    _speak(request, code or translation.get_language_from_request(request))


def on_sign_in(sender, request, user, **kwargs) -> None:
    """A person signing in on a new device gets the language they chose on another one."""
    from .models import Preferences

    if request is None:
        return
    code = Preferences.objects.filter(user=user).values_list("language", flat=True).first() or ""
    request.session[SESSION_KEY] = code
    if code:
        _speak(request, code)


def _speak(request, code: str) -> None:
    translation.activate(code)
    request.LANGUAGE_CODE = translation.get_language()


class PersonsLanguage:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        # The session alone says it: set at sign-in and by the switcher, gone at sign-out. Asking whether the
        # person is signed in would load their row here, before the view, where a lost database connection is
        # no longer answered with a 503.
        code = request.session.get(SESSION_KEY, "")
        if code and supported(code):
            _speak(request, code)
        return self.get_response(request)
