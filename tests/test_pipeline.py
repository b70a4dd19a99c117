"""Import → label by three annotators → kappa → export, end to end through the real interfaces."""
from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.management import call_command
from django.urls import reverse

from annotation.services.studies import create_study
from ingest.models import Issue
from taxonomy.models import Category, Codebook

pytestmark = pytest.mark.django_db

# Each annotator's theme per report (reports 1-4), as they will type them.
PLAN = {
    "alice": ["C.1", "C.2", "B.1", "C.1"],
    "bob": ["C.1", "C.2", "B.1", "B.2"],
    "charlie": ["C.1", "C.3", "B.1", "C.1"],
}


def test_import_label_agree_export(tmp_path, client_as, lead, annotator_a, annotator_b, annotator_c):
    path = tmp_path / "issues.jsonl"
    path.write_text("\n".join(json.dumps({"number": n, "title": f"Report {n}", "body": "llama OOM",
                                          "created_at": f"2024-01-0{n}T00:00:00Z"}) for n in range(1, 5)))
    call_command("load_codebook")
    call_command("import_issues", str(path), "--source", "o/r")
    study = create_study(name="Pipeline", codebook=Codebook.objects.get(), issues=Issue.objects.all(), lead=lead,
                         annotators=[annotator_a, annotator_b, annotator_c])

    for user in (annotator_a, annotator_b, annotator_c):
        client = client_as(user)
        for code in PLAN[user.username]:
            page = client.get(reverse("annotation:queue", args=[study.pk])).content.decode()
            issue_id = int(page.split('data-issue="')[1].split('"')[0])
            theme = Category.objects.get(code=code)
            response = client.post(reverse("annotation:label_submit", args=[study.pk, issue_id]),
                                   {"type": theme.parent_id, "theme": theme.pk})
            assert response.status_code == 302

    # The lead labels blind by default; this lead does not label, and says so to see the figures.
    assert client_as(lead).get(reverse("api:study_agreement", args=[study.pk])).status_code == 403
    client_as(lead).post(reverse("annotation:stop_labeling", args=[study.pk]), {"expected_round": 1, "confirm": "yes"})
    figures = client_as(lead).get(reverse("api:study_agreement", args=[study.pk])).json()
    # Type: reports 1,2 all C; report 3 all B; report 4 C,B,C. Hand-computed:
    # P_i = 1, 1, 1, 1/3 → P̄ = 5/6; p = (B 4/12, C 8/12) → P̄e = 5/9; κ = (5/6 − 5/9)/(1 − 5/9) = 0.625
    assert figures["type"]["kappa"] == pytest.approx(0.625)
    assert figures["type"]["reports"] == 4 and figures["type"]["raters"] == 3
    page = client_as(lead).get(reverse("agreement:study_agreement", args=[study.pk])).content.decode()
    assert "0.625" in page

    export = client_as(lead).get(reverse("annotation:study_export_csv", args=[study.pk]))
    rows = list(csv.DictReader(io.StringIO(b"".join(export.streaming_content).decode())))
    assert len(rows) == 12
    assert sorted(r["theme_code"] for r in rows if r["annotator"] == "bob") == sorted(PLAN["bob"])
