"""A study's curated explanatory details as CSV, one row per detail with its place in the tree."""
from __future__ import annotations

from collections.abc import Iterator

from concord.csv_stream import csv_lines
from taxonomy.models import Codebook, Detail

DETAIL_COLUMNS = ["type", "theme", "sub_theme", "code", "category", "detail", "example_reports"]


def details_rows(codebook: Codebook) -> Iterator[str]:
    def rows():
        details = (Detail.objects.filter(category__codebook=codebook)
                   .select_related("category__parent__parent").prefetch_related("examples__source")
                   .order_by("category__position", "position"))
        for d in details:
            chain = [d.category]
            while chain[-1].parent_id:
                chain.append(chain[-1].parent)
            names = [c.name for c in reversed(chain)] + [""] * (3 - len(chain))
            examples = " ".join(i.url or f"{i.source.full_name}#{i.number}" for i in d.examples.all())
            yield [*names, d.category.code, d.category.name, d.text, examples]

    return csv_lines(DETAIL_COLUMNS, rows())
