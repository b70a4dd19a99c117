"""Stage II's writes: participants, interview sessions, answers and rankings, coded quotes, the guide's
versions, and the imports of the study's interview files (CodeBook.csv and the interviewee table)."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from django.db import transaction

from concord.textcheck import length_problem, text_problem
from taxonomy.models import Category

from . import guide_words
from .models import Answer, GuideQuestion, InterviewGuide, InterviewSession, Participant, Quote
from .selectors import ranking_items
from .tables import InterviewError, group_of, read_rows, split_codes, years_of


@dataclass
class ImportReport:
    participants: int = 0
    quotes: int = 0
    unknown: list[tuple[int, str]] = field(default_factory=list)  # (row, code) of codes not in the codebook


def _codes(study) -> dict[str, Category]:
    return {c.code: c for c in Category.objects.filter(codebook=study.codebook_id, retired_at__isnull=True)}


def session_for(participant: Participant, guide: InterviewGuide | None = None, interviewer=None) -> InterviewSession:
    """The participant's interview, started on the current guide if there is none yet."""
    return participant.sessions.first() or InterviewSession.objects.create(participant=participant, guide=guide,
                                                                           interviewer=interviewer)


def add_quote(session: InterviewSession, text: str, codes: list[str], insight: str = "", prompt: str = "") -> Quote:
    """A quote coded to codebook nodes; a code the codebook lacks is refused, with the code named."""
    known = _codes(session.participant.study)
    unknown = [c for c in codes if c not in known]
    if unknown:
        raise InterviewError(f"codes: {', '.join(unknown)} {'is' if len(unknown) == 1 else 'are'} not in the "
                             "study's codebook")
    if not text.strip():
        raise InterviewError("text: the quote is empty")
    quote = Quote.objects.create(session=session, text=text.strip(), insight=insight.strip(), prompt=prompt.strip())
    quote.nodes.set([known[c] for c in codes])
    return quote


def _fits(path: Path, line: int, model, values: dict) -> dict:
    """The values, or InterviewError naming the first that its column cannot hold (length, NUL, Unicode)."""
    for name, value in values.items():
        if not isinstance(value, str):
            continue
        limit = model._meta.get_field(name).max_length
        if problem := text_problem(value) or (length_problem(value, limit) if limit else None):
            raise InterviewError(f"{path.name}:{line}: {name}: {problem}")
    return values


@transaction.atomic
def import_quotes(study, path: str | Path) -> ImportReport:
    """CodeBook.csv layout: Participant, Type, Experience Level, Framework Context, Prompt Category, Thematic
    Quote, Linked Taxonomy Node(s), Research Insight. Unknown codes are listed; the quote keeps the others."""
    path = Path(path)
    report = ImportReport()
    known = _codes(study)
    rows = read_rows(path)
    needed = {"Participant", "Thematic Quote", "Linked Taxonomy Node(s)"}
    if rows and not needed <= set(rows[0]):
        raise InterviewError(f"{path.name}: line 1: the columns {', '.join(sorted(needed - set(rows[0])))} are "
                             "missing")
    guide = default_guide(study)
    for number, row in enumerate(rows, start=2):
        code = row["Participant"]
        if not code:
            raise InterviewError(f"{path.name}:{number}: Participant: empty (expected a code such as U1)")
        defaults = _fits(path, number, Participant, {"code": code, "group": group_of(row.get("Type", "")),
                                                     "experience": row.get("Experience Level", ""),
                                                     "frameworks": row.get("Framework Context", "")})
        quote = _fits(path, number, Quote, {"text": row["Thematic Quote"], "insight": row.get("Research Insight", ""),
                                            "prompt": row.get("Prompt Category", "")})
        participant, created = Participant.objects.get_or_create(study=study, code=defaults.pop("code"),
                                                                 defaults=defaults)
        report.participants += created
        codes = split_codes(row["Linked Taxonomy Node(s)"])
        report.unknown += [(number, c) for c in codes if c not in known]
        quote = Quote.objects.create(session=session_for(participant, guide), **quote)
        quote.nodes.set([known[c] for c in codes if c in known])
        report.quotes += 1
    return report


@transaction.atomic
def import_interviewees(study, path: str | Path) -> ImportReport:
    """The interviewee table (CSV or XLSX: Roles, Experience Years for LLMs, Responsibilities). Rows carry no
    participant code: the n-th user row is U<n> and the n-th developer row D<n>, the numbering the study's
    coded quotes use. Gender is not kept."""
    path = Path(path)
    report = ImportReport()
    rows = read_rows(path)
    if rows and "Roles" not in rows[0]:
        raise InterviewError(f"{path.name}: line 1: no 'Roles' column")
    seen: dict[str, int] = {}
    for number, row in enumerate(rows, start=2):
        group = group_of(row["Roles"])
        seen[group] = seen.get(group, 0) + 1
        code = f"{'U' if group == 'user' else 'D' if group == 'developer' else group[:1].upper()}{seen[group]}"
        role = row["Roles"].split("-", 1)[-1].strip()
        defaults = _fits(path, number, Participant, {"code": code, "group": group, "role": role,
                                                     "tasks": row.get("Responsibilities", "")})
        participant, created = Participant.objects.update_or_create(
            study=study, code=defaults.pop("code"),
            defaults={**defaults, "years": years_of(row.get("Experience Years for LLMs", ""))})
        report.participants += created
    return report


def save_ranking(session: InterviewSession, question: GuideQuestion, order: list[str]):
    items = ranking_items(question)
    wrong = [c for c in order if c not in items]
    if wrong:
        raise InterviewError(f"ranking: {', '.join(wrong)} {'is' if len(wrong) == 1 else 'are'} not a theme of "
                             f"{question.node.code if question.node else 'this question'}")
    if len(set(order)) != len(order):
        raise InterviewError("ranking: a theme is ranked twice")
    answer, _ = Answer.objects.update_or_create(session=session, question=question, defaults={"order": order})
    return answer


def default_guide(study) -> InterviewGuide:
    """The study's four-part guide: background, then a top-3 ranking of the themes of each type."""
    guide = study.guides.order_by("-version").first()
    if guide is not None:
        return guide
    guide = InterviewGuide.objects.create(study=study, title=guide_words.TITLE)
    for n, text in enumerate(guide_words.BACKGROUND):
        GuideQuestion.objects.create(guide=guide, part=guide_words.BACKGROUND_PART, position=n, text=text,
                                     kind=GuideQuestion.Kind.BACKGROUND)
    for n, type_ in enumerate(Category.objects.filter(codebook=study.codebook_id, level=Category.Level.TYPE,
                                                     retired_at__isnull=True).order_by("position")):
        GuideQuestion.objects.create(guide=guide, part=guide_words.PARTS.get(type_.code, type_.name),
                                     position=10 + n, text=guide_words.ranking_text(type_.name),
                                     kind=GuideQuestion.Kind.RANKING, node=type_, top=3)
    return guide


def save_answer(session: InterviewSession, question: GuideQuestion, text: str):
    answer, _ = Answer.objects.update_or_create(session=session, question=question, defaults={"text": text.strip()})
    return answer


@transaction.atomic
def revise_guide(study, *, add: dict | None = None, remove: int | None = None) -> InterviewGuide:
    """A guide changes by becoming a new version, so that sessions keep the questions they were asked."""
    current = default_guide(study)
    guide = InterviewGuide.objects.create(study=study, version=current.version + 1, title=current.title)
    for question in current.questions.all():
        if question.pk != remove:
            GuideQuestion.objects.create(guide=guide, part=question.part, position=question.position,
                                         text=question.text, kind=question.kind, group=question.group,
                                         node=question.node, top=question.top)
    if add:
        _add_question(study, guide, add)
    return guide


def _add_question(study, guide: InterviewGuide, add: dict) -> None:
    _check_question(add)
    node = None
    if add.get("node"):
        node = Category.objects.filter(codebook=study.codebook_id, code=add["node"].strip(),
                                       retired_at__isnull=True).first()
        if node is None:
            raise InterviewError(f"node: {add['node']} is not in the study's codebook")
    kind = add.get("kind") or GuideQuestion.Kind.OPEN
    if kind == GuideQuestion.Kind.RANKING and (node is None or node.level == Category.Level.SUB_THEME):
        raise InterviewError("node: a ranking ranks the themes of a type, or the sub-themes of a theme; name it")
    if not (add.get("text") or "").strip():
        raise InterviewError("text: the question is empty")
    last = guide.questions.order_by("-position").values_list("position", flat=True).first() or 0
    GuideQuestion.objects.create(guide=guide, part=(add.get("part") or "").strip() or "Other questions",
                                 position=last + 1, text=add["text"].strip(), kind=kind,
                                 group=(add.get("group") or "").strip(), node=node,
                                 top=int(add.get("top") or 3))


def _check_question(add: dict) -> None:
    """A new question's fields fit their columns and choices, or InterviewError names the field."""
    for name in ("part", "text", "group", "node"):
        limit = GuideQuestion._meta.get_field(name).max_length if name != "node" else None
        if problem := text_problem(add.get(name) or "") or (length_problem(add.get(name) or "", limit) if limit
                                                             else None):
            raise InterviewError(f"{name}: {problem}")
    if add.get("kind") and add["kind"] not in GuideQuestion.Kind.values:
        raise InterviewError(f"kind: {str(add['kind'])[:40]!r} is not one of {', '.join(GuideQuestion.Kind.values)}")
    top = str(add.get("top") or "3")
    if not (top.isascii() and top.isdigit() and int(top) <= 100):
        raise InterviewError(f"top: {top[:40]!r} is not a number of places (0 to 100)")


def add_participant(study, *, code: str, group: str, role: str = "", years: str = "", frameworks: str = "",
                    tasks: str = "") -> Participant:
    """A participant added by hand; InterviewError names a field that is missing, too long or taken."""
    values = {"code": code.strip(), "group": group.strip().lower(), "role": role.strip(),
              "frameworks": frameworks.strip(), "tasks": tasks.strip()}
    too_long = [f"{name}: {problem}" for name in ("code", "group", "role", "frameworks")
                if (problem := length_problem(values[name], Participant._meta.get_field(name).max_length))]
    if too_long:
        raise InterviewError("; ".join(too_long))
    if not values["code"] or not values["group"]:
        raise InterviewError("A participant needs a code (such as U12) and a group.")
    if Participant.objects.filter(study=study, code=values["code"]).exists():
        raise InterviewError(f"{values['code']} exists already.")
    return Participant.objects.create(study=study, years=_typed_years(years.strip()), **values)


def _typed_years(text: str) -> float | None:
    """Years of experience typed in a form: a plain number up to 100, else unknown."""
    if text.isascii() and text.replace(".", "", 1).isdigit() and len(text) <= 6 and float(text) <= 100:
        return float(text)
    return None
