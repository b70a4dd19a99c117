"""A service's refusal names its field; a form shows it on that field, or at the top with the field named."""
from __future__ import annotations

import pytest
from django import forms

from concord.errors import FieldError
from concord.textcheck import fitted


class _Form(forms.Form):
    name = forms.CharField()


def test_a_refusal_lands_on_its_field_or_at_the_top_naming_it():
    form = _Form({"name": "x"})
    assert form.is_valid()
    FieldError("name", "a study named 'x' exists already").add_to(form)
    FieldError("phase", "the study is closed").add_to(form)
    FieldError("", "No stored report matches these rules.").add_to(form)
    assert form.errors["name"] == ["a study named 'x' exists already"]
    assert form.non_field_errors() == ["phase: the study is closed", "No stored report matches these rules."]


def test_checked_text_names_its_field():
    with pytest.raises(FieldError) as refused:
        fitted("a\x00b", "name", 10)
    assert (refused.value.field, refused.value.message) == ("name", "contains a NUL character at position 2")
