"""The concord-study backup format: every record kind a backup may hold, and the fields each may carry.

A restore takes these and nothing else: a file is untrusted input, so a kind or field not listed
here — a password hash, a staff or superuser flag, a group, a permission — is refused with its line, never
passed on to a model. A new field in a model is not in a backup until it is added here (the coverage test fails
until it is, or is listed as not carried). A field or kind that is only added joins the current version: an
older file restores it with the model's default, and an older Concord refuses it by name. A new version is
written only when a kind or field is renamed, moved or removed (docs/decisions/backup-format.md).
"""

from __future__ import annotations

from typing import NamedTuple


class Kind(NamedTuple):
    fields: tuple[str, ...]
    fk: tuple[str, ...] = ()
    m2m: tuple[str, ...] = ()


# Users travel as names only: a restored user gets an unusable password and no rights.
USER = Kind(fields=("username", "first_name", "last_name", "is_active"))

V1: dict[str, Kind] = {
    "auth.user": USER,
    "ingest.keywordlist": Kind(
        fields=("name", "description", "created_at"),
        fk=(),
    ),
    "ingest.keyword": Kind(
        fields=("term", "origin", "status", "created_at"),
        fk=("keyword_list",),
    ),
    "ingest.source": Kind(
        fields=("platform", "full_name", "display_name", "kind", "created_from", "created_to", "created_at"),
        fk=("keyword_list",),
    ),
    "ingest.issue": Kind(
        fields=(
            "number",
            "url",
            "title",
            "body",
            "author",
            "state",
            "platform_labels",
            "created_at",
            "closed_at",
            "source_updated_at",
            "comment_count",
            "comments",
            "payload",
            "kept",
            "imported_at",
            "updated_at",
        ),
        fk=("source",),
        m2m=("matched_keywords",),
    ),
    "ingest.summary": Kind(
        fields=(
            "backend",
            "model",
            "prompt_version",
            "content_hash",
            "text",
            "verdict",
            "reason",
            "status",
            "error",
            "created_at",
            "updated_at",
        ),
        fk=("issue",),
    ),
    "ingest.screeningsample": Kind(
        fields=(
            "kind",
            "status",
            "stratum",
            "seed",
            "size",
            "fraction",
            "population",
            "threshold",
            "created_at",
            "decided_at",
        ),
        fk=("keyword", "source", "reviewer_a", "reviewer_b", "tiebreaker", "created_by", "decided_by"),
    ),
    "ingest.screeningitem": Kind(
        fields=("position",),
        fk=("sample", "issue"),
    ),
    "ingest.screeningvote": Kind(
        fields=("is_relevant", "note", "created_at", "updated_at"),
        fk=("item", "reviewer"),
    ),
    "taxonomy.taxonomy": Kind(
        fields=("name", "version", "source", "note", "created_at", "revision"),
        fk=(),
    ),
    "taxonomy.category": Kind(
        fields=("level", "code", "name", "definition", "inclusion", "exclusion", "position", "retired_at", "guid"),
        fk=("taxonomy", "parent"),
        m2m=("examples",),
    ),
    "annotation.study": Kind(
        # lead_labels_blind came later in version 1: a backup without it restores with the default (blind).
        fields=("name", "description", "phase", "overlap", "pilot_fraction", "seed", "lead_labels_blind", "created_at"),
        fk=("taxonomy", "created_by"),
        m2m=("issues",),
    ),
    "annotation.membership": Kind(
        fields=("role", "joined_at"),
        fk=("study", "user"),
    ),
    "annotation.round": Kind(
        fields=("number", "kind", "opened_at", "closed_at"),
        fk=("study",),
    ),
    "annotation.queue": Kind(
        fields=("total", "done", "stopped_at"),
        fk=("round", "annotator"),
    ),
    "annotation.assignment": Kind(
        fields=("position", "done", "skipped", "skip_reason", "skipped_at", "requeued_because"),
        fk=("queue", "issue"),
    ),
    "annotation.reviewitem": Kind(
        fields=("levels",),
        fk=("round", "issue"),
    ),
    "annotation.label": Kind(
        fields=("is_relevant", "note", "codebook_revision", "created_at", "updated_at"),
        fk=("type", "theme", "sub_theme", "study", "round", "issue", "annotator"),
    ),
    "annotation.decision": Kind(
        fields=("is_relevant", "method", "support", "raters", "rationale", "decided_at"),
        fk=("type", "theme", "sub_theme", "study", "issue", "decided_by"),
    ),
    "annotation.comment": Kind(
        fields=("body", "created_at"),
        fk=("study", "round", "issue", "author"),
    ),
    "annotation.historicallabel": Kind(
        fields=(
            "id",
            "is_relevant",
            "note",
            "codebook_revision",
            "created_at",
            "updated_at",
            "history_date",
            "history_change_reason",
            "history_type",
        ),
        fk=("type", "theme", "sub_theme", "study", "round", "issue", "annotator", "history_user"),
    ),
    "annotation.historicaldecision": Kind(
        fields=(
            "id",
            "is_relevant",
            "method",
            "support",
            "raters",
            "rationale",
            "decided_at",
            "history_date",
            "history_change_reason",
            "history_type",
        ),
        fk=("type", "theme", "sub_theme", "study", "issue", "decided_by", "history_user"),
    ),
    "taxonomy.interviewguide": Kind(
        fields=("version", "title", "created_at"),
        fk=("study",),
    ),
    "taxonomy.guidequestion": Kind(
        fields=("part", "position", "text", "kind", "group", "top"),
        fk=("guide", "node"),
    ),
    "taxonomy.participant": Kind(
        fields=("code", "group", "role", "years", "experience", "frameworks", "tasks"),
        fk=("study",),
    ),
    "taxonomy.interviewsession": Kind(
        fields=("held_on",),
        fk=("participant", "guide", "interviewer"),
    ),
    "taxonomy.answer": Kind(
        fields=("text", "order"),
        fk=("session", "question"),
    ),
    "taxonomy.quote": Kind(
        fields=("prompt", "text", "insight"),
        fk=("session",),
        m2m=("nodes",),
    ),
    "taxonomy.proposal": Kind(
        fields=("name", "definition", "status", "opened_at", "closed_at", "closing_note"),
        fk=("study", "parent", "proposer", "category", "quote"),
        m2m=("examples",),
    ),
    "taxonomy.vote": Kind(
        fields=("choice", "comment", "cast_at"),
        fk=("proposal", "voter"),
    ),
    "taxonomy.changelogentry": Kind(
        fields=("revision", "kind", "before", "after", "reason", "made_at", "requeued"),
        fk=("taxonomy", "proposal", "quote", "made_by"),
    ),
    "taxonomy.detail": Kind(
        fields=("text", "position", "added_at"),
        fk=("category", "added_by"),
        m2m=("examples",),
    ),
    "agreement.agreementsnapshot": Kind(
        fields=("level", "labels", "figures", "computed_at", "seconds"),
        fk=("study", "round", "computed_by"),
    ),
    "annotation.subset": Kind(
        fields=("name", "kind", "seed", "created_at"),
        fk=("study",),
        m2m=("issues",),
    ),
    "annotation.comparisonrecord": Kind(
        fields=("by", "level", "figures", "created_at"),
        fk=("study",),
    ),
}

# Version 2: the interview models moved from the taxonomy app to the interviews app, and proposals, votes and
# the change log to the codebook app; a review round's ReviewItem is called TiedReport. The records are those of
# version 1, under their new names.
MOVED = {f"taxonomy.{model}": f"interviews.{model}"
         for model in ("interviewguide", "guidequestion", "participant", "interviewsession", "answer", "quote")}
MOVED |= {f"taxonomy.{model}": f"codebook.{model}" for model in ("proposal", "vote", "changelogentry")}
MOVED["annotation.reviewitem"] = "annotation.tiedreport"
V2: dict[str, Kind] = {MOVED.get(kind, kind): spec for kind, spec in V1.items()}
# Also new in version 2: the screeners' word on whether a summary was enough to judge its issue; the study's
# instructions to annotators, and which revision of them each member has read.
V2["ingest.summaryreview"] = Kind(fields=("sufficient", "created_at", "updated_at"), fk=("summary", "reviewer"))
V2["taxonomy.taxonomy"] = V1["taxonomy.taxonomy"]._replace(
    fields=(*V1["taxonomy.taxonomy"].fields, "instructions", "instructions_revision"))
V2["annotation.membership"] = V1["annotation.membership"]._replace(
    fields=(*V1["annotation.membership"].fields, "instructions_seen"))
# And the seconds each label took, from the report being shown to its save.
V2["annotation.label"] = V1["annotation.label"]._replace(fields=(*V1["annotation.label"].fields, "seconds"))
V2["annotation.historicallabel"] = V1["annotation.historicallabel"]._replace(
    fields=(*V1["annotation.historicallabel"].fields, "seconds"))

# Version 3: machine raters (their settings, runs, labels, every call to a language model, and the decisions to let
# one replace an annotator), and the summary experiment (the study's switch, each label's arm).
V3: dict[str, Kind] = dict(V2)
V3["annotation.study"] = V2["annotation.study"]._replace(fields=(*V2["annotation.study"].fields, "summary_experiment"))
V3["annotation.label"] = V2["annotation.label"]._replace(fields=(*V2["annotation.label"].fields, "summary_shown"))
V3["annotation.historicallabel"] = V2["annotation.historicallabel"]._replace(
    fields=(*V2["annotation.historicallabel"].fields, "summary_shown"))
V3["machines.machinerater"] = Kind(fields=("name", "kind", "training", "settings", "created_at"),
                                   fk=("study", "created_by"))
V3["machines.machinerun"] = Kind(
    fields=("status", "settings", "prompt_version", "prompt_hash", "prompt", "model_reported", "total", "done",
            "cached", "unparseable", "failed", "message", "created_at", "started_at", "finished_at", "heartbeat_at"),
    fk=("rater", "created_by"))
V3["machines.llmcall"] = Kind(
    fields=("attempt", "key", "prompt_hash", "model", "model_reported", "made_at", "seconds", "prompt_tokens",
            "completion_tokens", "answer", "failure"),
    fk=("rater", "issue"))
V3["machines.machinelabel"] = Kind(
    fields=("attempt", "type_code", "theme_code", "sub_theme_code", "unparseable"), fk=("run", "issue", "call"))
V3["machines.replacementdecision"] = Kind(
    fields=("level", "type_code", "epsilon", "figures", "reason", "sentinel_share", "sentinel_seed", "decided_at",
            "withdrawn_at", "withdrawn_reason"),
    fk=("rater", "decided_by", "withdrawn_by"))

# Version 4: a report's final label is called so (annotation.finallabel; it was annotation.decision).
FINAL = {"annotation.decision": "annotation.finallabel",
         "annotation.historicaldecision": "annotation.historicalfinallabel"}
V4: dict[str, Kind] = {FINAL.get(kind, kind): spec for kind, spec in V3.items()}

# Version 5: the codebook is called so (taxonomy.codebook; it was taxonomy.taxonomy), and so is every reference
# to one (a study's, a category's, a change's "codebook"; it was "taxonomy").
CODEBOOK = {"taxonomy.taxonomy": "taxonomy.codebook"}
V5: dict[str, Kind] = {CODEBOOK.get(kind, kind): spec._replace(fk=tuple("codebook" if f == "taxonomy" else f
                                                                        for f in spec.fk))
                       for kind, spec in V4.items()}

# Version 6: an agreement snapshot says up to when its labels are complete (as_of; read from a replica, that
# can be before its computation began). Older snapshots have none, and their computation's start stands for it.
V6: dict[str, Kind] = dict(V5)
V6["agreement.agreementsnapshot"] = V5["agreement.agreementsnapshot"]._replace(
    fields=(*V5["agreement.agreementsnapshot"].fields, "as_of"))

# Version 7: the order the study's queues deal reports in (oldest first, seeded random, or by a machine's doubt,
# with each report's weight and whose doubt it was), and the built-in model's confidence in each label and its
# calibration curve. Older backups restore with the oldest first, as their studies dealt them, and no confidence.
V7: dict[str, Kind] = dict(V6)
V7["annotation.study"] = V6["annotation.study"]._replace(
    fields=(*V6["annotation.study"].fields, "queue_order", "queue_order_from"))
V7["annotation.queueweight"] = Kind(fields=("weight",), fk=("study", "issue"))
V7["machines.machinelabel"] = V6["machines.machinelabel"]._replace(
    fields=(*V6["machines.machinelabel"].fields, "confidence"))
V7["machines.machinerun"] = V6["machines.machinerun"]._replace(
    fields=(*V6["machines.machinerun"].fields, "calibration"))

# Version 8: a standing decision applied: the seat a machine took in an annotator's place, its frozen votes there,
# and how many machine votes each final label counted. Older backups restore with no seats and no machine votes.
V8: dict[str, Kind] = dict(V7)
V8["annotation.seat"] = Kind(fields=("machine", "level", "taken_at", "given_back_at", "returned"),
                             fk=("study", "round", "annotator", "taken_by", "given_back_by"))
V8["annotation.seatlabel"] = Kind(fields=("is_relevant",), fk=("seat", "issue", "type", "theme", "sub_theme"))
for _kind in ("annotation.finallabel", "annotation.historicalfinallabel"):
    V8[_kind] = V7[_kind]._replace(fields=(*V7[_kind].fields, "machine_votes"))
V8["machines.replacementdecision"] = V7["machines.replacementdecision"]._replace(
    fk=(*V7["machines.replacementdecision"].fk, "seat"))

# Version 9: the built-in model's confidence in each label's type alone, which a jury deciding types rests on.
# Older backups restore with none; a jury then reads the confidence in type and theme together, never more.
V9: dict[str, Kind] = dict(V8)
V9["machines.machinelabel"] = V8["machines.machinelabel"]._replace(
    fields=(*V8["machines.machinelabel"].fields, "type_confidence"))

# Version 10: a change's agreement evidence, the pair of categories people confused that it clarifies, and where a
# keyword sample's confidence sequence stopped it. Older backups restore with neither.
V10: dict[str, Kind] = dict(V9)
V10["codebook.changelogentry"] = V9["codebook.changelogentry"]._replace(
    fields=(*V9["codebook.changelogentry"].fields, "evidence"))
V10["ingest.screeningsample"] = V9["ingest.screeningsample"]._replace(
    fields=(*V9["ingest.screeningsample"].fields, "sequence_stop"))
# And the study's tree distance for alpha over the codebook's paths; older backups restore with 1/3 and 2/3.
V10["annotation.study"] = V9["annotation.study"]._replace(
    fields=(*V9["annotation.study"].fields, "tree_sibling", "tree_same_type"))

# Version 11: the codebook's second language, and each category's name, definition and notes in it. Older backups
# restore with none.
V11: dict[str, Kind] = dict(V10)
V11["taxonomy.codebook"] = V10["taxonomy.codebook"]._replace(
    fields=(*V10["taxonomy.codebook"].fields, "second_language"))
V11["taxonomy.category"] = V10["taxonomy.category"]._replace(
    fields=(*V10["taxonomy.category"].fields, "name_second", "definition_second", "inclusion_second",
            "exclusion_second"))

# Version 12: when a proposal's vote ends. Older backups restore their proposals with no end: they stay open until
# they pass, are rejected or the lead closes them, as they were made.
V12: dict[str, Kind] = dict(V11)
V12["codebook.proposal"] = V11["codebook.proposal"]._replace(fields=(*V11["codebook.proposal"].fields, "vote_by"))

# Version 13: subsets and the dataset card's comparisons moved from the annotation app to the findings app. The
# records are those of version 12, under their new names.
FINDINGS = {f"annotation.{model}": f"findings.{model}" for model in ("subset", "comparisonrecord")}
V13: dict[str, Kind] = {FINDINGS.get(kind, kind): spec for kind, spec in V12.items()}

FORMATS = {1: V1, 2: V2, 3: V3, 4: V4, 5: V5, 6: V6, 7: V7, 8: V8, 9: V9, 10: V10, 11: V11, 12: V12, 13: V13}
# What each version's kinds, and its records' references, are called in this Concord.
RENAMED = {1: MOVED | FINAL | CODEBOOK | FINDINGS, 2: FINAL | CODEBOOK | FINDINGS, 3: FINAL | CODEBOOK | FINDINGS,
           4: CODEBOOK | FINDINGS, 5: FINDINGS, 6: FINDINGS, 7: FINDINGS, 8: FINDINGS, 9: FINDINGS, 10: FINDINGS,
           11: FINDINGS, 12: FINDINGS, 13: {}}
REFERENCES_RENAMED = {1: {"taxonomy": "codebook"}, 2: {"taxonomy": "codebook"}, 3: {"taxonomy": "codebook"},
                      4: {"taxonomy": "codebook"}, 5: {}, 6: {}, 7: {}, 8: {}, 9: {}, 10: {}, 11: {}, 12: {},
                      13: {}}
