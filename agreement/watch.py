"""While the independent round runs: how often the raters agree on a report's type, per type, and how often a
report is tied, each with a confidence sequence that may be read after every label (stats.confseq).

The lead reads these after every label, and a fixed-n interval read that way is no longer 95 %. Each report is
counted once every rater of the round has labeled it, in the order the reports became complete: queues deal the
reports in a seeded random order, so the complete ones are a sample of the round's reports drawn without
replacement. Per type the reports are those whose plurality type it is (untied), whose number is not known in
advance: their sequence treats them as drawn from reports like these, with replacement.
"""
from __future__ import annotations

from collections import Counter

from annotation.models import NOT_RELEVANT, Round
from annotation.selectors.labels import counted_in_round
from stats.confseq import sequence
from taxonomy.codes import sort_key

METHOD = ("each report counted once every rater of the round has labeled it, in the order reports became "
          "complete; 95 % betting confidence sequences (Waudby-Smith & Ramdas), without replacement from the "
          "round's reports for the whole round, with replacement per type")


def _share(x: list[float], population: int | None) -> dict:
    if not x:
        return {"share": None, "n": 0, "low": None, "high": None}
    low, high = sequence(x, population)
    if low[-1] > high[-1]:
        # Every share the labels allow is excluded: the reports did not complete in a random order (or the
        # one chance in twenty came up). No interval is given then.
        return {"share": sum(x) / len(x), "n": len(x), "low": None, "high": None, "empty": True}
    return {"share": sum(x) / len(x), "n": len(x), "low": float(low[-1]), "high": float(high[-1])}


def round_watch(round: Round) -> dict | None:
    """The round's type agreement and tie rate, overall and per type, with their confidence sequences; None for
    a round that is not an open independent one."""
    if round.kind != Round.Kind.INDEPENDENT or not round.is_open:
        return None
    given: dict[int, list[str]] = {}
    completed: dict[int, object] = {}
    raters = set()
    for issue_id, annotator_id, code, relevant, made in (
            counted_in_round(round).order_by().values_list("issue_id", "annotator_id", "type__code", "is_relevant",
                                                           "created_at").iterator(chunk_size=5000)):
        given.setdefault(issue_id, []).append(code if relevant else NOT_RELEVANT)
        completed[issue_id] = max(completed.get(issue_id, made), made)
        raters.add(annotator_id)
    m = len(raters)
    population = round.study.issues.count()
    complete = sorted((completed[i], i) for i, codes in given.items() if m >= 2 and len(codes) == m)
    agree, tied, per_type = [], [], {}
    for _, issue_id in complete:
        counts = Counter(given[issue_id]).most_common()
        is_tied = len(counts) > 1 and counts[0][1] == counts[1][1]
        agree.append(float(len(counts) == 1))
        tied.append(float(is_tied))
        if not is_tied:
            per_type.setdefault(counts[0][0], []).append(float(len(counts) == 1))
    return {
        "raters": m, "complete": len(complete), "population": population, "method": METHOD,
        "agreement": _share(agree, max(population, len(agree))),
        "ties": _share(tied, max(population, len(tied))),
        "per_type": [{"type": code, **_share(x, None)} for code, x in sorted(per_type.items(),
                                                                               key=lambda kv: sort_key(kv[0]))],
    }
