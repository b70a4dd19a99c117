"""Changes to a study's codebook by its lead, each with a reason, each a new revision in the change log
(the study's Table 2). Splits, merges and retirements send the labels that used the old
categories back to their annotators' queues; renames and clarifications keep labels as they are."""
from __future__ import annotations

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from annotation.models import Study
from annotation.permissions import can_manage
from annotation.services.queues import requeue
from concord.audit import record
from concord.errors import FieldError
from concord.textcheck import fitted
from taxonomy.languages import SECOND
from taxonomy.models import Category, Codebook
from taxonomy.services import CodebookError, add_category

from ..models import ChangeLogEntry, Proposal
from ..wording import PILOT_REASON


def _snapshot(category: Category) -> dict:
    # The second language's texts only where there are some: most codebooks have none.
    return {"code": category.code, "name": category.name, "definition": category.definition,
            "inclusion": category.inclusion, "exclusion": category.exclusion,
            **{field: getattr(category, field) for field in SECOND if getattr(category, field)}}


def _check(study, user, reason: str, expected_revision: int | None = None) -> Codebook:
    if not can_manage(user, study):
        raise PermissionDenied("Only the study's lead or an admin changes its codebook.")
    if not reason.strip():
        raise CodebookError("reason", "every change to the codebook needs a reason")
    if study.codebook.studies.exclude(pk=study.pk).exists():
        raise CodebookError("codebook", f"{study.codebook} is shared with other studies; a study set up in Concord "
                            "gets its own copy")
    # Locking the codebook row orders concurrent changes: each gets its own revision.
    codebook = Codebook.objects.select_for_update().get(pk=study.codebook_id)
    if expected_revision is not None and codebook.revision != expected_revision:
        # A double click, a resent form, or someone else's change since the page was shown.
        raise CodebookError("revision", f"the codebook is at revision {codebook.revision} now, not "
                            f"{expected_revision} as when this page was shown; nothing was changed. Look at it "
                            "again before changing it.")
    return codebook


def _log(codebook: Codebook, user, kind: str, before: list, after: list, reason: str, proposal=None,
         requeued: int = 0, quote=None, evidence: dict | None = None) -> ChangeLogEntry:
    codebook.revision += 1
    codebook.save(update_fields=["revision"])
    record(f"codebook {kind}", user, None, codebook=codebook.pk, revision=codebook.revision,
           categories=[c.get("code") for c in [*before, *after] if isinstance(c, dict)], requeued=requeued)
    return ChangeLogEntry.objects.create(codebook=codebook, revision=codebook.revision, kind=kind, before=before,
                                         after=after, reason=reason.strip(), proposal=proposal, made_by=user,
                                         requeued=requeued, quote=quote or (proposal.quote if proposal else None),
                                         evidence=evidence or {})


def _live(study, category_id: int) -> Category:
    category = Category.objects.filter(pk=category_id, codebook=study.codebook_id, retired_at__isnull=True).first()
    if category is None:
        raise CodebookError("category", f"no current category with id {category_id} in this study's codebook")
    return category


def _requeue(study, categories: list[Category], verb: str, below: list[Category] = ()) -> int:
    codes = " and ".join(c.code for c in categories)
    also = " (with its sub-themes)" if below else ""
    return requeue(study, [c.pk for c in [*categories, *below]], f"{codes} was {verb}{also}: choose again")


@transaction.atomic
def add_in_pilot(study, user, parent_id: int, name: str, definition: str, reason: str = "",
                 expected_revision: int | None = None) -> Category:
    if study.phase != Study.Phase.PILOT:
        raise CodebookError("phase", "after the pilot the codebook grows only through a proposal every annotator "
                            "votes for")
    codebook = _check(study, user, reason or PILOT_REASON, expected_revision)
    category = add_category(_live(study, parent_id), name, definition)
    _log(codebook, user, ChangeLogEntry.Kind.ADD, [], [_snapshot(category)], reason or PILOT_REASON)
    return category


@transaction.atomic
def apply_proposal(proposal: Proposal, user, reason: str = "", expected_revision: int | None = None) -> Category:
    """Only the lead, and only a passed proposal."""
    proposal = Proposal.objects.select_for_update().select_related("study", "parent").get(pk=proposal.pk)
    codebook = _check(proposal.study, user, reason or "passed unanimously", expected_revision)
    if proposal.status != Proposal.Status.PASSED:
        raise CodebookError("proposal", f"it is {proposal.get_status_display().lower()}; only a proposal every "
                            "member voted for can be added")
    category = add_category(proposal.parent, proposal.name, proposal.definition)
    category.examples.set(proposal.examples.all())
    proposal.status, proposal.category = Proposal.Status.APPLIED, category
    proposal.save(update_fields=["status", "category"])
    _log(codebook, user, ChangeLogEntry.Kind.ADD, [], [_snapshot(category)], reason or "passed unanimously",
         proposal=proposal)
    return category


@transaction.atomic
def rename(study, user, category_id: int, name: str, reason: str, quote=None,
           expected_revision: int | None = None) -> Category:
    codebook = _check(study, user, reason, expected_revision)
    category = _live(study, category_id)
    if not name.strip():
        raise CodebookError("name", "the new name is empty")
    try:
        fitted(name.strip(), "name", Category._meta.get_field("name").max_length)
    except FieldError as exc:
        raise CodebookError(exc.field, exc.message) from exc
    before = _snapshot(category)
    category.name = name.strip()
    category.save(update_fields=["name"])
    _log(codebook, user, ChangeLogEntry.Kind.RENAME, [before], [_snapshot(category)], reason, quote=quote)
    return category


@transaction.atomic
def clarify(study, user, category_id: int, reason: str, *, definition: str, inclusion: str = "",
            exclusion: str = "", quote=None, expected_revision: int | None = None) -> Category:
    codebook = _check(study, user, reason, expected_revision)
    category = _live(study, category_id)
    before = _snapshot(category)
    category.definition, category.inclusion, category.exclusion = definition.strip(), inclusion.strip(), \
        exclusion.strip()
    category.save(update_fields=["definition", "inclusion", "exclusion"])
    _log(codebook, user, ChangeLogEntry.Kind.CLARIFY, [before], [_snapshot(category)], reason, quote=quote)
    return category


@transaction.atomic
def translate(study, user, category_id: int, reason: str, *, language: str, texts: dict[str, str], quote=None,
              expected_revision: int | None = None) -> Category:
    """Give a category its name, definition and notes in the codebook's second language (`texts`, keyed by the
    fields of SECOND; "" clears one). A codebook has one second language: it is set by its first translation and
    changes only while no category has a text in it. Labels stay: the category means what it meant."""
    codebook = _check(study, user, reason, expected_revision)
    category = _live(study, category_id)
    codes = [code for code, _ in settings.LANGUAGES]
    if language not in codes:
        raise CodebookError("second_language", f"choose one of {', '.join(codes)}")
    if codebook.second_language and language != codebook.second_language and Category.objects.filter(
            codebook=codebook).exclude(pk=category.pk).filter(_any_second()).exists():
        raise CodebookError("second_language", f"this codebook's second language is {codebook.second_language}; "
                                               "its other categories have texts in it")
    try:
        cleaned = {field: fitted(texts.get(field, "").strip(), field, Category._meta.get_field(field).max_length)
                   for field in SECOND}
    except FieldError as exc:
        raise CodebookError(exc.field, exc.message) from exc
    before = _snapshot(category)
    for field, value in cleaned.items():
        setattr(category, field, value)
    category.save(update_fields=list(SECOND))
    if codebook.second_language != language:
        codebook.second_language = language
        codebook.save(update_fields=["second_language"])
    _log(codebook, user, ChangeLogEntry.Kind.TRANSLATE, [before], [_snapshot(category)], reason, quote=quote)
    return category


def _any_second() -> Q:
    query = Q()
    for field in SECOND:
        query |= ~Q(**{field: ""})
    return query


# Long enough for a page of guidance with examples; a codebook's definitions carry the rest.
INSTRUCTIONS_LIMIT = 50_000


@transaction.atomic
def set_instructions(study, user, text: str, reason: str, expected_revision: int | None = None) -> Codebook:
    """The study's instructions to annotators (Markdown), as a new revision of its codebook: the change log keeps
    every version, and each annotator sees the new ones on their next visit."""
    codebook = _check(study, user, reason, expected_revision)
    text = text.strip()
    try:
        fitted(text, "instructions", INSTRUCTIONS_LIMIT)
    except FieldError as exc:
        raise CodebookError(exc.field, exc.message) from exc
    if text == codebook.instructions:
        raise CodebookError("instructions", "they are the same as before; nothing was changed")
    before = [{"instructions": codebook.instructions}]
    _log(codebook, user, ChangeLogEntry.Kind.INSTRUCTIONS, before, [{"instructions": text}], reason)
    codebook.instructions, codebook.instructions_revision = text, codebook.revision
    codebook.save(update_fields=["instructions", "instructions_revision"])
    return codebook


def _retire(categories: list[Category]) -> None:
    now = timezone.now()
    ids = [c.pk for c in categories]
    # Retiring a theme retires its sub-themes with it.
    Category.objects.filter(pk__in=ids).update(retired_at=now)
    Category.objects.filter(parent_id__in=ids, retired_at__isnull=True).update(retired_at=now)


@transaction.atomic
def split(study, user, category_id: int, parts: list[tuple[str, str]], reason: str, quote=None,
          expected_revision: int | None = None) -> list[Category]:
    """One category becomes several siblings; its labels go back to be chosen again."""
    codebook = _check(study, user, reason, expected_revision)
    category = _live(study, category_id)
    if len(parts) < 2:
        raise CodebookError("parts", "a split makes at least two categories")
    # A split theme's sub-themes go with it: their labels come back too, to be chosen under the new themes.
    below = list(category.children.filter(retired_at__isnull=True))
    _retire([category])
    made = [add_category(category.parent, name, definition) for name, definition in parts]
    requeued = _requeue(study, [category], "split", below)
    _log(codebook, user, ChangeLogEntry.Kind.SPLIT, [_snapshot(category)], [_snapshot(c) for c in made], reason,
         requeued=requeued, quote=quote)
    return made


@transaction.atomic
def merge(study, user, category_ids: list[int], name: str, definition: str, reason: str, quote=None,
          expected_revision: int | None = None) -> Category:
    """Several siblings become one; their labels go back to be chosen again."""
    codebook = _check(study, user, reason, expected_revision)
    sources = [_live(study, pk) for pk in dict.fromkeys(category_ids)]
    if len(sources) < 2:
        raise CodebookError("categories", "a merge takes at least two categories")
    if len({c.parent_id for c in sources}) != 1:
        raise CodebookError("categories", "only categories under the same parent can be merged")
    below = [child for c in sources for child in c.children.filter(retired_at__isnull=True)]
    _retire(sources)
    made = add_category(sources[0].parent, name, definition)
    requeued = _requeue(study, sources, "merged", below)
    _log(codebook, user, ChangeLogEntry.Kind.MERGE, [_snapshot(c) for c in sources], [_snapshot(made)], reason,
         requeued=requeued, quote=quote)
    return made


@transaction.atomic
def retire(study, user, category_id: int, reason: str, quote=None,
           expected_revision: int | None = None) -> Category:
    codebook = _check(study, user, reason, expected_revision)
    category = _live(study, category_id)
    below = list(category.children.filter(retired_at__isnull=True))
    _retire([category])
    requeued = _requeue(study, [category], "retired", below)
    _log(codebook, user, ChangeLogEntry.Kind.RETIRE, [_snapshot(category)], [], reason, requeued=requeued,
         quote=quote)
    return category


@transaction.atomic
def clarify_pair(study, user, first_id: int, second_id: int, reason: str, *, first: dict[str, str],
                 second: dict[str, str], evidence: dict, expected_revision: int | None = None) -> ChangeLogEntry:
    """Both definitions of a pair of categories people confused, clarified in one revision whose change log entry
    keeps the pair's agreement evidence. `first` and `second`: each one's definition, inclusion and exclusion."""
    codebook = _check(study, user, reason, expected_revision)
    categories = [_live(study, first_id), _live(study, second_id)]
    if categories[0].pk == categories[1].pk:
        raise CodebookError("categories", "a pair is two categories")
    before = [_snapshot(c) for c in categories]
    for category, texts in zip(categories, (first, second), strict=True):
        category.definition, category.inclusion, category.exclusion = (
            texts.get(part, "").strip() for part in ("definition", "inclusion", "exclusion"))
    after = [_snapshot(c) for c in categories]
    if before == after:
        raise CodebookError("definition", "both definitions are as they were; nothing was changed")
    for category in categories:
        category.save(update_fields=["definition", "inclusion", "exclusion"])
    return _log(codebook, user, ChangeLogEntry.Kind.CLARIFY, before, after, reason, evidence=evidence)
