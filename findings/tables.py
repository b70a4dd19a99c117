"""The study's tables and figures, computed from its final labels (before the study closes, with what the votes
settle on where there is none yet), never typed: the Table 1 view (reports per source by year and by type, with
the keyword filter's false-positive rate) and the Figure 3 view (reports per theme, and each theme's and each
group of themes' share of its type, all from the same counts)."""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from annotation.models import NOT_RELEVANT, FinalLabel, Study
from annotation.selectors.votes import current_votes
from ingest.models import Source
from ingest.selectors import source_report
from stats.ties import final_label
from taxonomy.models import Category

NO_FINAL = "no final label"


@dataclass
class SourceRow:
    source: str
    reports: int
    by_year: dict[int, int]
    by_type: dict[str, int]
    false_positive: dict | None  # {"successes", "n", "rate", "low", "high"} from screening


@dataclass
class ThemeRow:
    code: str
    name: str
    count: int
    share: float | None  # of its type's reports with a final theme


@dataclass
class TypeBlock:
    code: str
    name: str
    total: int
    themes: list[ThemeRow] = field(default_factory=list)
    groups: list[tuple[str, list[str], int, float | None]] = field(default_factory=list)


def share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def _rate(rate) -> dict | None:
    if rate is None or not rate.n:
        return None
    return {"successes": rate.successes, "n": rate.n, "rate": rate.successes / rate.n, "low": rate.low,
            "high": rate.high}


def provisional(study: Study) -> bool:
    """Before the study closes its figures come partly from what the votes settle on, and may still change."""
    return study.phase != Study.Phase.CLOSED


def _finals(study: Study) -> dict[int, tuple[int | None, int | None, bool]]:
    """Each report's final label (type, theme, relevant); before the study closes, the reports without one yet
    count with what their current votes settle on, as the comparisons do. Reports still tied are left out."""
    finals = {i: (t, th, rel) for i, t, th, rel in FinalLabel.objects.filter(study=study).values_list(
        "issue_id", "type_id", "theme_id", "is_relevant")}
    if not provisional(study):
        return finals
    for issue_id, votes in current_votes(study).items():
        settled = None if issue_id in finals else final_label(list(votes.values()))
        if settled is not None:
            (type_id, theme_id, _), _ = settled
            relevant = type_id != NOT_RELEVANT
            finals[issue_id] = (type_id if relevant else None, theme_id if relevant else None, relevant)
    return finals


def table1(study: Study) -> tuple[list[SourceRow], list[int], list[str]]:
    names = dict(Category.objects.filter(codebook=study.codebook_id).values_list("pk", "name"))
    finals = _finals(study)
    issues = study.issues.values_list("pk", "source_id", "created_at__year")
    per_source: dict[int, list[tuple[int, int | None]]] = defaultdict(list)
    for pk, source_id, year in issues:
        per_source[source_id].append((pk, year))
    rows, years = [], set()
    type_names = [c.name for c in Category.objects.filter(codebook=study.codebook_id, level=Category.Level.TYPE,
                                                          retired_at__isnull=True).order_by("position")]
    for source in Source.objects.filter(pk__in=per_source).order_by("full_name"):
        by_year, by_type = Counter(), Counter()
        for pk, year in per_source[source.pk]:
            if year:
                by_year[year] += 1
                years.add(year)
            final = finals.get(pk)
            by_type[NO_FINAL if final is None else (names[final[0]] if final[2] else "Not relevant")] += 1
        rows.append(SourceRow(source.full_name, len(per_source[source.pk]), dict(by_year), dict(by_type),
                              _rate(source_report(source).false_positive)))
    types = [*type_names, "Not relevant", NO_FINAL]
    return rows, sorted(years), types


def figure3(study: Study, groups: dict[str, list[str]] | None = None) -> list[TypeBlock]:
    """Per type: reports per theme (final labels) and each theme's share of the type; a group's share is its
    summed count over the same total, so parts always add up to their group."""
    categories = list(Category.objects.filter(codebook=study.codebook_id).order_by("position", "code"))
    counts = Counter(theme for _, theme, rel in _finals(study).values() if rel and theme)
    return [_block(type_, categories, counts, groups or {})
            for type_ in categories if type_.level == Category.Level.TYPE and type_.retired_at is None]


def _block(type_: Category, categories: list[Category], counts: Counter, groups: dict[str, list[str]]) -> TypeBlock:
    # Its standing themes, and a retired one only where final labels still use it.
    themes = [c for c in categories if c.parent_id == type_.pk and (c.retired_at is None or counts[c.pk])]
    total = sum(counts[t.pk] for t in themes)
    block = TypeBlock(type_.code, type_.name, total,
                      [ThemeRow(t.code, t.name, counts[t.pk], share(counts[t.pk], total)) for t in themes])
    block.groups = _groups({t.code: counts[t.pk] for t in themes}, groups, total)
    return block


def _groups(codes: dict[str, int], groups: dict[str, list[str]], total: int) -> list[tuple]:
    """Each group with themes of this type: its themes here, their summed count, and its share of the type."""
    found = []
    for name, members in groups.items():
        inside = [m for m in members if m in codes]
        if inside:
            summed = sum(codes[m] for m in inside)
            found.append((name, inside, summed, share(summed, total)))
    return found


def unknown_in_groups(study: Study, groups: dict[str, list[str]]) -> list[str]:
    """The codes a group names that are no theme of the study's codebook, as "C.99 (in Resources)": said on the
    page rather than silently left out of the group's share."""
    themes = set(Category.objects.filter(codebook=study.codebook_id, level=Category.Level.THEME)
                 .values_list("code", flat=True))
    return [f"{code} (in {name})" for name, members in groups.items() for code in members if code not in themes]


def parse_groups(text: str) -> dict[str, list[str]]:
    """Lines like "Resource and memory: C.2, C.4" → {"Resource and memory": ["C.2", "C.4"]}."""
    groups = {}
    for line in text.splitlines():
        name, _, members = line.partition(":")
        codes = [c.strip() for c in members.split(",") if c.strip()]
        if name.strip() and codes:
            groups[name.strip()] = codes
    return groups


def as_json(study: Study, groups: dict[str, list[str]] | None = None) -> dict:
    rows, years, types = table1(study)
    return {
        "study": study.name,
        "provisional": provisional(study),
        "table1": {"years": years, "types": types, "sources": [vars(r) for r in rows]},
        "figure3": [{**{k: v for k, v in vars(b).items() if k not in {"themes", "groups"}},
                     "themes": [vars(t) for t in b.themes],
                     "groups": [{"name": n, "themes": m, "count": c, "share": s} for n, m, c, s in b.groups]}
                    for b in figure3(study, groups)],
    }
