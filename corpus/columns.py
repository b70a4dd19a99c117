"""What every form of the corpus says of itself: the CSV's columns, in order, and the study's status; and the
order of its reports, a chunk at a time."""
from __future__ import annotations

from collections.abc import Iterator
from itertools import islice

from annotation.models import Study

CHUNK = 2000
# The CSV's chunks hold a verdict and machine labels per report, not whole reports: larger ones spare queries.
RANGE_CHUNK = 20000

# The columns of the corpus CSV, written the same by the streaming writer and by PostgreSQL's COPY.
CSV_COLUMNS = [
    "study", "study_status", "source", "number", "url", "title", "body", "created_at", "matched_keywords",
    "screening", "screening_reason", "summary", "final_type_code", "final_type", "final_theme_code", "final_theme",
    "final_sub_theme_code", "final_sub_theme", "final_how", "final_rationale", "codebook", "labels",
    "machine_labels",
]


def study_status(study: Study) -> str:
    if study.phase == Study.Phase.CLOSED:
        return "closed"
    return f"open ({study.get_phase_display().lower()}): labels may still change"


def id_chunks(study: Study) -> Iterator[list[int]]:
    """The study's report ids in the corpus's order, CHUNK at a time, read from the database as they are needed
    (a server-side cursor on PostgreSQL), so that no list of them all is held."""
    ids = study.issues.order_by("created_at", "id").values_list("id", flat=True).iterator(chunk_size=CHUNK)
    while chunk := list(islice(ids, CHUNK)):
        yield chunk


def id_ranges(study: Study, size: int | None = None) -> Iterator[tuple[int, int]]:
    """The study's report ids in id order as ranges (first, last) of `size` (RANGE_CHUNK) reports each: a range
    is read by an index range scan, where a list of ids costs a lookup per id."""
    size = size or RANGE_CHUNK
    ids = study.issues.order_by("id").values_list("id", flat=True).iterator(chunk_size=size)
    while chunk := list(islice(ids, size)):
        yield chunk[0], chunk[-1]
