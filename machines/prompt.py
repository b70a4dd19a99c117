"""Pure: the language-model rater's prompt, built from the codebook's own definitions, inclusion and exclusion
notes, and the reading of its answer. Versioned: a run records the version and the hash of the prompt it sent,
and the call cache is keyed by the hash, so a changed codebook or wording never reuses an old answer."""
from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

PROMPT_VERSION = "2026-12-1"
NR = "NR"
TEXT_CHARS = 6000
_JSON_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


@dataclass(frozen=True)
class Node:
    code: str
    level: str  # "type", "theme", "sub_theme"
    parent: str | None
    name: str
    definition: str = ""
    inclusion: str = ""
    exclusion: str = ""


class Unparseable(ValueError):
    """The answer cannot be read as a label of this codebook; the message says why."""


def _line(node: Node, indent: str) -> list[str]:
    lines = [f"{indent}{node.code} {node.name}" + (f": {node.definition.strip()}" if node.definition.strip() else "")]
    if node.inclusion.strip():
        lines.append(f"{indent}  Includes: {node.inclusion.strip()}")
    if node.exclusion.strip():
        lines.append(f"{indent}  Excludes: {node.exclusion.strip()}")
    return lines


def system_prompt(nodes: Sequence[Node]) -> str:
    """The codebook as a tree, and the answer's form."""
    children: dict[str | None, list[Node]] = {}
    for node in nodes:
        children.setdefault(node.parent, []).append(node)
    lines = ["You label GitHub and Gitee issue reports of deep-learning frameworks for a study of the challenges "
             "that arise with large language models. Give each report one type, one theme of that type and one "
             "sub-theme of that theme, from this codebook, or say it is not relevant to the study.", "",
             "Codebook:"]

    def walk(parent: str | None, depth: int) -> None:
        for node in children.get(parent, []):
            lines.extend(_line(node, "  " * depth))
            walk(node.code, depth + 1)

    walk(None, 0)
    lines += ["", "Answer with one JSON object and nothing else: "
              '{"type": "<type code>", "theme": "<theme code>", "sub_theme": "<sub-theme code>"}, using the codes '
              f'above; or {{"type": "{NR}"}} when the report is not about LLMs with a deep-learning framework. '
              "Leave out sub_theme when no sub-theme fits."]
    return "\n".join(lines)


def user_prompt(title: str, body: str | None) -> str:
    # The report as an annotator opens it: the title and the start of the original (most of a long body is logs).
    return f"Title: {title}\n\nReport:\n{(body or '')[:TEXT_CHARS]}"


def _answer_object(content: str) -> dict:
    """The first JSON object in the model's answer."""
    match = _JSON_OBJECT.search(content or "")
    if not match:
        raise Unparseable(f"no JSON object in the answer: {(content or '')[:120]!r}")
    try:
        data = json.loads(match.group())
    except (json.JSONDecodeError, RecursionError) as exc:
        raise Unparseable(f"the answer is not valid JSON: {(content or '')[:120]!r}") from exc
    if not isinstance(data, dict):
        raise Unparseable("the answer is not a JSON object")
    return data


def _code(field: str, value) -> str | None:
    """A level's code as the answer gives it ("C.2 Memory" gives C.2); None when it gives none."""
    if value in (None, ""):
        return None
    if not isinstance(value, str) or len(value) > 32:
        raise Unparseable(f"{field}: not a code: {str(value)[:40]!r}")
    return value.strip().split(" ", 1)[0]


def parse_answer(content: str, nodes: Sequence[Node]) -> tuple[str, str | None, str | None]:
    """(type, theme, sub-theme) codes from the model's answer, checked against the codebook's tree."""
    data = _answer_object(content)
    parent = {n.code: n.parent for n in nodes}
    level = {n.code: n.level for n in nodes}
    values = [_code(field, data.get(field)) for field in ("type", "theme", "sub_theme")]
    type_, theme, sub = values
    if type_ is None:
        raise Unparseable("no type in the answer")
    if type_.upper() == NR:
        return NR, None, None
    if level.get(type_) != "type":
        raise Unparseable(f"type: {type_!r} is not a type of the codebook")
    if theme is None:
        raise Unparseable("no theme in the answer")
    if level.get(theme) != "theme" or parent[theme] != type_:
        raise Unparseable(f"theme: {theme!r} is not a theme of type {type_}")
    if sub is not None and (level.get(sub) != "sub_theme" or parent[sub] != theme):
        raise Unparseable(f"sub_theme: {sub!r} is not a sub-theme of {theme}")
    return type_, theme, sub
