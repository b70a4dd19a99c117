"""Adding a machine rater to a study, with every setting checked against its limits."""
from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.db import IntegrityError, transaction

from annotation.models import Study
from concord.audit import record as audit
from concord.errors import FieldError
from concord.textcheck import fitted
from integrations.endpoints import operator_endpoints, operator_named, own_guard
from integrations.guard import Forbidden

from ..classifier import DEFAULT_FEATURES, FEATURES, FOLDS
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


def checked_settings(kind: str, raw: dict, *, restored: bool = False) -> dict:
    """A rater's settings from untrusted input: only the known keys, each within its limits. Settings `restored`
    from a file name an endpoint that need not exist here, and an address that is not looked up now: the run
    checks both when it connects."""
    if not isinstance(raw, dict):
        raise RaterError("settings", "an object of settings")
    if kind == MachineRater.Kind.BUILTIN:
        checked = {"folds": _int("folds", raw.get("folds"), 2, 20, FOLDS),
                   "seed": _int("seed", raw.get("seed"), 0, SEED_MAX, 0)}
        features = raw.get("features") or DEFAULT_FEATURES
        if features not in FEATURES:
            raise RaterError("features", f"one of {', '.join(FEATURES)}, not {str(features)[:40]!r}")
        # Kept only when not the default, so a rater made before the choice existed reads as it always did.
        return checked | ({"features": features} if features != DEFAULT_FEATURES else {})
    if kind != MachineRater.Kind.LLM:
        raise RaterError("kind", f"one of {', '.join(MachineRater.Kind.values)}")
    model = fitted(str(raw.get("model") or settings.LLM_MODEL or "").strip(), "model", 200)
    if not model:
        raise RaterError("model", "the model's name as the endpoint knows it")
    return {**_endpoint(raw, restored), "model": model,
            "temperature": _float("temperature", raw.get("temperature"), 0.0, 2.0),
            "seed": _int("seed", raw.get("seed"), 0, SEED_MAX, None),
            "runs": _int("runs", raw.get("runs"), 1, MAX_RUNS, 1),
            "prompt_version": fitted(str(raw.get("prompt_version") or ""), "prompt_version", 32) if restored
            else PROMPT_VERSION}


def _endpoint(raw: dict, restored: bool = False) -> dict:
    """One of the operator's endpoints by name, or an address of the rater's own that may be reached from here."""
    name = fitted(str(raw.get("endpoint") or "").strip(), "endpoint", 100)
    base_url = fitted(str(raw.get("base_url") or "").strip(), "base_url", 500)
    offered = operator_endpoints()
    if name and base_url:
        raise RaterError("base_url", "either one of the server's endpoints or an address of the rater's own, "
                                     "not both")
    if name:
        if name not in offered and not restored:
            raise RaterError("endpoint", f"one of the server's endpoints ({', '.join(offered) or 'none configured'})"
                                         f", not {name[:40]!r}")
        return {"endpoint": name}
    if not base_url:
        if len(offered) == 1 and not restored:
            return {"endpoint": next(iter(offered))}
        raise RaterError("endpoint", "one of the server's endpoints, or an address of the rater's own"
                         if offered else "the endpoint's address, http:// or https://, e.g. https://llm.example.org/v1")
    return _own_address(base_url, restored)


def _own_address(base_url: str, restored: bool) -> dict:
    """An address of the rater's own: http(s), and one this server may call (a restored rater keeps the one it
    had); an operator's endpoint given by its address is named by its name."""
    parts = urlsplit(base_url)
    if parts.scheme not in {"http", "https"} or not parts.hostname:
        raise RaterError("base_url", "the endpoint's address, http:// or https://, e.g. https://llm.example.org/v1")
    if restored:
        return {"base_url": base_url}
    if operator_named(base_url):
        return {"endpoint": operator_named(base_url)}
    try:
        own_guard().addresses(parts.hostname, parts.port or (443 if parts.scheme == "https" else 80))
    except (Forbidden, ValueError) as exc:
        raise RaterError("base_url", f"an address this server may call: {exc}") from None
    return {"base_url": base_url}


def add_rater(study: Study, *, name: str, kind: str, training: str = MachineRater.Training.FINAL,
              raw_settings: dict | None = None, by=None) -> MachineRater:
    name = fitted((name or "").strip(), "name", 100)
    if not name:
        raise RaterError("name", "a name for the rater, e.g. tfidf-sgd or qwen2.5-7b")
    if training not in MachineRater.Training.values:
        raise RaterError("training", f"one of {', '.join(MachineRater.Training.values)}")
    checked = checked_settings(kind, raw_settings or {})
    api_key = fitted(str((raw_settings or {}).get("api_key") or "").strip(), "api_key", 500)
    if api_key and "base_url" not in checked:
        raise RaterError("api_key", "a key only for an endpoint of the rater's own: the server's endpoints use "
                                    "the server's keys")
    rater = MachineRater(study=study, name=name, kind=kind, created_by=by, api_key=api_key,
                         training=training if kind == MachineRater.Kind.BUILTIN else "", settings=checked)
    try:
        with transaction.atomic():
            rater.save()
            audit("machine rater added", by, study, rater=name, kind=kind,
                  endpoint=checked.get("endpoint") or checked.get("base_url") or "", own_key=bool(api_key))
    except IntegrityError:
        raise RaterError("name", f"the study has a machine rater called {name!r} already") from None
    return rater
