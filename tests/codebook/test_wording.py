"""The change log marks the words a clarification or new instructions changed."""
from __future__ import annotations

import pytest
from django.urls import reverse
from hypothesis import given
from hypothesis import strategies as st

from codebook.services import changes
from codebook.wording import changed_fields, word_diff

words = st.lists(st.sampled_from(["GPU", "memory", "out", "of", "the", "\n", "  ", "kernel", "é"]), max_size=30)


@given(words, words)
def test_the_runs_rebuild_both_versions(before, after):
    before, after = " ".join(before), " ".join(after)
    runs = word_diff(before, after)
    assert "".join(t for op, t in runs if op != "ins") == before
    assert "".join(t for op, t in runs if op != "del") == after


def test_only_the_fields_that_changed():
    before = {"code": "C.9", "name": "Memory", "definition": "Runs out of GPU memory.", "inclusion": "",
              "exclusion": ""}
    after = {**before, "definition": "Runs out of GPU or host memory.", "exclusion": "Leaks in user code."}
    assert changed_fields(before, after) == [
        ("Definition", [("same", "Runs out of GPU "), ("ins", "or host "), ("same", "memory.")]),
        ("Excludes", [("ins", "Leaks in user code.")]),
    ]


@pytest.mark.django_db
def test_the_change_log_shows_a_clarification_word_by_word(study, lead, client_as):
    nine = study.codebook.categories.get(code="C.9")
    old = nine.definition
    changes.clarify(study, lead, nine.pk, "sharper", definition=old + " Not <b>leaks</b>.")
    changes.set_instructions(study, lead, "Read the *summary* first.", "first version")
    page = client_as(lead).get(reverse("codebook:changelog", args=[study.pk])).content.decode()
    assert "<ins>Not &lt;b&gt;leaks&lt;/b&gt;.</ins>" in page.replace("<ins> ", "<ins>")
    assert "Instructions:</span> <ins>Read the *summary* first.</ins>" in page
