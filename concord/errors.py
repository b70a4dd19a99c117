"""Refusals that name the input at fault, so a form, the API and the command line can each say where."""
from __future__ import annotations


class FieldError(ValueError):
    """A service's refusal: `field` names the input at fault (a form field's name, a word such as "phase" when
    no field is, or "" for the input as a whole), `message` says what is wrong. Read as text it is
    "field: message"."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field
        self.message = message

    def add_to(self, form) -> None:
        """On the form's field of that name, else at the top of the form with the field named."""
        if self.field in form.fields:
            form.add_error(self.field, self.message)
        else:
            form.add_error(None, str(self))


def form_refusal(form) -> FieldError:
    """A bound form's errors as one refusal, in words: the first field at fault, and every message."""
    field, errors = next(iter(form.errors.items()))
    return FieldError("" if field == "__all__" else field, " ".join(str(e) for e in errors))
