"""The dataset card written with every export: where the reports came from, how they were screened, how
reliable the labels are (with their n) and how ties were settled. Every number is computed here."""
from __future__ import annotations

import html

from django.db.models import Count, Max, Min
from django.utils import timezone

from agreement.reports import tree_distance_of
from annotation.models import FinalLabel, Seat, Study
from annotation.selectors.final_labels import final_label_counts
from annotation.selectors.labels import raters
from annotation.selectors.studies import agreement_round
from concord.numbers import interval
from ingest.models import ScreeningSample, Source
from ingest.screening import KEYWORD_RULE
from ingest.selectors import sample_document, sample_figures, source_report

from .columns import study_status


def _rate(rate) -> str:
    if rate is None or not rate.n:
        return "no sample"
    return (f"{rate.successes}/{rate.n} = {100 * rate.successes / rate.n:.1f} % "
            f"(95 % Wilson {interval(rate.low, rate.high, 1, percent=True)})")


def _figure(f: dict) -> str:
    if f["value"] is None:
        return f"undefined ({f['undefined_because']})"
    ci = f" (95 % CI {interval(f['ci_low'], f['ci_high'])})" if f.get("ci_low") is not None else ""
    left = f"; {f['left_out']} left out" if f["left_out"] else ""
    return f"{f['value']:.3f}{ci}, {f['n_reports']} reports, {f['n_raters']} raters{left}"


def _text(value) -> str:
    """Text from people (study names, descriptions, codebook and subset names) as text: a Markdown renderer must
    not run HTML in it, and a table cell must not end at a "|" inside it."""
    return html.escape(str(value), quote=False).replace("|", "\\|")


def dataset_card(study: Study, document: dict) -> str:
    lines = [f"# {_text(study.name)}: dataset card", "", f"Exported {timezone.now():%Y-%m-%d %H:%M} UTC. Status: "
             f"{study_status(study)}.", ""]
    if study.description:
        lines += [_text(study.description), ""]
    lines += _sources(study)
    lines += _keyword_validation(study)
    codebook = study.codebook
    lines += ["", "## Codebook", "", f"{_text(codebook.name)}, {_text(codebook.version)}, revision {codebook.revision} "
              f"({codebook.changes.count()} recorded changes).", "", "## Agreement", ""]
    agreement = document.get("agreement")
    if agreement:
        lines += _agreement(study, agreement, document.get("agreement_with_machines"))
    else:
        lines.append("No round has been labeled yet.")
    lines += _final_labels(study)
    for record in study.comparisons.all():
        lines += _comparison(record.figures)
    lines += _machines(document.get("machines") or {}, _seats(study))
    lines += ["", "## Files", "",
              "The JSON Lines corpus holds every text exactly as stored. In the CSV files a cell that begins with "
              "=, +, -, @, a tab or a carriage return starts with an apostrophe (') so that a spreadsheet shows it "
              "as text instead of running it as a formula; remove that one character to get the stored text, or "
              "write the CSV with `manage.py export_corpus --format csv --raw`."]
    return "\n".join(lines) + "\n"


def _sources(study: Study) -> list[str]:
    lines = ["## Sources", "", "| source | reports in the study | created from | created to | keyword false-positive "
             "rate (screening) |", "| --- | --- | --- | --- | --- |"]
    for source in Source.objects.filter(issues__studies=study).distinct().order_by("full_name"):
        span = study.issues.filter(source=source).aggregate(n=Count("pk"), first=Min("created_at"),
                                                            last=Max("created_at"))
        n = span["n"]
        report = source_report(source)
        first = span["first"].date().isoformat() if span["first"] else "—"
        last = span["last"].date().isoformat() if span["last"] else "—"
        lines.append(f"| {_text(source.full_name)} | {n} | {first} | {last} | {_rate(report.false_positive)} |")
    return lines


def _per_type(figures: dict) -> list[str]:
    return [f"- {_text(t['name'])} ({t['type']}) at {figures['level'].replace('_', '-')} level, Fleiss' "
            f"kappa: {_figure(t['fleiss'])}" for t in figures["per_type"]]


def _tree_alpha(agreement: dict) -> str:
    tree = tree_distance_of(agreement)
    ci = agreement.get("tree_alpha_ci") or [None]
    return (f"- Every label's path down to the {agreement['level'].replace('_', '-')}, Krippendorff's "
            f"alpha with the codebook's tree distance (siblings {_num(tree['sibling'])}, the same "
            f"type {_num(tree['same_type'])}, another type 1): {_num(agreement['tree_alpha'])}"
            + (f" (95 % CI {interval(*ci)})" if ci[0] is not None else ""))


def _agreement(study: Study, agreement: dict, with_machines: dict | None) -> list[str]:
    lines = [f"Round {agreement['round']}; per type, reports grouped by the {agreement['basis']}.",
             "", f"- Type, Fleiss' kappa: {_figure(agreement['type'])}",
             f"- Type, Krippendorff's alpha: {_figure(agreement['type_alpha'])}"]
    if agreement.get("tree_alpha") is not None:
        lines.append(_tree_alpha(agreement))
    lines += _per_type(agreement)
    if with_machines:
        lines += ["", "These are people's labels alone. Machines stood in people's seats on some reports (see "
                      "Machine raters); with their votes filling those places:", "",
                  f"- Type, Fleiss' kappa: {_figure(with_machines['type'])}",
                  f"- Type, Krippendorff's alpha: {_figure(with_machines['type_alpha'])}"]
        lines += _per_type(with_machines)
    round = agreement_round(study)
    if round is not None:
        lines += ["", "Raters, and whether they labeled blind (without seeing anyone else's labels):", ""]
        lines += [f"- {_text(r.username)}{' (lead)' if r.role == 'lead' else ''}: {r.how}" for r in raters(round)]
    return lines


def _final_labels(study: Study) -> list[str]:
    lines = ["", "## Final labels and ties", ""]
    made = final_label_counts(study)
    counts = {label: made.get(method, 0) for method, label in FinalLabel.Method.choices}
    total = study.issues.count()
    decided = sum(counts.values())
    if decided:
        lines.append(f"{decided} of {total} reports have a final label: " + ", ".join(
            f"{n} by {label.lower()}" for label, n in counts.items() if n) + ".")
    else:
        lines.append(f"None of the {total} reports has a final label yet: they are written when the study closes "
                     f"(it is in its {study.get_phase_display().lower()} phase).")
    machine_voted = FinalLabel.objects.filter(study=study, machine_votes__gt=0).count()
    if machine_voted:
        lines.append(f"{machine_voted} of these final labels counted a machine's vote cast in a person's seat "
                     "(their \"how\" in the corpus says so); the others are people's alone.")
    lines.append("A report is controversial when its largest vote count is shared by two or more labels; such "
                 "reports were reviewed jointly, and the lead decided, with a rationale, where no consensus came.")
    return lines


def _comparison(f: dict) -> list[str]:
    """One comparison the lead added: are subsets labeled differently."""
    lines = ["", f"## Are subsets labeled differently? By {f['by'].replace('_', ' ')}, at "
                 f"{f['level'].replace('_', '-')} level", ""]
    if f["undefined_because"]:
        return [*lines, f"Undefined: {f['undefined_because']}."]
    sizes = ", ".join(f"{_text(name)} {sum(row)}" for name, row in zip(f["subsets"], f["counts"], strict=True))
    lines.append(f"Subsets (reports): {sizes}. Chi-square test of independence: X² = {f['chi2']:.2f} on "
                 f"{f['df']} degrees of freedom, p = {f['p']:.4g}; Cramér's V = {f['cramers_v']:.3f}.")
    if f["small_expected"]:
        lines.append(f"{f['small_expected']} cells expect fewer than 5 reports; {f['exact_method']}: "
                     f"p = {f['exact_p']:.4g}.")
    strongest = sorted(((abs(r), name, cat, r) for name, row in zip(f["subsets"], f["residuals"], strict=True)
                        for cat, r in zip(f["categories"], row, strict=True)), reverse=True)[:3]
    lines.append("Largest adjusted residuals: " + ", ".join(f"{_text(cat)} in {_text(name)} ({r:+.2f})"
                                                           for _, name, cat, r in strongest) + ".")
    return lines


def _keyword_validation(study: Study) -> list[str]:
    """The decided keyword samples of the lists the study's sources were filtered with: each keyword's precision
    read once on its sample, its confidence sequence read after every vote, and where the sequence stopped."""
    samples = ScreeningSample.objects.filter(
        kind=ScreeningSample.Kind.KEYWORD, keyword__keyword_list__sources__issues__studies=study,
    ).exclude(status=ScreeningSample.Status.OPEN).distinct().select_related("keyword").order_by("keyword__term", "pk")
    if not samples:
        return []
    lines = ["", "## Keyword validation", "", f"Rule: {KEYWORD_RULE}.", "",
             "| keyword | decision | precision on the verdicts (Wilson) | confidence sequence | stopped after |",
             "| --- | --- | --- | --- | --- |"]
    for sample in samples:
        figures = sample_figures(sample)
        document = sample_document(sample, figures)
        seq, stop = document["sequence"], document["stop"]
        stopped = (f"{stop['n']} of {sample.size} verdicts ({'at or above' if stop['meets'] else 'below'} "
                   f"{sample.threshold:g})" if stop else f"did not stop; an admin decided on {document['decided']}")
        lines.append(f"| {_text(sample.keyword.term)} | {sample.get_status_display().lower()} | "
                     f"{_rate(figures.rate)} | "
                     f"{interval(seq['low'], seq['high'])} after {seq['verdicts_read']} | {stopped} |")
    return lines


def _num(value) -> str:
    return "undefined" if value is None else f"{value:.3f}"


def _seats(study: Study) -> list[dict]:
    """Every seat a machine or a jury took in a person's place, standing or given back."""
    return [{"machine": s.machine, "in_seat_of": s.annotator.username, "round": s.round.number,
             "reports": s.n, "standing": s.given_back_at is None}
            for s in Seat.objects.filter(study=study).select_related("annotator", "round").annotate(n=Count("labels"))
            .order_by("pk")]


def _machines(machines: dict, seats: list[dict]) -> list[str]:
    """Machine raters: what reproduces each, how it compares with the people, what the study decided, and every
    seat a jury took."""
    if not machines.get("raters"):
        return []
    apart = ("Machine labels are kept apart from the people's: they are not in the agreement figures or the final "
             "labels above" if not seats else
             "Machine labels are kept apart from the people's, except where a decision or a delegation below put a "
             "machine in a person's seat: there its vote counted in ties and final labels, and in the figures given "
             "with machines")
    lines = ["", "## Machine raters", "",
             f"{apart}; no annotator saw one before saving their own label of the report.", ""]
    for rater in machines["raters"]:
        lines += _rater(rater)
    for decision in machines.get("decisions", []):
        lines += _decision(decision)
    for seat in seats:
        if seat["machine"].startswith("jury: "):
            held = "stands" if seat["standing"] else "stood"
            lines.append(f"- Delegated: a {_text(seat['machine'])} {held} in {_text(seat['in_seat_of'])}'s seat on "
                         f"{seat['reports']} reports in round {seat['round']}, its type counting there.")
    return lines


def _rater(rater: dict) -> list[str]:
    settings = ", ".join(f"{k}={v}" for k, v in rater["settings"].items())
    lines = [f"- {_text(rater['name'])} ({rater['kind']}; {_text(settings)}; {len(rater['runs'])} runs)"]
    for figures in rater.get("figures", []):
        if figures["level"] != "type":
            continue
        alt = figures["alt_test"]
        plural = figures["cohen_plurality"]
        lines.append(f"  - type, {figures['reports']} reports: Cohen's kappa with the panel's plurality "
                     f"{_num(plural['value'])} [{_num(plural['ci'][0])}, {_num(plural['ci'][1])}]; alternative "
                     f"annotator test at epsilon {alt['epsilon']}: winning rate {_num(alt['winning_rate'])}, "
                     f"{'passes' if alt['passed'] else 'does not pass'}")
    return lines


def _decision(decision: dict) -> list[str]:
    """A decision to let a machine replace an annotator: where it came from and the seat it took."""
    where = decision["level"] + (f" of {decision['type']}" if decision["type"] else "")
    state = f"withdrawn {decision['withdrawn_at'][:10]}" if decision["withdrawn_at"] else (
        "below its decided agreement on the sentinels" if decision["below"] else "holding on the sentinels")
    lines = [f"- Decision: {_text(decision['rater'])} may replace one annotator at {where} (epsilon "
             f"{decision['epsilon']}, by {_text(decision['decided_by'])} on {decision['decided_at'][:10]}; "
             f"{decision['sentinels']} sentinel reports): {state}."]
    if origin := decision.get("carried_from"):
        lines.append(f"  - Carried from the study {_text(origin['study_name'])}, where it was decided on "
                     f"{origin['decided_at'][:10]}: the figures it rests on are that study's.")
    if seat := decision.get("seat"):
        held = "stands" if seat["given_back_at"] is None else f"stood, until {seat['given_back_at'][:10]},"
        lines.append(f"  - Applied in round {seat['round']}: {_text(decision['rater'])} {held} in "
                     f"{_text(seat['in_seat_of'])}'s seat on {seat['reports']} reports, its {seat['level']} "
                     "counting there.")
    return lines
