"""The replication package: one zip that carries a study to another researcher and recomputes
its own figures. What it holds is listed in its README.md, written below."""
from __future__ import annotations

import csv
import io
import json
import zipfile
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

from django.db.models import Q
from django.utils import timezone

from agreement.reports import LEVELS, agreement_figures, replication_tables, study_agreement
from annotation.exports.history import history_csv_rows
from annotation.exports.labels import label_csv_rows
from annotation.models import Study
from annotation.selectors.studies import agreement_round
from codebook.models import ChangeLogEntry
from concord.audit import record as audit
from concord.csv_stream import neutralise
from findings.estimates import as_json as shares_json
from findings.estimates import estimates, inputs
from ingest.models import ScreeningSample
from ingest.selectors import sample_document
from machines.selectors import raters_of
from taxonomy.exports import to_json, to_markdown
from taxonomy.models import Category

from .dataset_card import dataset_card
from .exports import csv_chunks, jsonl_rows, study_document

SCRIPT = Path(__file__).resolve().parent / "package_files" / "recompute.py"
README = Path(__file__).resolve().parent / "package_files" / "README.template.md"


def _csv_lines(columns: list[str], rows) -> Iterator[str]:
    """CSV a line at a time. A text cell a spreadsheet would run as a formula (a rater called "=cmd") gets a
    leading apostrophe, as in labels/labels.csv, so both files name a rater alike and the script's trace matches
    them; codes, numbers and links never start that way, so what the script counts is unchanged."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    yield out.getvalue()
    for row in rows:
        out.seek(0)
        out.truncate()
        writer.writerow([neutralise(cell) for cell in row])
        yield out.getvalue()


def _markdown(report: dict) -> str:
    def num(value) -> str:
        return "undefined" if value is None else f"{value:.3f}"

    lines = [f"# Agreement and reliability: {report['study']}", ""]
    for level, figures in report["levels"].items():
        lines += [f"## Per type at {level.replace('_', '-')} level", "", f"Round {figures['round']}; reports placed by "
                  f"the {figures['basis']}.", "", "| figure | Fleiss' κ [95 % CI] | Krippendorff's α | AC1 | "
                  "Brennan–Prediger | reports |", "| --- | --- | --- | --- | --- | --- |"]
        rows = [("Type", figures["type"], figures["type_alpha"], figures["type_others"])]
        rows += [(f"{t['name']} ({t['type']})", t["fleiss"], t["alpha"], t["others"]) for t in figures["per_type"]]
        for name, fleiss, alpha, others in rows:
            extra = {c["name"]: c["value"] for c in (others or {}).get("coefficients", [])}
            lines.append(f"| {name} | {num(fleiss['value'])} [{num(fleiss['ci_low'])}, {num(fleiss['ci_high'])}] | "
                         f"{num(alpha['value'])} | {num(extra.get('ac1'))} | {num(extra.get('brennan_prediger'))} | "
                         f"{fleiss['n_reports']} |")
        lines.append("")
    return "\n".join(lines)


def codebook_revisions(categories: list[dict], changes: list[dict], current: int | None = None) \
        -> dict[int, list[dict]]:
    """The codebook at every revision: the current one, with the changes undone one by one from the newest.
    `categories`: {code, name, definition, inclusion, exclusion, live} now; `changes`: the change log entries with
    their before/after snapshots. Codes are never reused, so a code names one category throughout; a category's
    place in the tree is in its code (C.1.ii under C.1)."""
    state = {c["code"]: dict(c) for c in categories}
    out = {}
    latest = current if current is not None else max((c["revision"] for c in changes), default=0)
    out[latest] = _live(state)
    for change in sorted(changes, key=lambda c: c["revision"], reverse=True):
        kind = change["kind"]
        if kind in {"add", "split", "merge"}:
            for made in change["after"]:
                state.pop(made.get("code"), None)
        if kind in {"split", "merge", "retire", "rename", "clarify"}:
            for was in change["before"]:
                if "code" in was:
                    state[was["code"]] = {**state.get(was["code"], {}), **was, "live": True}
        out[change["revision"] - 1] = _live(state)
    return dict(sorted(out.items()))


def _live(state: dict) -> list[dict]:
    return [{"code": code, "level": ("type", "theme", "sub_theme")[min(code.count("."), 2)],
             "parent": code.rsplit(".", 1)[0] if "." in code else None,
             **{k: c.get(k, "") for k in ("name", "definition", "inclusion", "exclusion")}}
            for code, c in sorted(state.items()) if c.get("live")]


def _screening(study: Study) -> list[dict]:
    """The screening samples of the study's sources. The votes of a sample still open are left out: its
    screeners judge blind to each other until it is decided, and the package goes to any lead of the study."""
    # A source's strata, and the keywords of the lists its sources were filtered with.
    samples = ScreeningSample.objects.filter(
        Q(source__issues__studies=study) | Q(keyword__keyword_list__sources__issues__studies=study)
    ).distinct().prefetch_related(
        "items__issue", "items__votes__reviewer")

    def votes(sample, item) -> list[dict] | None:
        if sample.status == ScreeningSample.Status.OPEN:
            return None
        return [{"reviewer": v.reviewer.username, "relevant": v.is_relevant, "note": v.note} for v in item.votes.all()]

    # A decided sample's figures too (its rate, confidence sequence, and for a keyword the rule and where the
    # sequence stopped), which recompute.py recomputes from the votes: items come in the drawn order (the model's
    # ordering, which the prefetch keeps).
    return [{"kind": s.kind, "source": s.source and s.source.full_name, "keyword": s.keyword and s.keyword.term,
             "stratum": s.stratum, "seed": s.seed, "size": s.size, "status": s.status,
             "screeners": [s.reviewer_a.username, s.reviewer_b.username, s.tiebreaker.username],
             "figures": None if s.status == ScreeningSample.Status.OPEN else sample_document(s),
             "items": [{"report": f"{i.issue.source.full_name}#{i.issue.number}", "votes": votes(s, i)}
                       for i in s.items.all()]}
            for s in samples.select_related("source", "keyword", "reviewer_a", "reviewer_b", "tiebreaker")]


def _shares(study: Study) -> tuple[dict, Iterator[str]]:
    """Every machine rater's shares three ways, and the rows they are computed from: per rater and report, its
    year, people's label and the machine's, each report named as everywhere else in the package. The rows are
    read again when written, a rater at a time, rather than all raters' held at once."""
    found = []
    raters = []
    for rater in raters_of(study):
        given = inputs(study, rater)
        if given is not None:
            found.append(shares_json(estimates(study, rater, given)))
            raters.append(rater)
        del given

    def codes(chain) -> list[str]:
        return ["", "", ""] if chain is None else [chain[0], chain[1] or "", chain[2] or ""]

    def rows():
        named = {pk: (f"{source}#{number}", url) for pk, source, number, url in
                 study.issues.values_list("pk", "source__full_name", "number", "url")}
        for rater in raters:
            given = inputs(study, rater)
            made = estimates(study, rater, given)
            chance = made.chance if made.chance is not None else [None] * len(given.ids)
            for pk, year, people, machine, used, p in zip(given.ids, given.years, given.people, given.machine,
                                                          made.in_sample, chance, strict=True):
                yield [rater.name, *named[pk], year or "", *codes(people), *codes(machine), "yes" if used else "no",
                       "" if p is None else repr(float(p))]

    # in_sample: whether people's label of the report is used (a report people labeled beyond the first in the
    # queues' order still without one is not); chance: its chance of being in the sample, under a design that
    # makes chances unequal, else "".
    columns = ["rater", "report", "url", "year", "people_type", "people_theme", "people_sub_theme",
               "machine_type", "machine_theme", "machine_sub_theme", "in_sample", "chance"]
    return {"raters": found}, _csv_lines(columns, rows())


def build(study: Study, path: str | Path, viewer) -> int:
    """Write the package; the number of files in it. `viewer` is the person it is made for (their rights decide
    the label history it holds, as on the pages)."""
    audit("replication package", viewer, study)
    round = agreement_round(study)
    version = metadata.version("concord")
    document = study_document(study)
    report, people, machines = _reliability(study, round, document, version)
    (reliability_rows, reference), (machine_rows, machine_reference) = people, machines
    changes, revisions = _codebook_history(study)
    shares, share_rows = _shares(study)
    files = {
        "README.md": README.read_text(encoding="utf-8").format(
            name=study.name, version=version, made=f"{timezone.now():%Y-%m-%d %H:%M}", status=document["status"],
            revision=study.codebook.revision),
        "study.json": json.dumps(document, indent=2, ensure_ascii=False),
        "dataset-card.md": dataset_card(study, document),
        "codebook/codebook.json": to_json(study.codebook),
        "codebook/codebook.md": to_markdown(study.codebook),
        "codebook/changes.json": json.dumps(changes, indent=2, ensure_ascii=False),
        **{f"codebook/revisions/revision-{r}.json": json.dumps(c, indent=1, ensure_ascii=False)
           for r, c in revisions.items()},
        "reliability/report.json": json.dumps(report, indent=2, ensure_ascii=False),
        "reliability/report.md": _markdown(report),
        "reliability/reference_types.csv": "".join(_csv_lines(["report", "url", "type"],
                                                              ((r, *rest) for r, rest in reference.items()))),
        **({"reliability/reference_types-with-machines.csv": "".join(_csv_lines(
            ["report", "url", "type"], ((r, *rest) for r, rest in machine_reference.items())))}
           if machine_rows is not None else {}),
        "screening.json": json.dumps(_screening(study), indent=2, ensure_ascii=False),
        "estimates/shares.json": json.dumps(shares, indent=2, ensure_ascii=False),
        "recompute.py": SCRIPT.read_text(encoding="utf-8"),
    }
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, text in files.items():
            archive.writestr(name, text)
        # The big ones are streamed into the archive, never held whole.
        # Their size is not known before they are written, and past 2 GiB (a million reports' corpus is some 5 GB) a
        # member needs ZIP64 headers, which zipfile writes only when told beforehand.
        with archive.open("corpus.csv", "w", force_zip64=True) as f:
            for chunk in csv_chunks(study):
                f.write(chunk)
        columns = ["report", "source", "number", "url", "rater", "type", "theme", "sub_theme"]
        streamed = [("corpus.jsonl", jsonl_rows(study)), ("labels/labels.csv", label_csv_rows(study)),
                    ("reliability/labels.csv", _csv_lines(columns, reliability_rows)),
                    ("labels/history.csv", history_csv_rows(viewer, study)),
                    ("estimates/reports.csv", share_rows)]
        if machine_rows is not None:
            streamed.append(("reliability/labels-with-machines.csv", _csv_lines(columns, machine_rows)))
        for name, lines in streamed:
            with archive.open(name, "w", force_zip64=True) as f:
                for line in lines:
                    f.write(line.encode("utf-8"))
    return len(files) + len(streamed) + 1


def _reliability(study: Study, round, document: dict, version: str):
    """report.json's figures per level, with machines where they stood in people's seats; the rows and reference
    types they are computed from, for people alone and with machines (None when no machine sat)."""
    report = {"study": study.name, "concord": version, "levels": {}}
    people, machines = (iter(()), {}), (None, {})
    if round is None:
        return report, people, machines
    # study.json holds the theme-level figures already (the same call); only the sub-theme level is new.
    report["levels"] = {level: document["agreement"] if level == "theme" and document["agreement"] else
                        agreement_figures(study_agreement(round, level, seed=0)) for level in LEVELS}
    people = _named(study, *replication_tables(round))
    if document.get("agreement_with_machines"):
        # The same figures with the votes of machines standing in people's seats, beside people's alone.
        report["with_machines"] = {
            level: document["agreement_with_machines"] if level == "theme" else
            agreement_figures(study_agreement(round, level, seed=0, machines=True)) for level in LEVELS}
        machines = _named(study, *replication_tables(round, machines=True))
    return report, people, machines


def _codebook_history(study: Study) -> tuple[list[dict], dict]:
    """Every recorded change of the codebook, and the codebook as it stood at each revision."""
    changes = [{"revision": e.revision, "kind": e.kind, "before": e.before, "after": e.after, "reason": e.reason,
                "made_by": e.made_by.username, "made_at": e.made_at.isoformat(), "evidence": e.evidence}
               for e in ChangeLogEntry.objects.filter(codebook=study.codebook_id).select_related("made_by")
               .order_by("revision")]
    now = [{"code": c.code, "name": c.name, "definition": c.definition, "inclusion": c.inclusion,
            "exclusion": c.exclusion, "live": c.retired_at is None}
           for c in Category.objects.filter(codebook=study.codebook_id)]
    revisions = codebook_revisions(now, [c for c in changes if c["kind"] != "instructions"],
                                   study.codebook.revision)
    return changes, revisions


def _named(study: Study, rows: Iterator[tuple], reference: dict[int, str]) -> tuple[Iterator[tuple], dict]:
    """Each report named as everywhere else in the package (source#number, and its address), never by an id of
    this database: the rows can be traced to labels/labels.csv and the corpus."""
    named = {pk: (source, number, url) for pk, source, number, url in
             study.issues.values_list("pk", "source__full_name", "number", "url")}
    rows = ((f"{named[issue][0]}#{named[issue][1]}", *named[issue], *rest) for issue, *rest in rows)
    return rows, {f"{named[issue][0]}#{named[issue][1]}": (named[issue][2], type_)
                  for issue, type_ in reference.items()}
