"""Adding a machine rater to a study, with every setting checked against its limits."""
from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.db import IntegrityError, transaction

from annotation.models import Study
from concord.errors import FieldError
from concord.textcheck import fitted

from ..classifier import FOLDS
from ..models import MachineRater
from ..prompt import PROMPT_VERSION

MAX_RUNS = 10
SEED_MAX = 2**32 - 1  # numpy's and most inference servers' seeds


class RaterError(FieldError):
    pass


def _int(field: str, value, low: int, high: int, default: int | None) -> int | None:
    if value in (None, ""):
        return default
    try:
        number = int(str(value).strip())
    except ValueError:
        raise RaterError(field, f"a whole number from {low} to {high}, not {str(value)[:40]!r}") from None
    if not low <= number <= high:
        raise RaterError(field, f"a whole number from {low} to {high}, not {number}")
    return number


def _float(field: str, value, low: float, high: float) -> float | None:
    if value in (None, ""):
        return None
    try:
        number = float(str(value).strip())
    except ValueError:
        raise RaterError(field, f"a number from {low} to {high}, not {str(value)[:40]!r}") from None
    if not low <= number <= high:
        raise RaterError(field, f"a number from {low} to {high}, not {number}")
    return number


def checked_settings(kind: str, raw: dict) -> dict:
    """A rater's settings from untrusted input: only the known keys, each within its limits."""
    if kind == MachineRater.Kind.BUILTIN:
        return {"folds": _int("folds", raw.get("folds"), 2, 20, FOLDS), "seed": _int("seed", raw.get("seed"), 0,
                                                                                    SEED_MAX, 0)}
    if kind != MachineRater.Kind.LLM:
        raise RaterError("kind", f"one of {', '.join(MachineRater.Kind.values)}")
    base_url = fitted(str(raw.get("base_url") or settings.LLM_BASE_URL or "").strip(), "base_url", 500)
    parts = urlsplit(base_url)
    if parts.scheme not in {"http", "https"} or not parts.netloc:
        raise RaterError("base_url", "the endpoint's address, http:// or https://, e.g. http://127.0.0.1:8000/v1")
    model = fitted(str(raw.get("model") or settings.LLM_MODEL or "").strip(), "model", 200)
    if not model:
        raise RaterError("model", "the model's name as the endpoint knows it")
    return {"base_url": base_url, "model": model,
            "temperature": _float("temperature", raw.get("temperature"), 0.0, 2.0),
            "seed": _int("seed", raw.get("seed"), 0, SEED_MAX, None),
            "runs": _int("runs", raw.get("runs"), 1, MAX_RUNS, 1), "prompt_version": PROMPT_VERSION}


def add_rater(study: Study, *, name: str, kind: str, training: str = MachineRater.Training.FINAL,
              raw_settings: dict | None = None, by=None) -> MachineRater:
    name = fitted((name or "").strip(), "name", 100)
    if not name:
        raise RaterError("name", "a name for the rater, e.g. tfidf-sgd or qwen2.5-7b")
    if training not in MachineRater.Training.values:
        raise RaterError("training", f"one of {', '.join(MachineRater.Training.values)}")
    rater = MachineRater(study=study, name=name, kind=kind, created_by=by,
                         training=training if kind == MachineRater.Kind.BUILTIN else "",
                         settings=checked_settings(kind, raw_settings or {}))
    try:
        with transaction.atomic():
            rater.save()
    except IntegrityError:
        raise RaterError("name", f"the study has a machine rater called {name!r} already") from None
    return rater
