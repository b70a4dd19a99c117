"""A codebook out and in: JSON (the shape of the shipped codebook), Markdown, and REFI-QDA codebook XML
(.qdc, validated against the standard's Codebook.xsd) that NVivo, ATLAS.ti and MAXQDA open."""
from __future__ import annotations

import json
import re
import uuid
from pathlib import Path

from lxml import etree

from .languages import FIELDS, SECOND
from .models import Category, Codebook
from .selectors import codebook_tree

QDC_NS = "urn:QDA-XML:codebook:1.0"
XSD = Path(__file__).resolve().parent / "schemas" / "Codebook.xsd"
_CODE_IN_NAME = re.compile(r"^([A-Z]+(?:\.\d+)?(?:\.[ivxlcdm]+)?)\s+(.+)$")
LEVELS = (Category.Level.TYPE, Category.Level.THEME, Category.Level.SUB_THEME)
CHILDREN = {Category.Level.TYPE: "themes", Category.Level.THEME: "sub_themes"}


class CodebookFileError(ValueError):
    """A codebook file that cannot be read; the message names the file, line or element."""


def _node(category: Category) -> dict:
    data = {"code": category.code, "name": category.name, "definition": category.definition}
    for extra in ("inclusion", "exclusion", *SECOND):
        if getattr(category, extra):
            data[extra] = getattr(category, extra)
    if category.level in CHILDREN:
        data[CHILDREN[category.level]] = [_node(k) for k in category.kids]
    return data


def to_json(codebook: Codebook) -> str:
    top = {"name": codebook.name, "version": f"{codebook.version} (revision {codebook.revision})",
           "source": codebook.source, "note": codebook.note}
    if codebook.second_language:
        top["second_language"] = codebook.second_language
    return json.dumps({**top, "types": [_node(t) for t in codebook_tree(codebook)]}, indent=2,
                      ensure_ascii=False) + "\n"


def to_markdown(codebook: Codebook) -> str:
    lines = [f"# {codebook.name}", "", f"Version {codebook.version}, revision {codebook.revision}.", ""]
    language = codebook.second_language

    def block(category: Category, depth: int) -> None:
        # The second language's name in brackets after the codebook's own, its texts on lines of their own.
        name = f"{category.name} ({category.name_second})" if category.name_second else category.name
        if depth < 3:
            lines.extend([f"{'#' * (depth + 1)} {category.code} {name}", ""])
            if category.definition:
                lines.extend([category.definition, ""])
        else:
            lines.append(f"- **{category.code} {name}**: {category.definition}".rstrip(": "))
        indent = "  " if depth == 3 else ""
        for label, text in (("Includes", category.inclusion), ("Excludes", category.exclusion)):
            if text:
                lines.append(f"{indent}*{label}:* {text}")
        for field in ("definition", "inclusion", "exclusion"):
            if text := getattr(category, f"{field}_second"):
                lines.append(f"{indent}*{field.capitalize()} ({language}):* {text}")
        if depth < 3 and (category.inclusion or category.exclusion or category.definition_second
                          or category.inclusion_second or category.exclusion_second):
            lines.append("")
        for kid in category.kids:
            block(kid, depth + 1)
        if depth == 2 and category.kids:
            lines.append("")

    for type_ in codebook_tree(codebook):
        block(type_, 1)
    return "\n".join(lines).rstrip() + "\n"


def second_lines(category: Category, language: str) -> list[str]:
    """The category's texts in the codebook's second language, one "[language] field: text" line each, as a
    REFI-QDA description carries them (the standard has no place of its own for a second language)."""
    return [f"[{language}] {field}: {getattr(category, f'{field}_second')}"
            for field in FIELDS if language and getattr(category, f"{field}_second")]


_SECOND_LINE = re.compile(r"^\[([a-z]{2,3}(?:-[a-z]+)?)\] (" + "|".join(FIELDS) + r"): ", re.MULTILINE)


def _read_description(text: str) -> tuple[str, str, dict[str, str]]:
    """A description as `second_lines` wrote it: the codebook's own text, the second language, its texts."""
    parts = _SECOND_LINE.split(text)
    language, second = "", {}
    for i in range(1, len(parts) - 2, 3):
        language = parts[i]
        second[f"{parts[i + 1]}_second"] = parts[i + 2].strip()
    return parts[0].strip(), language, second


def _description(category: Category, language: str) -> str:
    parts = [category.definition]
    parts += [f"Includes: {category.inclusion}"] if category.inclusion else []
    parts += [f"Excludes: {category.exclusion}"] if category.exclusion else []
    return "\n".join(p for p in [*parts, *second_lines(category, language)] if p)


def to_qdc(codebook: Codebook) -> bytes:
    root = etree.Element(f"{{{QDC_NS}}}CodeBook", nsmap={None: QDC_NS}, origin="Concord")
    codes = etree.SubElement(root, f"{{{QDC_NS}}}Codes")

    def add(parent, category: Category) -> None:
        # Types with themes are groupings; themes and sub-themes are what annotators code with.
        codable = not (category.level == Category.Level.TYPE and category.kids)
        element = etree.SubElement(parent, f"{{{QDC_NS}}}Code", guid=str(category.guid).upper(),
                                   name=f"{category.code} {category.name}", isCodable="true" if codable else "false")
        if text := _description(category, codebook.second_language):
            etree.SubElement(element, f"{{{QDC_NS}}}Description").text = text
        for kid in category.kids:
            add(element, kid)

    for type_ in codebook_tree(codebook):
        add(codes, type_)
    return etree.tostring(root, xml_declaration=True, encoding="utf-8", pretty_print=True)


def schema() -> etree.XMLSchema:
    return etree.XMLSchema(etree.parse(str(XSD)))


def _safe_parse(data: bytes, name: str):
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False, remove_comments=True)
    try:
        return etree.fromstring(data, parser)
    except etree.XMLSyntaxError as exc:
        raise CodebookFileError(f"{name}: line {exc.lineno}: not well-formed XML: {exc.msg}") from exc


def validate_qdc(data: bytes, name: str = "codebook.qdc") -> etree._Element:
    root = _safe_parse(data, name)
    if root.getroottree().docinfo.internalDTD is not None:
        # Entities are how XML files reach outside themselves; a codebook needs none.
        raise CodebookFileError(f"{name}: line 1: not a REFI-QDA codebook: a DOCTYPE is not allowed")
    checker = schema()
    try:
        valid = checker.validate(root)
    except etree.XMLSchemaValidateError as exc:
        raise CodebookFileError(f"{name}: not a REFI-QDA codebook: {exc}") from exc
    if not valid:
        error = checker.error_log[0]
        raise CodebookFileError(f"{name}: line {error.line}: not a REFI-QDA codebook: {error.message}")
    return root


def qdc_to_codebook(data: bytes, name: str) -> dict:
    """A .qdc file as the JSON shape load_codebook reads; codes come from "A.1 Name" names where present."""
    root = validate_qdc(data, name)

    def node(element, depth: int, position: list[int], parent_code: str) -> dict:
        if depth > 2:
            raise CodebookFileError(f"{name}: line {element.sourceline}: codes nest deeper than type → theme → "
                                    "sub-theme")
        label = element.get("name").strip()
        match = _CODE_IN_NAME.match(label)
        code = match.group(1) if match else (f"{parent_code}.{position[-1]}" if parent_code else f"T{position[-1]}")
        description = element.find(f"{{{QDC_NS}}}Description")
        own, language, second = _read_description(description.text or "" if description is not None else "")
        data = {"code": code, "name": match.group(2) if match else label, "definition": own, **second}
        if language:
            languages.add(language)
        kids = element.findall(f"{{{QDC_NS}}}Code")
        if depth < 2:
            data[CHILDREN[LEVELS[depth]]] = [node(k, depth + 1, [*position, i + 1], code) for i, k in enumerate(kids)]
        return data

    languages: set[str] = set()
    top = root.find(f"{{{QDC_NS}}}Codes").findall(f"{{{QDC_NS}}}Code")
    types = [node(e, 0, [i + 1], "") for i, e in enumerate(top)]
    if len(languages) > 1:
        raise CodebookFileError(f"{name}: descriptions in more than one second language: "
                                f"{', '.join(sorted(languages))}")
    return {"name": Path(name).stem, "version": f"imported {uuid.uuid4().hex[:8]}", "source": f"REFI-QDA file {name}",
            "types": types, **({"second_language": languages.pop()} if languages else {})}
