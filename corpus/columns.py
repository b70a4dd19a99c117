"""What every form of the corpus says of itself: the CSV's columns, in order, and the study's status."""
from __future__ import annotations

from annotation.models import Study

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
