"""Computing a round's agreement and keeping it as a snapshot (read back by agreement.selectors)."""
from __future__ import annotations

import time

from annotation.models import Label, Round
from annotation.selectors.labels import counted_labels

from .models import AgreementSnapshot
from .reports import agreement_figures, study_agreement


def snapshot(round: Round, level: str = "theme", by=None) -> AgreementSnapshot:
    started = time.perf_counter()
    figures = agreement_figures(study_agreement(round, level))
    counted = counted_labels(Label.objects.filter(round=round)).count()
    return AgreementSnapshot.objects.create(
        study_id=round.study_id, round=round, level=level, labels=counted,
        figures=figures, computed_by=by, seconds=time.perf_counter() - started,
    )

