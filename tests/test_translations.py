"""Every message for people has its Simplified Chinese translation, compiled, with the same placeholders; and a
person's language follows them: the browser's Accept-Language until they choose one in the header, then their
choice, on every device they sign in on."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import polib
import pytest
from django.conf import settings
from django.urls import reverse

from accounts.models import Preferences
from tests.factories import make_user

ROOT = Path(settings.BASE_DIR)
CATALOGUES = ROOT / "concord" / "locale" / "zh_Hans" / "LC_MESSAGES"
DOMAINS = ("django", "djangojs")
# What the catalogue is made from: the project's own code and templates, not its tests or benchmarks.
LEFT_OUT = ("tests", "bench", "bench-out", "staticfiles", "var", "media")
PLACEHOLDER = re.compile(r"%\(\w+\)s|%[sd]|\{\w*\}")


def _entries(po: polib.POFile) -> dict[tuple[str | None, str], polib.POEntry]:
    return {(e.msgctxt, e.msgid): e for e in po if not e.obsolete}


def _translations(entry: polib.POEntry) -> list[str]:
    return list(entry.msgstr_plural.values()) if entry.msgid_plural else [entry.msgstr]


def _untranslated(entry: polib.POEntry) -> bool:
    return "fuzzy" in entry.flags or not all(_translations(entry))


@pytest.fixture(scope="module")
def gathered(tmp_path_factory):
    """The messages makemessages gathers now from a copy of the project, merged into a copy of its catalogues."""
    if not shutil.which("xgettext"):
        if os.environ.get("CONCORD_REQUIRE_GETTEXT"):
            pytest.fail("GNU gettext (xgettext, msgmerge) is not installed: the catalogue cannot be checked")
        pytest.skip("GNU gettext is not installed (apt-get install gettext); CI checks the catalogue")
    copy = tmp_path_factory.mktemp("messages") / "project"
    shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns(".*", "__pycache__", "*.sqlite3*", "*.egg-info",
                                                             *LEFT_OUT))
    base = [sys.executable, "manage.py", "makemessages", "-l", "zh_Hans", "--no-location", "--no-obsolete"]
    for extra in ([], ["-d", "djangojs"]):
        subprocess.run([*base, *extra], cwd=copy, check=True, capture_output=True)
    return {d: polib.pofile(str(copy / "concord" / "locale" / "zh_Hans" / "LC_MESSAGES" / f"{d}.po")) for d in DOMAINS}


@pytest.mark.parametrize("domain", DOMAINS)
def test_every_message_of_the_code_is_in_the_catalogue_and_translated(gathered, domain):
    kept = _entries(polib.pofile(str(CATALOGUES / f"{domain}.po")))
    now = _entries(gathered[domain])
    new = sorted(m for c, m in now if (c, m) not in kept)
    assert not new, f"{len(new)} messages are not in concord/locale/zh_Hans ({domain}.po); run `make messages` and " \
                    f"translate them: {new[:10]}"
    untranslated = sorted(m for (_, m), e in now.items() if _untranslated(e))
    assert not untranslated, f"{len(untranslated)} messages have no Chinese translation: {untranslated[:10]}"


@pytest.mark.parametrize("domain", DOMAINS)
def test_the_catalogue_is_whole_compiled_and_keeps_every_placeholder(domain):
    po = polib.pofile(str(CATALOGUES / f"{domain}.po"))
    assert po.metadata["Plural-Forms"].startswith("nplurals=1;")  # Chinese has one form for every count
    entries = _entries(po)
    assert entries, "an empty catalogue"
    for entry in entries.values():
        assert not _untranslated(entry), f"no translation of {entry.msgid!r}"
        wanted = sorted(PLACEHOLDER.findall(entry.msgid))
        for text in _translations(entry):
            assert sorted(PLACEHOLDER.findall(text)) == wanted, f"{entry.msgid!r} → {text!r}"
            assert text.count("<") == entry.msgid.count("<"), f"markup differs: {entry.msgid!r} → {text!r}"
    # What Django reads is the .mo: it must say what the .po says (`make messages` compiles it).
    compiled = {(e.msgctxt, e.msgid): _translations(e) for e in polib.mofile(str(CATALOGUES / f"{domain}.mo"))
                if e.msgid}
    assert compiled == {key: _translations(e) for key, e in entries.items()}, \
        f"{domain}.mo is not compiled from {domain}.po: run `make messages`"


@pytest.mark.django_db
def test_the_browsers_language_is_the_default_and_a_chosen_one_wins(client):
    page = client.get(reverse("login"), HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9,en;q=0.5")
    assert page["Content-Language"] == "zh-hans" and "<h1>登录</h1>" in page.content.decode()
    assert "<h1>Log in</h1>" in client.get(reverse("login"), HTTP_ACCEPT_LANGUAGE="en-GB").content.decode()
    # A visitor (the sign-in page has the switcher) chooses English though their browser asks for Chinese.
    chosen = client.post(reverse("choose_language"), {"language": "en", "next": reverse("login")},
                         HTTP_ACCEPT_LANGUAGE="zh-CN")
    assert chosen.status_code == 302 and chosen["Location"] == reverse("login")
    assert "<h1>Log in</h1>" in client.get(reverse("login"), HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()


@pytest.mark.django_db
def test_a_persons_choice_is_kept_with_them_and_follows_them_to_another_device(client):
    user = make_user("li")
    client.force_login(user)
    client.post(reverse("choose_language"), {"language": "zh-hans", "next": "/"})
    assert Preferences.objects.get(user=user).language == "zh-hans"
    assert "你的研究" in client.get(reverse("annotation:study_list"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    # Another device: no cookie, an English browser; signing in brings the choice back.
    other = type(client)()
    other.post(reverse("login"), {"username": "li", "password": "pw-li"}, HTTP_ACCEPT_LANGUAGE="en")
    page = other.get(reverse("annotation:study_list"), HTTP_ACCEPT_LANGUAGE="en")
    assert page["Content-Language"] == "zh-hans" and "你的研究" in page.content.decode()
    # "" goes back to following the browser.
    other.post(reverse("choose_language"), {"language": "", "next": "/"})
    assert Preferences.objects.get(user=user).language == ""
    assert "Your studies" in other.get(reverse("annotation:study_list"), HTTP_ACCEPT_LANGUAGE="en").content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["fr", "zh-hans\x00", "x" * 10_000, "EN'--"])
def test_an_unknown_language_is_refused_and_changes_nothing(client, language):
    user = make_user()
    client.force_login(user)
    answer = client.post(reverse("choose_language"), {"language": language, "next": "/"})
    assert answer.status_code == 400 and b"language" in answer.content
    assert not Preferences.objects.filter(user=user).exists()


@pytest.mark.django_db
@pytest.mark.parametrize("back", ["https://evil.example/", "//evil.example/x", "annotation:study_list", ""])
def test_the_switcher_goes_back_only_to_a_page_of_this_site(client, back):
    answer = client.post(reverse("choose_language"), {"language": "zh-hans", "next": back})
    assert answer.status_code == 302 and answer["Location"] == "/"


@pytest.mark.django_db
def test_the_admins_app_names_are_in_the_chosen_language(admin_client):
    page = admin_client.get("/admin/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    for name in ("研究与标注", "来源与问题报告", "编码手册"):
        assert name in page, name
    assert "Studies and labels" not in page
