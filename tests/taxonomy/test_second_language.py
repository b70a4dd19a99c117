"""A codebook in two languages: each category's name, definition and notes in a second language, kept through
JSON, Markdown, REFI-QDA and a study's own copy; shown first to a reader of that language with the codebook's own
a hover away, found by either name; given by the lead as a change with a reason, and refused when hostile."""
from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse
from django.utils import translation

from codebook.models import ChangeLogEntry
from codebook.services import changes
from taxonomy.exports import qdc_to_codebook, to_json, to_markdown, to_qdc
from taxonomy.languages import reader_tree
from taxonomy.services import CodebookError, codebook_from_data, copy_codebook
from tests.factories import category, make_study, make_user

pytestmark = pytest.mark.django_db
MEMORY = {"name_second": "内存", "definition_second": "显存或内存不足，包括 OOM。", "inclusion_second": "KV 缓存",
          "exclusion_second": "磁盘空间"}


@pytest.fixture
def bilingual():
    lead = make_user("lead")
    study = make_study(lead, [make_user("li")])
    changes.translate(study, lead, category("C", study.codebook).pk, "for our volunteers", language="zh-hans",
                      texts={"name_second": "缺陷", "definition_second": "软件行为与预期不符。"})
    changes.translate(study, lead, category("C.2", study.codebook).pk, "for our volunteers", language="zh-hans",
                      texts=MEMORY)
    study.codebook.refresh_from_db()
    return study, lead


def _second(codebook, code):
    node = codebook.categories.get(code=code)
    return {field: getattr(node, field) for field in MEMORY}


def test_the_lead_gives_a_category_its_second_language_as_a_change_that_keeps_labels(bilingual):
    study, _ = bilingual
    assert study.codebook.second_language == "zh-hans" and _second(study.codebook, "C.2") == MEMORY
    entry = study.codebook.changes.latest("revision")
    assert entry.kind == ChangeLogEntry.Kind.TRANSLATE and entry.after[0]["name_second"] == "内存"
    # The shipped codebook's own Chinese is what the change replaced.
    assert entry.before[0]["name_second"] == "资源效率与内存管理" and entry.requeued == 0


def test_json_markdown_and_refi_qda_keep_both_languages(bilingual, tmp_path):
    study, _ = bilingual
    data = json.loads(to_json(study.codebook))
    assert data["second_language"] == "zh-hans"
    data["version"] = "again"
    again = codebook_from_data(data, "again.json")
    assert again.second_language == "zh-hans" and _second(again, "C.2") == MEMORY
    markdown = to_markdown(study.codebook)
    assert "## C Bug (缺陷)" in markdown and "*Definition (zh-hans):* 显存或内存不足，包括 OOM。" in markdown
    imported = codebook_from_data(qdc_to_codebook(to_qdc(study.codebook), "two.qdc"), "two.qdc")
    assert imported.second_language == "zh-hans" and _second(imported, "C.2") == MEMORY
    # The codebook's own texts are untouched by the second language's lines in the description.
    assert imported.categories.get(code="C.2").definition.startswith(category("C.2", study.codebook).definition)
    assert "[zh-hans]" not in imported.categories.get(code="C.2").definition
    copy = copy_codebook(study.codebook, "a study's own")
    assert copy.second_language == "zh-hans" and _second(copy, "C.2") == MEMORY


@pytest.mark.parametrize("change, message", [
    ({"second_language": "klingon"}, "second_language: 'klingon' is not one of en, zh-hans"),
    ({"second_language": None}, "texts in a second language need the top level's second_language"),
    ({"name_second": "x" * 301}, "name_second"),
    ({"definition_second": "bad\x00byte"}, "definition_second"),
    ({"name_second": 7}, "name_second: int (expected text)"),
])
def test_a_file_with_a_bad_second_language_is_refused_naming_where(bilingual, change, message):
    study, _ = bilingual
    data = json.loads(to_json(study.codebook))
    data["version"] = "bad"
    node = data["types"][2]["themes"][1]
    for key, value in change.items():
        (data if key == "second_language" else node)[key] = value
    if change.get("second_language", "") is None:
        data.pop("second_language")
    with pytest.raises(CodebookError, match=re.escape(message)):
        codebook_from_data(data, "bad.json")


@pytest.mark.parametrize("texts, language, field", [
    ({"name_second": "x" * 301}, "zh-hans", "name_second"),
    ({"definition_second": "a\x00b"}, "zh-hans", "definition_second"),
    ({"name_second": "Mémoire"}, "fr", "second_language"),
    ({"name_second": "Memory"}, "en", "second_language"),  # the codebook speaks zh-hans already
])
def test_a_hostile_or_conflicting_translation_changes_nothing(bilingual, texts, language, field):
    study, lead = bilingual
    before = (study.codebook.revision, _second(study.codebook, "C.1"))
    with pytest.raises(CodebookError) as raised:
        changes.translate(study, lead, category("C.1", study.codebook).pk, "why", language=language, texts=texts)
    assert raised.value.field == field
    study.codebook.refresh_from_db()
    assert (study.codebook.revision, _second(study.codebook, "C.1")) == before


def test_each_reader_sees_their_language_first_and_the_other_a_hover_away(bilingual):
    study, _ = bilingual
    with translation.override("zh-hans"):
        bug = reader_tree(study.codebook)[2]
    assert (bug.shown["name"], bug.other["name"]) == ("缺陷", "Bug")
    memory = next(k for k in bug.kids if k.code == "C.2")
    assert memory.shown["inclusion"] == "KV 缓存" and memory.other["definition"] == memory.definition
    # A category with no second text shows the codebook's own, with nothing to hover.
    study.codebook.categories.filter(code="C.1").update(name_second="", definition_second="")
    with translation.override("zh-hans"):
        bug = reader_tree(study.codebook)[2]
    other = next(k for k in bug.kids if k.code == "C.1")
    assert other.shown["name"] == other.name and other.other["name"] == ""
    with translation.override("en"):
        bug = reader_tree(study.codebook)[2]
    assert (bug.shown["name"], bug.other["name"]) == ("Bug", "缺陷")


def test_the_labeling_page_speaks_the_readers_language_and_finds_by_either_name(bilingual, client):
    study, _ = bilingual
    client.force_login(study.memberships.get(user__username="li").user)
    page = client.get(reverse("annotation:queue", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    assert '<span class="name" title="Bug">缺陷</span>' in page
    memory = category("C.2", study.codebook)
    assert f'data-code="C.2" data-other="{memory.name}"' in page and ">内存</span>" in page
    page = client.get(reverse("annotation:queue", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert '<span class="name" title="缺陷">Bug</span>' in page and 'data-other="内存"' in page


def test_the_codebook_page_translates_a_category_through_its_change_form(bilingual, client):
    study, lead = bilingual
    client.force_login(lead)
    target = category("C.1", study.codebook)
    form = {"kind": "translate", "second_language": "zh-hans", "name_second": "崩溃", "definition_second": "",
            "inclusion_second": "", "exclusion_second": "", "reason": "for our volunteers",
            "revision": study.codebook.revision}
    client.post(reverse("codebook:change", args=[study.pk, target.pk]), form)
    target.refresh_from_db()
    assert target.name_second == "崩溃"
    # The same form again names a revision that has passed: nothing changes the second time.
    client.post(reverse("codebook:change", args=[study.pk, target.pk]), {**form, "name_second": "又一次"})
    target.refresh_from_db()
    assert target.name_second == "崩溃"
    page = client.get(reverse("codebook:codebook", args=[study.pk]) + "?q=崩溃").content.decode()
    assert "崩溃" in page and "<mark>" in page
