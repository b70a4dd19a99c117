"""What the votes say: each annotator's current vote per report, the reports still tied, and those the lead
must decide. Read by adjudication, closing and comparisons; shown only to those who may see every label."""
from __future__ import annotations

from collections import defaultdict

from stats.ties import controversial_levels

from ..models import NOT_RELEVANT, FinalLabel, Label, Round, SeatLabel, Study
from .labels import counted_labels

Vote = tuple  # (type id or NR, theme id, sub-theme id)


def current_votes(study: Study, machines: bool = True) -> dict[int, dict[int, Vote]]:
    """Each annotator's vote per report: their review re-label if they made one, else their independent
    label. The pilot does not vote. With `machines`, a machine standing in a person's seat votes there too, keyed
    by the seat's id negated (never a person's id), unless the person voted on the report after all (a review
    re-label of a tied report: theirs counts, not the machine's)."""
    kinds = {Round.Kind.INDEPENDENT: 0, Round.Kind.REVIEW: 1}
    votes: dict[int, dict[int, tuple[int, Vote]]] = defaultdict(dict)
    rows = counted_labels(Label.objects.filter(study=study, round__kind__in=list(kinds))).order_by().values_list(
        "issue_id", "annotator_id", "round__kind", "round__number", "is_relevant", "type_id", "theme_id",
        "sub_theme_id")
    for issue_id, annotator_id, kind, number, relevant, type_id, theme_id, sub_id in rows.iterator(chunk_size=10000):
        rank = (kinds[kind], number)
        vote = (type_id, theme_id, sub_id) if relevant else (NOT_RELEVANT, None, None)
        held = votes[issue_id].get(annotator_id)
        if held is None or held[0] < rank:
            votes[issue_id][annotator_id] = (rank, vote)
    out = {i: {a: v for a, (_, v) in by.items()} for i, by in votes.items()}
    if machines:
        seated = SeatLabel.objects.filter(seat__study=study, seat__given_back_at__isnull=True).order_by().values_list(
            "seat_id", "seat__annotator_id", "issue_id", "is_relevant", "type_id", "theme_id", "sub_theme_id")
        for seat_id, annotator_id, issue_id, relevant, type_id, theme_id, sub_id in seated.iterator(chunk_size=10000):
            by = out.setdefault(issue_id, {})
            if annotator_id not in by:
                by[-seat_id] = (type_id, theme_id, sub_id) if relevant else (NOT_RELEVANT, None, None)
    return out


def machine_votes(votes: dict[int, Vote]) -> int:
    """How many of one report's votes are machines' in people's seats."""
    return sum(1 for voter in votes if voter < 0)


def still_tied(study: Study, votes: dict[int, dict[int, Vote]] | None = None) -> dict[int, list[str]]:
    """Reports whose current votes tie at some level, with the levels, in report order. `votes` saves reading
    them again when the caller has them."""
    tied = {}
    for issue_id, by in sorted((current_votes(study) if votes is None else votes).items()):
        levels = controversial_levels(list(by.values()))
        if levels:
            tied[issue_id] = levels
    return tied


def needing_decision(study: Study) -> dict[int, list[str]]:
    """Reports the lead must decide before the study closes: those still tied, and those nobody labeled."""
    decided = set(FinalLabel.objects.filter(study=study).values_list("issue_id", flat=True))
    votes = current_votes(study)
    result = {i: levels for i, levels in still_tied(study, votes).items() if i not in decided}
    for issue_id in study.issues.order_by("id").values_list("id", flat=True):
        if issue_id not in votes and issue_id not in decided:
            result[issue_id] = ["no label"]
    return result
