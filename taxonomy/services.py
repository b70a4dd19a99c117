from __future__ import annotations

import json
from pathlib import Path

from django.conf import settings
from django.db import transaction

from concord.errors import FieldError
from concord.textcheck import fitted, length_problem, text_problem

from .codes import roman
from .exports import CodebookFileError, qdc_to_codebook
from .languages import SECOND
from .models import Category, Codebook

DEFAULT_CODEBOOK = Path(__file__).resolve().parent / "codebooks" / "llm-centric-2025.json"


class CodebookError(FieldError):
    """A codebook file that does not have the expected shape (`field` is the file, the message says where in
    it), or a category that cannot be saved."""


def _require(node: dict, field: str, where: str, path: str, limit: int | None = None) -> str:
    value = node.get(field)
    if not isinstance(value, str) or not value.strip():
        raise CodebookError(path, f"{where}: {field}: missing or empty (expected text)")
    return _text(node, field, where, path, limit)


def _text(node: dict, field: str, where: str, path: str, limit: int | None = None) -> str:
    """An optional text field, stripped; anything the database would refuse is named."""
    value = node.get(field)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise CodebookError(path, f"{where}: {field}: {type(value).__name__} (expected text)")
    value = value.strip()
    if problem := text_problem(value) or (length_problem(value, limit) if limit else None):
        raise CodebookError(path, f"{where}: {field}: {problem}")
    return value


def _flatten(data: dict, path: str) -> list[tuple[str | None, str, dict]]:
    """(parent code, level, node) for every node, parents first, checking the shape as it goes."""
    if not isinstance(data, dict) or not isinstance(data.get("types"), list) or not data["types"]:
        raise CodebookError(path, "top level must be an object with a non-empty list 'types'")
    rows: list[tuple[str | None, str, dict]] = []
    levels = (
        ("types", Category.Level.TYPE), ("themes", Category.Level.THEME), ("sub_themes", Category.Level.SUB_THEME)
    )

    def walk(nodes: list, depth: int, parent: str | None, where: str) -> None:
        key, level = levels[depth]
        if not isinstance(nodes, list):
            raise CodebookError(path, f"{where}: field '{key}' must be a list")
        for i, node in enumerate(nodes):
            here = f"{where}.{key}[{i}]" if where else f"{key}[{i}]"
            if not isinstance(node, dict):
                raise CodebookError(path, f"{here}: must be an object")
            code = _require(node, "code", here, path, Category._meta.get_field("code").max_length)
            _require(node, "name", here, path, Category._meta.get_field("name").max_length)
            for field in ("definition", "inclusion", "exclusion"):
                _text(node, field, here, path)
            _text(node, "name_second", here, path, Category._meta.get_field("name_second").max_length)
            for field in SECOND[1:]:
                _text(node, field, here, path)
            if any(node.get(f) for f in SECOND) and not data.get("second_language"):
                raise CodebookError(path, f"{here}: texts in a second language need the top level's "
                                          "second_language")
            rows.append((parent, level, node))
            if depth + 1 < len(levels) and levels[depth + 1][0] in node:
                walk(node[levels[depth + 1][0]], depth + 1, code, here)

    walk(data["types"], 0, None, "")
    codes = [node["code"].strip() for _, _, node in rows]
    duplicates = sorted({c for c in codes if codes.count(c) > 1})
    if duplicates:
        raise CodebookError(path, f"duplicate category codes: {', '.join(duplicates)}")
    return rows


@transaction.atomic
def load_codebook(path: str | Path = DEFAULT_CODEBOOK) -> Codebook:
    """Create or update the codebook in `path` (JSON, or REFI-QDA .qdc); loading the same file twice changes
    nothing."""
    path = str(path)
    try:
        if path.lower().endswith(".qdc"):
            with open(path, "rb") as f:
                try:
                    data = qdc_to_codebook(f.read(), path)
                except CodebookFileError as exc:
                    raise CodebookError("", str(exc)) from exc
        else:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
    except OSError as exc:
        raise CodebookError(path, f"cannot be read: {exc.strerror}") from exc
    except json.JSONDecodeError as exc:
        raise CodebookError(path, f"line {exc.lineno}: not valid JSON: {exc.msg}") from exc
    except UnicodeDecodeError as exc:
        raise CodebookError(path, f"not UTF-8 text (byte {exc.start})") from exc
    except RecursionError as exc:
        raise CodebookError(path, "nested too deeply to be a codebook (types, themes, sub-themes)") from exc
    except ValueError as exc:  # an integer of more than 4,300 digits
        raise CodebookError(path, f"not usable JSON ({exc})") from exc
    return codebook_from_data(data, path)


def codebook_from_data(data: dict, path: str) -> Codebook:
    rows = _flatten(data, path)
    name = _require(data, "name", "top level", path, Codebook._meta.get_field("name").max_length)
    version = _version(data, path)
    source, note = _text(data, "source", "top level", path), _text(data, "note", "top level", path)
    second = _second_language(data, path)
    codebook, _ = Codebook.objects.update_or_create(
        name=name, version=version, defaults={"source": source, "note": note, "second_language": second}
    )
    by_code: dict[str, Category] = {}
    for position, (parent_code, level, node) in enumerate(rows):
        code = node["code"].strip()
        by_code[code], _ = Category.objects.update_or_create(
            codebook=codebook,
            code=code,
            defaults={
                "parent": by_code[parent_code] if parent_code else None,
                "level": level,
                "name": node["name"].strip(),
                "definition": (node.get("definition") or "").strip(),  # each checked by _flatten
                "inclusion": (node.get("inclusion") or "").strip(),
                "exclusion": (node.get("exclusion") or "").strip(),
                **{field: (node.get(field) or "").strip() for field in SECOND},
                "position": position,
            },
        )
    return codebook


def _second_language(data: dict, path: str) -> str:
    value = _text(data, "second_language", "top level", path, Codebook._meta.get_field("second_language").max_length)
    codes = [code for code, _ in settings.LANGUAGES]
    if value and value.lower() not in codes:
        raise CodebookError(path, f"top level: second_language: {value!r} is not one of {', '.join(codes)}")
    return value.lower()


def _version(data: dict, path: str) -> str:
    value = data.get("version")
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = str(value)  # "version": 2 is a version too
    version = _text({"version": value}, "version", "top level", path, Codebook._meta.get_field("version").max_length)
    return version or "1"


@transaction.atomic
def free_version(name: str, version: str, mark: str = "") -> str:
    """`version`, or "<version> (<mark>n)" for the first n that no codebook of this name has, cut to fit the
    column (a name derived from user input must never be longer than where it is stored)."""
    limit = Codebook._meta.get_field("version").max_length
    candidate, n = version[:limit], 1
    while Codebook.objects.filter(name=name, version=candidate).exists():
        n += 1
        suffix = f" ({mark}{n})"
        candidate = version[:limit - len(suffix)] + suffix
    return candidate


def copy_codebook(codebook: Codebook, version: str) -> Codebook:
    """A study's own copy of a codebook, so that its pilot can shape it without touching other studies."""
    version = free_version(codebook.name, version)
    copy = Codebook.objects.create(name=codebook.name, version=version, source=codebook.source,
                                   note=f"Copied from {codebook}. {codebook.note}".strip(),
                                   second_language=codebook.second_language,
                                   instructions=codebook.instructions,
                                   instructions_revision=1 if codebook.instructions else 0)
    new_of: dict[int, Category] = {}
    # Parents come before their children in (level, position) order: types, then themes, then sub-themes.
    order = {Category.Level.TYPE: 0, Category.Level.THEME: 1, Category.Level.SUB_THEME: 2}
    live = codebook.categories.filter(retired_at__isnull=True)
    for category in sorted(live, key=lambda c: (order[c.level], c.position)):
        new_of[category.pk] = Category.objects.create(
            codebook=copy, parent=new_of[category.parent_id] if category.parent_id else None,
            level=category.level, code=category.code, name=category.name, definition=category.definition,
            inclusion=category.inclusion, exclusion=category.exclusion, position=category.position,
            **{field: getattr(category, field) for field in SECOND},
        )
    return copy


def _next_code(parent: Category) -> str:
    siblings = set(parent.children.values_list("code", flat=True))
    n = len(siblings) + 1
    while True:
        code = f"{parent.code}.{roman(n) if parent.level == Category.Level.THEME else n}"
        if code not in siblings:
            return code
        n += 1


@transaction.atomic
def add_category(parent: Category, name: str, definition: str = "") -> Category:
    """A theme under a type or a sub-theme under a theme, numbered after its siblings (C.7, C.6.v)."""
    name = name.strip()
    if not name:
        raise CodebookError("name", "a category needs a name")
    try:
        fitted(name, "name", Category._meta.get_field("name").max_length)
        fitted(definition, "definition")
    except FieldError as exc:
        raise CodebookError(exc.field, exc.message) from exc
    if parent.level == Category.Level.SUB_THEME:
        raise CodebookError("parent", "sub-themes have no children; choose a type or a theme")
    if parent.children.filter(name__iexact=name, retired_at__isnull=True).exists():
        raise CodebookError("name", f"{parent.code} already has a category named {name!r}")
    level = Category.Level.THEME if parent.level == Category.Level.TYPE else Category.Level.SUB_THEME
    last = parent.codebook.categories.order_by("-position").values_list("position", flat=True).first() or 0
    return Category.objects.create(codebook=parent.codebook, parent=parent, level=level, code=_next_code(parent),
                                   name=name, definition=definition.strip(), position=last + 1)


def import_codebook(path: str | Path) -> Codebook:
    """A codebook from a JSON or .qdc file, always as a new codebook: one that has the same name and version
    as an existing codebook is refused rather than merged into it."""
    path = str(path)
    if not path.lower().endswith(".qdc"):
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, ValueError, RecursionError):
            return load_codebook(path)  # which names the file and line of the fault
        if not isinstance(data, dict):
            return load_codebook(path)  # which names what is wrong with its shape
        name, version = str(data.get("name", "")).strip(), str(data.get("version") or "1").strip()
        if Codebook.objects.filter(name=name, version=version).exists():
            raise CodebookError(path, f"a codebook named {name!r}, version {version!r}, exists already; "
                                "change the version to import it as a new codebook")
    return load_codebook(path)
