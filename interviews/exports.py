"""The interviews in files: the results table (CSV rows) and the whole of Stage II for the corpus export."""
from __future__ import annotations

from .models import Participant
from .selectors import results

RESULT_COLUMNS = ["type", "group", "participants", "theme", "mean_rank", "borda", "kendalls_w", "chi2", "df", "p"]


def results_rows(study):
    for result in results(study):
        for group in result.groups:
            c = group.concordance
            for item in result.items:
                yield [result.question.node.code if result.question.node else "", group.group, group.participants,
                       item, round(group.mean_rank.get(item, 0), 4), group.borda.get(item, 0),
                       "" if c.w is None else round(c.w, 4), "" if c.chi2 is None else round(c.chi2, 4), c.df,
                       "" if c.p is None else c.p]


def interviews_document(study) -> dict:
    """Participants, sessions with their answers, coded quotes and results, for the corpus export."""
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
