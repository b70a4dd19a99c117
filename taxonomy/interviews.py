"""Stage II: interview participants, sessions, rankings and coded quotes, their import (the study's
CodeBook.csv and interviewee table) and the aggregated results."""
from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from pathlib import Path

from django.db import transaction

from concord.textcheck import length_problem, text_problem

from .models import Category, GuideQuestion, InterviewGuide, InterviewSession, Participant, Quote

CODE = re.compile(r"^[A-Z](?:\.\d+(?:\.[ivxlcdm]+)?)?$")


class InterviewError(ValueError):
    """Input that cannot be recorded; the message names the row, field or code."""


@dataclass
class ImportReport:
    participants: int = 0
    quotes: int = 0
    unknown: list[tuple[int, str]] = field(default_factory=list)  # (row, code) of codes not in the codebook


def _codes(study) -> dict[str, Category]:
    return {c.code: c for c in Category.objects.filter(taxonomy=study.taxonomy_id, retired_at__isnull=True)}


def split_codes(text: str) -> list[str]:
    return [c.strip() for c in re.split(r"[,;]", text) if c.strip()]


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


def _rows(path: Path) -> list[dict[str, str]]:
    if path.suffix.lower() == ".xlsx":
        import openpyxl

        try:
            sheet = openpyxl.load_workbook(path, read_only=True, data_only=True).worksheets[0]
            values = [["" if v is None else str(v).strip() for v in row] for row in sheet.iter_rows(values_only=True)]
        except Exception as exc:  # noqa: BLE001 - openpyxl raises many kinds for a bad file
            raise InterviewError(f"{path.name}: not a readable XLSX workbook ({exc})") from exc
        if not values:
            return []
        header, body = values[0], values[1:]
        return [dict(zip(header, row, strict=False)) for row in body if any(row)]
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise InterviewError(f"{path.name}: cannot be read as UTF-8 text ({exc})") from exc
    reader = csv.DictReader(io.StringIO(text), strict=True)
    try:
        return [{k.strip(): (v or "").strip() for k, v in row.items() if isinstance(k, str)} for row in reader]
    except csv.Error as exc:
        raise InterviewError(f"{path.name}:{reader.line_num}: {exc}") from exc


def _fits(path: Path, line: int, model, values: dict) -> dict:
    """The values, or InterviewError naming the first that its column cannot hold (length, NUL, Unicode)."""
    for name, value in values.items():
        if not isinstance(value, str):
            continue
        limit = model._meta.get_field(name).max_length
        if problem := text_problem(value) or (length_problem(value, limit) if limit else None):
            raise InterviewError(f"{path.name}:{line}: {name}: {problem}")
    return values


def _group(text: str) -> str:
    lowered = text.lower()
    if "developer" in lowered:
        return "developer"
    if "user" in lowered:
        return "user"
    return lowered.strip() or "participant"


@transaction.atomic
def import_quotes(study, path: str | Path) -> ImportReport:
    """CodeBook.csv layout: Participant, Type, Experience Level, Framework Context, Prompt Category, Thematic
    Quote, Linked Taxonomy Node(s), Research Insight. Unknown codes are listed; the quote keeps the others."""
    path = Path(path)
    report = ImportReport()
    known = _codes(study)
    rows = _rows(path)
    needed = {"Participant", "Thematic Quote", "Linked Taxonomy Node(s)"}
    if rows and not needed <= set(rows[0]):
        raise InterviewError(f"{path.name}: line 1: the columns {', '.join(sorted(needed - set(rows[0])))} are "
                             "missing")
    guide = default_guide(study)
    for number, row in enumerate(rows, start=2):
        code = row["Participant"]
        if not code:
            raise InterviewError(f"{path.name}:{number}: Participant: empty (expected a code such as U1)")
        defaults = _fits(path, number, Participant, {"code": code, "group": _group(row.get("Type", "")),
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


def _years(text: str) -> float | None:
    match = re.match(r"\s*(\d{1,3}(?:\.\d{1,2})?)\s*(year|month)", text.lower())
    if not match:
        return None
    value = float(match.group(1))
    return round(value / 12, 2) if match.group(2) == "month" else value


@transaction.atomic
def import_interviewees(study, path: str | Path) -> ImportReport:
    """The interviewee table (CSV or XLSX: Roles, Experience Years for LLMs, Responsibilities). Rows carry no
    participant code: the n-th user row is U<n> and the n-th developer row D<n>, the numbering the study's
    coded quotes use. Gender is not kept."""
    path = Path(path)
    report = ImportReport()
    rows = _rows(path)
    if rows and "Roles" not in rows[0]:
        raise InterviewError(f"{path.name}: line 1: no 'Roles' column")
    seen: dict[str, int] = {}
    for number, row in enumerate(rows, start=2):
        group = _group(row["Roles"])
        seen[group] = seen.get(group, 0) + 1
        code = f"{'U' if group == 'user' else 'D' if group == 'developer' else group[:1].upper()}{seen[group]}"
        role = row["Roles"].split("-", 1)[-1].strip()
        defaults = _fits(path, number, Participant, {"code": code, "group": group, "role": role,
                                                     "tasks": row.get("Responsibilities", "")})
        participant, created = Participant.objects.update_or_create(
            study=study, code=defaults.pop("code"),
            defaults={**defaults, "years": _years(row.get("Experience Years for LLMs", ""))})
        report.participants += created
    return report


def ranking_items(question: GuideQuestion) -> list[str]:
    """The codes a ranking question ranks: the live themes of its type."""
    if question.node is None:
        return []
    return list(question.node.children.filter(retired_at__isnull=True).order_by("position").values_list("code",
                                                                                                         flat=True))


def save_ranking(session: InterviewSession, question: GuideQuestion, order: list[str]):
    from .models import Answer

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
    guide = InterviewGuide.objects.create(study=study, title="Interview guide")
    background = ["What is your current role?", "How many years have you worked with LLMs or DL frameworks?",
                  "Which DL frameworks do you use or develop?", "What LLM-related tasks do you perform or support?"]
    for n, text in enumerate(background):
        GuideQuestion.objects.create(guide=guide, part="Part I. Background", position=n, text=text,
                                     kind=GuideQuestion.Kind.BACKGROUND)
    parts = {"A": "Part II. Questions and usability", "C": "Part III. Bug reports", "B": "Part IV. Requirements"}
    for n, type_ in enumerate(Category.objects.filter(taxonomy=study.taxonomy_id, level=Category.Level.TYPE,
                                                     retired_at__isnull=True).order_by("position")):
        GuideQuestion.objects.create(guide=guide, part=parts.get(type_.code, type_.name), position=10 + n,
                                     text=f"Rank the top 3 {type_.name.lower()} themes by frequency or impact.",
                                     kind=GuideQuestion.Kind.RANKING, node=type_, top=3)
    return guide


def save_answer(session: InterviewSession, question: GuideQuestion, text: str):
    from .models import Answer

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
        _check_question(add)
        node = None
        if add.get("node"):
            node = Category.objects.filter(taxonomy=study.taxonomy_id, code=add["node"].strip(),
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
    return guide


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


def interviews_document(study) -> dict:
    """Participants, sessions with their answers, coded quotes and results, for the corpus export."""
    from .interview_results import results

    participants = []
    for person in Participant.objects.filter(study=study).prefetch_related("sessions__answers__question",
                                                                            "sessions__quotes__nodes"):
        sessions = [{
            "guide_version": s.guide.version if s.guide_id else None,
            "held_on": s.held_on.isoformat() if s.held_on else None,
            "answers": [{"question": a.question.text, "kind": a.question.kind, "text": a.text, "order": a.order}
                        for a in s.answers.all()],
            "quotes": [{"prompt": q.prompt, "text": q.text, "insight": q.insight,
                        "nodes": [n.code for n in q.nodes.all()]} for q in s.quotes.all()],
        } for s in person.sessions.all()]
        participants.append({"code": person.code, "group": person.group, "role": person.role, "years": person.years,
                             "experience": person.experience, "frameworks": person.frameworks, "tasks": person.tasks,
                             "sessions": sessions})
    out = []
    for r in results(study):
        out.append({"question": r.question.text, "type": r.question.node.code if r.question.node else None,
                    "groups": [{"group": g.group, "participants": g.participants, "mean_rank": g.mean_rank,
                                "borda": g.borda, "kendalls_w": g.concordance.w, "chi2": g.concordance.chi2,
                                "df": g.concordance.df, "p": g.concordance.p} for g in r.groups],
                    "spearman": None if r.divergence is None else {"rho": r.divergence.rho, "p": r.divergence.p,
                                                                   "themes": r.divergence.items,
                                                                   "largest": r.divergence.largest}})
    return {"participants": participants, "results": out}
