"""A study as a REFI-QDA project (.qdpx), the exchange format of ATLAS.ti, MAXQDA and NVivo:
the reports' texts as sources, each annotator's label as a coding of the whole text by that user, label notes as
notes on that coding, the codebook as codes. `project.qde` follows the published project schema
(schemas/Project-mrt2019.xsd; the tests validate against it). Written as a stream, element by element."""
from __future__ import annotations

import datetime as dt
import re
import shutil
import tempfile
import uuid
import zipfile
from importlib import metadata
from pathlib import Path

from django.utils import timezone
from lxml import etree

from annotation.models import NOT_RELEVANT, Label, Study
from taxonomy.exports import second_lines
from taxonomy.models import Category

NS = "urn:QDA-XML:project:1.0"
XSD = Path(__file__).resolve().parent / "schemas" / "Project-mrt2019.xsd"
# XML 1.0 cannot hold most control characters; a stranger's report may. They become U+FFFD in the project (and
# the positions count that text), everything else is kept.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")
_NAMESPACE = uuid.UUID("6c0e2b4e-8c1f-4d55-9b8e-2f1d8a3c7e10")


def _xml(text: str | None) -> str:
    return _NOT_XML.sub("\ufffd", text or "")


def _guid(*parts) -> str:
    """A stable GUID per thing, so that two exports of one study name its parts alike."""
    return str(uuid.uuid5(_NAMESPACE, "/".join(str(p) for p in parts)))


def _when(value) -> str:
    return value.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def schema() -> etree.XMLSchema:
    return etree.XMLSchema(etree.parse(str(XSD)))


def _codes(xf, study: Study, guids: dict) -> None:
    nodes = list(Category.objects.filter(codebook=study.codebook_id).order_by("position", "code"))
    language = study.codebook.second_language
    children: dict = {}
    for node in nodes:
        children.setdefault(node.parent_id, []).append(node)

    def write(node) -> None:
        guids[node.pk] = str(node.guid)
        with xf.element(f"{{{NS}}}Code", guid=str(node.guid), name=_xml(f"{node.code} {node.name}"),
                        isCodable="true"):
            description = "\n\n".join(p for p in (node.definition, node.inclusion and f"Includes: {node.inclusion}",
                                                  node.exclusion and f"Excludes: {node.exclusion}",
                                                  "\n".join(second_lines(node, language))) if p)
            if description:
                element = etree.Element(f"{{{NS}}}Description")
                element.text = _xml(description)
                xf.write(element)
            for child in children.get(node.pk, []):
                write(child)

    with xf.element(f"{{{NS}}}CodeBook"), xf.element(f"{{{NS}}}Codes"):
        for node in children.get(None, []):
            write(node)
        guids[NOT_RELEVANT] = _guid(study.pk, "not-relevant")
        xf.write(etree.Element(f"{{{NS}}}Code", guid=guids[NOT_RELEVANT], name="NR Not relevant", isCodable="true"))


def write_qdpx(study: Study, path) -> int:
    """Write the project; the number of reports in it."""
    labels = (Label.objects.filter(study=study).order_by("issue_id", "round__number", "annotator__username")
              .values_list("issue_id", "round__number", "annotator_id", "annotator__username", "is_relevant",
                           "type_id", "theme_id", "sub_theme_id", "note", "created_at", "updated_at"))
    users = dict(Label.objects.filter(study=study).order_by().values_list("annotator_id", "annotator__username")
                 .distinct())
    by_issue: dict[int, list] = {}
    for row in labels.iterator(chunk_size=5000):
        by_issue.setdefault(row[0], []).append(row)
    issues = study.issues.select_related("source").order_by("pk")
    notes: list[tuple[str, str, str, str, str]] = []
    count = 0
    # The project is written to a temporary file beside the zip (the zip takes one open member at a time, and
    # each report's text goes in as its own member while the project is being written), then copied in.
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive, \
            tempfile.TemporaryFile() as f:
        with etree.xmlfile(f, encoding="utf-8") as xf:
            xf.write_declaration()
            now = _when(timezone.now())
            with xf.element(f"{{{NS}}}Project", nsmap={None: NS}, name=_xml(study.name), creationDateTime=now,
                            origin=f"Concord {metadata.version('concord')}"):
                with xf.element(f"{{{NS}}}Users"):
                    for username in sorted(users.values()):
                        xf.write(etree.Element(f"{{{NS}}}User", guid=_guid("user", username), name=_xml(username)))
                guids: dict = {}
                _codes(xf, study, guids)
                with xf.element(f"{{{NS}}}Sources"):
                    for issue in issues.iterator(chunk_size=2000):
                        count += 1
                        source_guid = _guid(study.pk, "report", issue.pk)
                        text = _xml(f"{issue.title}\n\n{issue.body or ''}")
                        archive_name = f"Sources/{source_guid}.txt"
                        with archive.open(archive_name, "w") as out:
                            out.write(text.encode("utf-8"))
                        attrs = {"guid": source_guid, "name": _xml(f"{issue.source.full_name}#{issue.number}"),
                                 "plainTextPath": f"internal://{source_guid}.txt"}
                        with xf.element(f"{{{NS}}}TextSource", **attrs):
                            if issue.url:
                                element = etree.Element(f"{{{NS}}}Description")
                                element.text = _xml(issue.url)
                                xf.write(element)
                            for row in by_issue.get(issue.pk, []):
                                _selection(xf, study, row, len(text), guids, notes)
                if notes:
                    with xf.element(f"{{{NS}}}Notes"):
                        for guid, name, user, when, text in notes:
                            with xf.element(f"{{{NS}}}Note", guid=guid, name=name, creatingUser=user,
                                            creationDateTime=when):
                                element = etree.Element(f"{{{NS}}}PlainTextContent")
                                element.text = text
                                xf.write(element)
        f.seek(0)
        with archive.open("project.qde", "w") as member:
            shutil.copyfileobj(f, member)
    return count


def _selection(xf, study: Study, row, length: int, guids: dict, notes: list) -> None:
    issue_id, number, user_id, username, relevant, type_id, theme_id, sub_id, note, created, updated = row
    code = guids[NOT_RELEVANT] if not relevant else guids.get(sub_id or theme_id or type_id)
    if code is None:
        return
    user = _guid("user", username)
    key = (study.pk, "label", issue_id, number, user_id)
    with xf.element(f"{{{NS}}}PlainTextSelection", guid=_guid(*key, "selection"),
                    name=_xml(f"{username}, round {number}"), startPosition="0", endPosition=str(length),
                    creatingUser=user, creationDateTime=_when(created), modifiedDateTime=_when(updated)):
        with xf.element(f"{{{NS}}}Coding", guid=_guid(*key, "coding"), creatingUser=user,
                        creationDateTime=_when(created)):
            xf.write(etree.Element(f"{{{NS}}}CodeRef", targetGUID=code))
        if note:
            note_guid = _guid(*key, "note")
            xf.write(etree.Element(f"{{{NS}}}NoteRef", targetGUID=note_guid))
            notes.append((note_guid, _xml(f"{username}'s note, round {number}"), user, _when(updated), _xml(note)))
