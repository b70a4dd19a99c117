"""The language-model rater's prompt comes from the codebook, and its answers are read strictly."""
from __future__ import annotations

import pytest

from machines.prompt import Node, Unparseable, parse_answer, system_prompt

NODES = [Node("A", "type", None, "Question", "Asking how"), Node("C", "type", None, "Bug", "Something broke"),
         Node("C.1", "theme", "C", "Memory", "Out of memory", inclusion="OOM", exclusion="Disk space"),
         Node("C.1.i", "sub_theme", "C.1", "GPU memory"), Node("A.1", "theme", "A", "Usage")]


def test_the_prompt_carries_every_code_definition_inclusion_and_exclusion():
    text = system_prompt(NODES)
    for needle in ("C.1 Memory: Out of memory", "Includes: OOM", "Excludes: Disk space", "C.1.i GPU memory",
                   "A.1 Usage", '"type"'):
        assert needle in text


@pytest.mark.parametrize("answer, chain", [
    ('{"type": "C", "theme": "C.1", "sub_theme": "C.1.i"}', ("C", "C.1", "C.1.i")),
    ('Sure! ```json\n{"type": "C", "theme": "C.1"}\n```', ("C", "C.1", None)),
    ('{"type": "nr"}', ("NR", None, None)),
    ('{"type": "A", "theme": "A.1 Usage"}', ("A", "A.1", None)),
])
def test_answers_that_name_a_path_of_the_codebook(answer, chain):
    assert parse_answer(answer, NODES) == chain


@pytest.mark.parametrize("answer, why", [
    ("I cannot help with that.", "no JSON object"),
    ('{"type": "C", "theme": ', "no JSON object"),
    ('{"type": "C", "theme": "C.1",}', "not valid JSON"),
    ('{"type": "Z", "theme": "C.1"}', "not a type"),
    ('{"type": "A", "theme": "C.1"}', "not a theme of type A"),
    ('{"type": "C", "theme": "C.1", "sub_theme": "A.1"}', "not a sub-theme"),
    ('{"type": "C"}', "no theme"),
    ('{"type": ["C"], "theme": "C.1"}', "not a code"),
    ('{"theme": "C.1"}', "no type"),
    ("[" * 100000 + "]" * 100000, "no JSON object"),
    ("{" + '"a":{' * 100000 + "}" * 100001, "not valid JSON"),
])
def test_unusable_answers_say_why(answer, why):
    with pytest.raises(Unparseable, match=why):
        parse_answer(answer, NODES)
