"""The final labeled corpus for admins and the lead: streamed CSV and JSON Lines, study.json, dataset card, and the
replication package."""
from __future__ import annotations

import json
import tempfile

from django.contrib.auth.decorators import login_required
from django.http import FileResponse, HttpResponse, StreamingHttpResponse
from django.utils.text import slugify
from django.views.decorators.http import require_GET

from annotation.access import get_study_for
from annotation.permissions import can_export
from concord import replica
from concord.audit import record as audit
from concord.http import HtmxHttpRequest

from .dataset_card import dataset_card
from .exports import csv_chunks, jsonl_rows, study_document
from .qdpx import write_qdpx
from .replication import build


def _attachment(response, study, suffix: str):
    response["Content-Disposition"] = f'attachment; filename="{slugify(study.name)}-{suffix}"'
    return response


@login_required
@require_GET
def corpus_csv(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id, can_export)
    audit("export", request.user, study, what="corpus csv")
    return _attachment(StreamingHttpResponse(csv_chunks(study), content_type="text/csv; charset=utf-8"), study,
                       "corpus.csv")


@login_required
@require_GET
def corpus_jsonl(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id, can_export)
    audit("export", request.user, study, what="corpus jsonl")
    # From the replica when there is one that holds the person's own writes (the CSV's temporary table needs
    # the primary).
    read = replica.choose(replica.last_write(request))
    response = StreamingHttpResponse(replica.streamed(jsonl_rows(study), read), content_type="application/x-ndjson")
    return replica.as_of_header(_attachment(response, study, "corpus.jsonl"), read)


@login_required
@require_GET
def study_json(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id, can_export)
    audit("export", request.user, study, what="study json")
    # E-mail addresses only when an admin asks for them.
    contacts = request.user.is_staff and request.GET.get("contacts") == "1"
    with replica.stale_reads(replica.last_write(request)) as read:
        body = json.dumps(study_document(study, with_contacts=contacts), indent=2, ensure_ascii=False)
    return replica.as_of_header(_attachment(HttpResponse(body, content_type="application/json"), study,
                                            "study.json"), read)


@login_required
@require_GET
def card(request: HtmxHttpRequest, study_id: int):
    study = get_study_for(request, study_id, can_export)
    audit("export", request.user, study, what="card")
    with replica.stale_reads(replica.last_write(request)) as read:
        text = dataset_card(study, study_document(study))
    return replica.as_of_header(_attachment(HttpResponse(text, content_type="text/markdown; charset=utf-8"),
                                            study, "dataset-card.md"), read)


@login_required
@require_GET
def replication_package(request: HtmxHttpRequest, study_id: int):
    """The whole package as one download; written to a temporary file first (a zip needs to seek). From the
    primary: its corpus CSV is written there (a temporary table), and every part must show the same labels."""
    study = get_study_for(request, study_id, can_export)
    handle = tempfile.TemporaryFile()
    build(study, handle, request.user)
    handle.seek(0)
    return FileResponse(handle, as_attachment=True, filename=f"{slugify(study.name)}-replication.zip",
                        content_type="application/zip")


@login_required
@require_GET
def qdpx(request: HtmxHttpRequest, study_id: int):
    """The study as a REFI-QDA project for ATLAS.ti, MAXQDA and NVivo."""
    study = get_study_for(request, study_id, can_export)
    audit("export", request.user, study, what="qdpx")
    handle = tempfile.TemporaryFile()
    with replica.stale_reads(replica.last_write(request)) as read:
        write_qdpx(study, handle)
    handle.seek(0)
    return replica.as_of_header(FileResponse(handle, as_attachment=True, filename=f"{slugify(study.name)}.qdpx",
                                             content_type="application/zip"), read)
