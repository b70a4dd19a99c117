"""Where a study stands in its phases and what moving on would do, said before the lead confirms it."""
from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

from ..models import Queue, Round, Study
from .queue import sent_back

Phase = Study.Phase
NEXT_PHASE = {
    Phase.PILOT: Phase.INDEPENDENT,
    Phase.INDEPENDENT: Phase.REVIEW,
    Phase.REVIEW: Phase.ADJUDICATION,
    Phase.ADJUDICATION: Phase.CLOSED,
}
# Rounds whose queues must be finished before they close; re-labeling in review is optional.
COMPLETE_BEFORE_CLOSING = {Round.Kind.PILOT, Round.Kind.INDEPENDENT}


@dataclass(frozen=True)
class Missing:
    username: str
    count: int


def open_round(study: Study) -> Round | None:
    return study.rounds.filter(closed_at__isnull=True).order_by("-number").first()


def missing_labels(round: Round, blind_viewer=None) -> list[Missing]:
    """Who still has reports to label in the round, and how many. For a viewer who labels blind, another
    rater's reports that a codebook change sent back count as labeled: how many there are would tell how many of
    that rater's labels used the changed category."""
    # A lead who stopped labeling to see everything has nothing more to give.
    rows = (Queue.objects.filter(round=round, stopped_at__isnull=True).select_related("annotator")
            .order_by("annotator__username"))
    back = sent_back(round) if blind_viewer is not None else {}
    out = []
    for q in rows:
        left = q.total - q.done
        if q.annotator_id != getattr(blind_viewer, "pk", None):
            left -= back.get(q.annotator_id, 0)
        if left > 0:
            out.append(Missing(q.annotator.username, left))
    return out


@dataclass(frozen=True)
class NextStep:
    button: str  # what the button does, in its own words
    consequences: list[str]  # what the lead confirms, missing labels first


def next_step(study: Study, round: Round | None, missing: list[Missing]) -> NextStep | None:
    """The move to the next phase, as the study page offers it; None once the study is closed."""
    if study.phase not in NEXT_PHASE:
        return None
    number = round.number if round else None
    said = []
    if missing and round is not None and round.kind in COMPLETE_BEFORE_CLOSING:
        total = sum(m.count for m in missing)
        who = ", ".join(f"{m.username} {m.count}" for m in missing)
        said.append(ngettext("%(total)s label is still missing in round %(number)s (%(who)s): it stays missing.",
                             "%(total)s labels are still missing in round %(number)s (%(who)s): they stay missing.",
                             total) % {"total": total, "number": number, "who": who})
    if study.phase == Phase.PILOT:
        button = _("Close the pilot and start the independent round")
        said.append(_("The pilot (round %(number)s) closes. The independent round deals the reports to every "
                      "annotator's queue; everyone labels blind.") % {"number": number})
    elif study.phase == Phase.INDEPENDENT:
        button = _("Close round %(number)s and start the review") % {"number": number}
        said.append(_("Round %(number)s closes: its labels can no longer change, and every member sees everyone's "
                      "labels. The reports whose votes tie go to a review round, where anyone may re-label them.")
                    % {"number": number})
    elif study.phase == Phase.REVIEW:
        button = _("Close the review and start adjudication")
        said.append(_("The review round closes. The reports still tied then wait for your decision, with a "
                      "rationale, on the adjudication page."))
    else:
        button = _("Close the study and write the final labels")
        said.append(_("The study closes: every report gets its final label from its votes or your decision, and "
                      "nothing can be labeled or changed after."))
    return NextStep(button, said)


@dataclass(frozen=True)
class WhatNext:
    said: str  # the next step of the method for this study, in a sentence
    go: str  # the page that takes it: "queue", "members", "review_list", "adjudication_list" or "corpus"
    go_label: str


def what_next(study: Study, round: Round | None, missing: list[Missing], own_left: int | None) -> WhatNext | None:
    """What the lead does next, as the study page leads with it; `own_left` is what is left of the lead's own
    queue in the round (None: no queue)."""
    if study.phase == Phase.PILOT:
        if own_left is None:  # an admin, or a lead who has finished the sample
            return WhatNext(_("The lead labels the pilot sample and shapes the codebook; then close the pilot "
                              "below."), "", "")
        return WhatNext(_("Label the pilot sample (%(left)s left), adding themes and sub-themes from the labeling "
                          "page as the reports call for them; then close the pilot below.") % {"left": own_left},
                        "queue", _("Label the pilot"))
    if study.phase == Phase.INDEPENDENT:
        if own_left:
            return WhatNext(_("Label your queue (%(left)s left), blind like everyone; then close the round below "
                              "once the others are done too.") % {"left": own_left}, "queue",
                            pgettext("verb", "Label"))
        if missing:
            total = sum(m.count for m in missing)
            return WhatNext(ngettext("%(total)s label still missing (%(who)s): invite or remind the annotators, then "
                                     "close the round below.",
                                     "%(total)s labels still missing (%(who)s): invite or remind the annotators, then "
                                     "close the round below.", total)
                            % {"total": total, "who": ", ".join(m.username for m in missing)}, "members",
                            _("Members and invitations"))
        return WhatNext(_("Every label of round %(number)s is in: close it below to start the review of the tied "
                          "reports.") % {"number": round.number if round else ""}, "", "")
    if study.phase == Phase.REVIEW:
        tied = round.tied_reports.count() if round else 0
        return WhatNext(ngettext("%(tied)s report tied: discuss it on the review list and re-label where you agree; "
                                 "then close the review below.",
                                 "%(tied)s reports tied: discuss them on the review list and re-label where you "
                                 "agree; then close the review below.", tied) % {"tied": tied},
                        "review_list", _("Review list"))
    if study.phase == Phase.ADJUDICATION:
        # Which reports still tie takes every vote of the study to say: the adjudication page says it, not this
        # page, which the lead opens often.
        return WhatNext(_("Decide each report still tied after the review, with a rationale, on the adjudication "
                          "page; then close the study below."), "adjudication_list", _("Adjudication"))
    return WhatNext(_("The study is closed: download the labeled corpus, its dataset card and the replication "
                      "package below."), "corpus", _("The labeled corpus"))
