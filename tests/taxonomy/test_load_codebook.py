from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command

from taxonomy.models import Category, Codebook
from taxonomy.services import CodebookError, load_codebook

pytestmark = pytest.mark.django_db


def _counts() -> dict[str, int]:
    return {level: Category.objects.filter(level=level).count() for level in Category.Level.values}


def test_default_codebook_has_3_types_20_themes_75_sub_themes():
    codebook = load_codebook()
    assert _counts() == {"type": 3, "theme": 20, "sub_theme": 75}
    bug = Category.objects.get(codebook=codebook, code="C")
    assert bug.name == "Bug" and bug.children.count() == 10
    assert Category.objects.get(code="C.6.iv").parent.code == "C.6"


def test_loading_twice_changes_nothing():
    first = load_codebook()
    ids = sorted(Category.objects.values_list("id", "parent_id", "code", "name"))
    second = load_codebook()
    assert first.pk == second.pk
    assert sorted(Category.objects.values_list("id", "parent_id", "code", "name")) == ids
    assert Codebook.objects.count() == 1


def test_a_codebook_with_other_categories_loads(tmp_path):
    path = tmp_path / "mini.json"
    path.write_text(json.dumps({
        "name": "Mini", "version": "1",
        "types": [{"code": "X", "name": "Crash", "themes": [{"code": "X.1", "name": "Segfault"}]},
                  {"code": "Y", "name": "Docs"}],
    }))
    call_command("load_codebook", str(path))
    assert sorted(Category.objects.filter(codebook__name="Mini").values_list("code", flat=True)) == ["X", "X.1", "Y"]


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"name": "Bad", "types": []}, "non-empty list 'types'"),
        ({"name": "Bad", "types": [{"code": "A"}]}, "types[0]: name: missing or empty"),
        ({"name": "Bad", "types": [{"code": "A", "name": "Q", "themes": [{"name": "no code"}]}]},
         "types[0].themes[0]: code: missing or empty"),
        ({"name": "Bad", "types": [{"code": "A", "name": "Q"}, {"code": "A", "name": "R"}]},
         "duplicate category codes: A"),
    ],
)
def test_bad_codebook_names_file_and_field_and_changes_nothing(tmp_path, document, message):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(document))
    with pytest.raises(CodebookError) as error:
        load_codebook(path)
    assert str(path) in str(error.value) and message in str(error.value)
    assert Codebook.objects.count() == 0 and Category.objects.count() == 0


def test_command_reports_invalid_json_with_line(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{\n  "name": "x",\n  "types": [,]\n}')
    with pytest.raises(CommandError, match=r"broken.json: line 3: not valid JSON"):
        call_command("load_codebook", str(path))
