"""A codebook's second language given all at once, from a translator's file (taxonomy.second_file): one change
with one reason and one revision, as the lead's translation of a single category is, listing every category
whose texts it changed. Labels stay: a category means what it meant in any language."""
from __future__ import annotations

from django.db import transaction

from codebook.models import ChangeLogEntry
from taxonomy.languages import SECOND
from taxonomy.models import Category
from taxonomy.second_file import Translation
from taxonomy.services import CodebookError

from .changes import _any_second, _check, _log, _snapshot


@transaction.atomic
def translate_all(study, user, translation: Translation, reason: str, *, expected_revision: int | None,
                  name: str = "the file") -> int:
    """Apply the file's texts: every category in use must be in it (so that a file for another codebook, or a
    partial one, is refused rather than half-applied), and each code in it must be one in use. Returns how many
    categories changed; a file that changes none is refused."""
    codebook = _check(study, user, reason, expected_revision)
    live = {c.code: c for c in Category.objects.filter(codebook=codebook, retired_at__isnull=True)}
    unknown = sorted(set(translation.texts) - set(live), key=lambda code: translation.lines[code])
    if unknown:
        code = unknown[0]
        raise CodebookError("file", f"{name}:{translation.lines[code]}: code: {code} is not a category in use in "
                                    f"this codebook")
    missing = sorted(set(live) - set(translation.texts))
    if missing:
        raise CodebookError("file", f"{name}: it lacks {len(missing)} categories in use ({', '.join(missing[:5])}"
                                    f"{', …' if len(missing) > 5 else ''}); download the file again")
    others = Category.objects.filter(codebook=codebook, retired_at__isnull=False).filter(_any_second())
    if codebook.second_language and translation.language != codebook.second_language and others.exists():
        raise CodebookError("second_language", f"this codebook's second language is {codebook.second_language}; "
                                               "its retired categories have texts in it")
    before, after = [], []
    for code, texts in translation.texts.items():
        category = live[code]
        if all(getattr(category, field) == texts[field] for field in SECOND):
            continue
        before.append(_snapshot(category))
        for field in SECOND:
            setattr(category, field, texts[field])
        category.save(update_fields=list(SECOND))
        after.append(_snapshot(category))
    if not after and codebook.second_language == translation.language:
        raise CodebookError("file", f"{name}: every text in it is the codebook's already; nothing was changed")
    if codebook.second_language != translation.language:
        codebook.second_language = translation.language
        codebook.save(update_fields=["second_language"])
    _log(codebook, user, ChangeLogEntry.Kind.TRANSLATE, before, after, reason)
    return len(after)
