"""Every share of the study's tables three ways: from people's labels alone, from a machine rater's alone, and
prediction-powered (the machine's share corrected with people's labels; stats.ppi). The shares: each type's
(and "not relevant"'s) share of a year's reports and of all of them, as Table 1 counts them; each theme's share
of its type and each sub-theme's of its theme, as Figure 3 does.

People's label of a report is its final label; before the study closes, what its votes settle on where there is
none yet (as the tables count). The prediction-powered share is valid where the reports people labeled are a
random sample of the reports the machine labeled: Concord's queues deal reports in a seeded random order, so
they are while a round runs its course; reports chosen by hand are not."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from annotation.models import NOT_RELEVANT, FinalLabel, QueueWeight, Study
from annotation.planning import order_key
from annotation.selectors.votes import current_votes
from machines.models import MachineRater
from machines.selectors import finals, latest_run, panel, raters_of, run_labels, training_labels
from stats.lazy_numpy import np
from stats.ppi import Estimate, ThreeWays, three_ways, three_ways_by_design
from stats.ties import final_label
from taxonomy.codes import sort_key
from taxonomy.models import Category

from .comparison import LEVELS as COMPARISON_LEVELS
from .comparison import ComparisonError, subsets_by
from .tables import provisional

METHOD = ("prediction-powered inference (PPI++: Angelopoulos, Duchi and Zrnic 2023), power-tuned and never wider "
          "than people's labels alone; normal 95 % intervals; a share of a type or theme linearised as a ratio")


@dataclass
class Row:
    group: str  # what the share is of, as a page names it: a year, a type, a theme
    whole: str  # the same as a code: a year, "" for all years, or the type or theme's code
    code: str
    name: str
    three: ThreeWays


@dataclass
class Section:
    key: str
    title: str
    rows: list[Row]


@dataclass
class Estimates:
    rater: MachineRater
    run_number: int
    reports: int  # reports the machine labeled: the population
    labeled: int  # of those, with people's label
    left_out: int  # reports people labeled that the machine did not, left out
    sections: list[Section]
    design: str  # the study's queue order
    sample: int  # people's labeled reports the estimates use
    set_aside: int  # people's labeled reports beyond the sample, not used
    valid: bool  # whether people's labels are a sample the powered share may use
    in_sample: object = None  # per report (as `inputs` orders them): whether its people's label is used
    chance: object = None  # per report: its chance of being in the sample, where the design makes them unequal
    method: str = METHOD


def default_rater(study: Study) -> MachineRater | None:
    """The rater whose labels the estimates use unless the page is told: one with a standing decision to stand
    in for an annotator, else the one whose labels were rated last."""
    best, newest = None, None
    for rater in raters_of(study):
        run = latest_run(rater)
        if run is None:
            continue
        if rater.decisions.filter(withdrawn_at__isnull=True).exists():
            return rater
        if newest is None or (run.finished_at, run.pk) > newest:
            best, newest = rater, (run.finished_at, run.pk)
    return best


def people_labels(study: Study) -> dict:
    """Each report's final label as codes; before the study closes, with what people's votes settle on. A final
    label the votes settled with a machine's vote in a person's seat is not people's: it is what people's votes
    alone settle on, and none where they tie (the machine's side of an estimate must not be on both sides)."""
    if provisional(study):
        return training_labels(study, panel(study), MachineRater.Training.FINAL)
    labels = finals(study)
    seated = set(FinalLabel.objects.filter(study=study, machine_votes__gt=0).exclude(
        method=FinalLabel.Method.LEAD).values_list("issue_id", flat=True))
    if seated:
        codes = dict(Category.objects.filter(codebook=study.codebook_id).values_list("pk", "code"))
        votes = current_votes(study, machines=False)
        for issue_id in seated:
            settled = final_label(list(votes.get(issue_id, {}).values()))
            if settled is None:
                labels.pop(issue_id, None)
                continue
            chain, _ = settled
            labels[issue_id] = (NOT_RELEVANT, None, None) if chain[0] == NOT_RELEVANT else \
                tuple(codes.get(c) if c else None for c in chain)
    return labels


@dataclass
class Inputs:
    """Per report the machine labeled (ids in order): its year, people's label (None where they gave none) and
    the machine's, as codes; and how many reports people labeled that the machine did not."""

    run_number: int
    ids: list[int]
    years: list[int | None]
    people: list
    machine: list
    left_out: int


def inputs(study: Study, rater: MachineRater) -> Inputs | None:
    run = latest_run(rater)
    if run is None:
        return None
    machine, _ = run_labels(run)
    machine = {pk: chain for pk, chain in machine.items() if chain is not None}
    people = people_labels(study)
    years = dict(study.issues.filter(pk__in=list(machine)).values_list("pk", "created_at__year"))
    ids = sorted(machine)
    return Inputs(run.number, ids, [years.get(pk) for pk in ids], [people.get(pk) for pk in ids],
                  [machine[pk] for pk in ids], len(set(people) - set(machine)))


def _codes(chains: list, at: int) -> np.ndarray:
    return np.array([(c[at] or "") if c else "" for c in chains], dtype=object)


def _tree(study: Study) -> tuple[dict[str, str], dict[str, list[str]], list[str]]:
    """The study's codebook as the tables read it: each code's name, each category's standing children in
    order, and the standing types."""
    names = dict(Category.objects.filter(codebook=study.codebook_id).values_list("code", "name"))
    categories = list(Category.objects.filter(codebook=study.codebook_id).order_by("position", "code")
                      .values_list("code", "level", "parent__code", "retired_at"))
    children: dict[str, list[str]] = defaultdict(list)
    for code, _level, parent, retired in categories:
        if parent and retired is None:
            children[parent].append(code)
    types = [code for code, level, _, retired in categories if level == Category.Level.TYPE and retired is None]
    return names, children, types


def estimates(study: Study, rater: MachineRater, given: Inputs | None = None) -> Estimates | None:
    """Every share three ways from `given` (the rater's inputs, read when not given)."""
    given = given or inputs(study, rater)
    if given is None:
        return None
    ids = given.ids
    labeled = np.array([c is not None for c in given.people], dtype=bool)
    machine = [_codes(given.machine, i) for i in range(3)]
    people = [_codes(given.people, i) for i in range(3)]
    year = np.array([y or 0 for y in given.years])
    sample, chance = _sample(study, ids, labeled)
    valid = bool(chance is not None or sample.all() or study.queue_order != Study.QueueOrder.OLDEST)
    names, children, types = _tree(study)

    def share(p_in, p_of, m_in, m_of, within=None) -> ThreeWays:
        keep = np.ones(len(ids), dtype=bool) if within is None else within
        if chance is not None:
            return three_ways_by_design(p_in[keep], p_of[keep], m_in[keep], m_of[keep], sample[keep], chance[keep])
        return three_ways(p_in[keep], p_of[keep], m_in[keep], m_of[keep], sample[keep])

    sections = [Section("type", "Each type's share of the reports, by year (Table 1)",
                        _type_rows(share, people[0], machine[0], year, types, names))]
    for key, title, parents, at in (
            ("theme", "Each theme's share of its type (Figure 3)", types, 0),
            ("sub_theme", "Each sub-theme's share of its theme", [t for p in types for t in children[p]], 1)):
        sections.append(Section(key, title, _child_rows(share, people[at], machine[at], people[at + 1],
                                                        machine[at + 1], parents, children, names)))
    return Estimates(rater, given.run_number, len(ids), int(labeled.sum()), given.left_out, sections,
                     study.queue_order, int(sample.sum()), int((labeled & ~sample).sum()), valid, sample, chance)


def _type_rows(share, p_type, m_type, year, types: list[str], names: dict) -> list[Row]:
    """Each type's share (and not relevant's) of all reports, then of each year's with two reports or more."""
    rows = []
    ones = np.ones(len(year))
    for y in [*sorted({int(v) for v in year if v}), None]:
        within = None if y is None else year == y
        if within is not None and within.sum() < 2:
            continue
        for code in [*types, NOT_RELEVANT]:
            rows.append(Row("all years" if y is None else str(y), "" if y is None else str(y), code,
                            "Not relevant" if code == NOT_RELEVANT else names.get(code, code),
                            share((p_type == code).astype(float), ones, (m_type == code).astype(float), ones,
                                  within)))
    return rows


def _child_rows(share, p_parent, m_parent, p_child, m_child, parents, children, names) -> list[Row]:
    """Each child's share of its parent's reports."""
    rows = []
    for parent in parents:
        p_of, m_of = (p_parent == parent).astype(float), (m_parent == parent).astype(float)
        for code in children[parent]:
            rows.append(Row(f"{parent} {names.get(parent, parent)}", parent, code, names.get(code, code),
                            share(((p_child == code) & (p_of > 0)).astype(float), p_of,
                                  ((m_child == code) & (m_of > 0)).astype(float), m_of)))
    return rows


def _sample(study: Study, ids: list[int], labeled):
    """Which labeled reports the estimates use, and each report's chance of being among them where the design
    gives unequal chances (else None). Oldest first: every labeled report (valid only once all are). Seeded
    random or by a machine's doubt: the reports before the first in the queues' order without people's label;
    under the doubt, report i was in with chance min(1, ξ·weight), ξ that first report's key over its weight."""
    if study.queue_order == Study.QueueOrder.OLDEST or not len(ids):
        return labeled, None
    weights = {}
    if study.queue_order == Study.QueueOrder.CONFIDENCE:
        weights = dict(QueueWeight.objects.filter(study=study).values_list("issue_id", "weight"))
    weight = np.array([weights.get(pk, 1.0) for pk in ids])
    keys = np.array([order_key(study.seed, pk) for pk in ids]) / weight
    missing = keys[~labeled]
    bound = missing.min() if len(missing) else np.inf
    sample = labeled & (keys < bound)
    if study.queue_order != Study.QueueOrder.CONFIDENCE:
        return sample, None
    return sample, np.minimum(1.0, bound * weight)


def _estimate(e) -> dict | None:
    return None if e is None else {"value": e.value, "low": e.low, "high": e.high, "n": e.n,
                                   "unlabeled": e.unlabeled, "lambda": e.lam, "se": e.se}


def as_json(found: Estimates) -> dict:
    """The shares as a replication package and a script that recomputes them read them."""
    return {
        "rater": found.rater.name, "run": found.run_number, "reports": found.reports, "labeled": found.labeled,
        "left_out": found.left_out, "method": found.method, "design": found.design, "sample": found.sample,
        "set_aside": found.set_aside, "valid": found.valid,
        "shares": [{"table": section.key, "whole": row.whole, "code": row.code, "name": row.name,
                    "people": _estimate(row.three.people), "machine": _estimate(row.three.machine),
                    "powered": _estimate(row.three.powered) if found.valid else None,
                    "inside": row.three.inside, "of": row.three.of, "enough": row.three.enough}
                   for section in found.sections for row in section.rows],
    }


def by_subset(study: Study, rater: MachineRater, by: str, level: str, given: Inputs | None = None) -> Section | None:
    """The comparison's shares three ways: in each subset (by source, year, keyword group, verdict or the saved
    subsets), each category's share of the subset's reports with a label at `level` ("not relevant" counts as
    a category, as the comparison counts it), from the same sample as the tables' shares. `given`: the rater's
    inputs, when the caller read them already for the tables' shares."""
    if level not in COMPARISON_LEVELS:
        raise ComparisonError("level", f"one of {', '.join(COMPARISON_LEVELS)}")
    groups = subsets_by(study, by)
    given = given or inputs(study, rater)
    if given is None:
        return None
    ids = given.ids
    labeled = np.array([c is not None for c in given.people], dtype=bool)
    sample, chance = _sample(study, ids, labeled)
    at = COMPARISON_LEVELS.index(level)

    def codes(chains) -> np.ndarray:
        return np.array([("" if not c else NOT_RELEVANT if c[0] == NOT_RELEVANT else (c[at] or "")) for c in chains],
                        dtype=object)

    people, machine = codes(given.people), codes(given.machine)
    names = dict(Category.objects.filter(codebook=study.codebook_id).values_list("code", "name"))
    categories = sorted({c for c in (*people[sample], *machine) if c}, key=sort_key)
    position = {pk: i for i, pk in enumerate(ids)}
    rows = []
    for name in sorted(groups):
        keep = np.zeros(len(ids), dtype=bool)
        keep[[position[pk] for pk in groups[name] if pk in position]] = True
        if keep.sum() < 2:
            continue
        p_of, m_of = (people != "").astype(float), (machine != "").astype(float)
        for code in categories:
            p_in, m_in = (people == code).astype(float), (machine == code).astype(float)
            if chance is not None:
                three = three_ways_by_design(p_in[keep], p_of[keep], m_in[keep], m_of[keep], sample[keep],
                                             chance[keep])
            else:
                three = three_ways(p_in[keep], p_of[keep], m_in[keep], m_of[keep], sample[keep])
            rows.append(Row(name, name, code, "Not relevant" if code == NOT_RELEVANT else names.get(code, code),
                            three))
    return Section("subset", f"Each label's share per subset, by {by.replace('_', ' ')}, at {level.replace('_', '-')} "
                   "level (the comparison)", rows)


def to_kept(found: Estimates) -> dict:
    """The estimates as a worker keeps them for the page (machines.Measurement's figures)."""
    return {
        "run_number": found.run_number, "reports": found.reports, "labeled": found.labeled,
        "left_out": found.left_out, "design": found.design, "sample": found.sample, "set_aside": found.set_aside,
        "valid": found.valid,
        "sections": [{"key": section.key, "title": section.title,
                      "rows": [{"group": row.group, "whole": row.whole, "code": row.code, "name": row.name,
                                "people": _estimate(row.three.people), "machine": _estimate(row.three.machine),
                                "powered": _estimate(row.three.powered), "inside": row.three.inside,
                                "of": row.three.of} for row in section.rows]}
                     for section in found.sections],
    }


def _from_estimate(data: dict | None) -> Estimate | None:
    if data is None:
        return None
    return Estimate(data["value"], data["low"], data["high"], data["se"], data["n"], data["unlabeled"],
                    data["lambda"])


def from_kept(data: dict, rater: MachineRater) -> Estimates:
    sections = [Section(section["key"], section["title"], [
        Row(row["group"], row["whole"], row["code"], row["name"],
            ThreeWays(_from_estimate(row["people"]), _from_estimate(row["machine"]), _from_estimate(row["powered"]),
                      row["inside"], row["of"]))
        for row in section["rows"]]) for section in data["sections"]]
    return Estimates(rater, data["run_number"], data["reports"], data["labeled"], data["left_out"], sections,
                     data["design"], data["sample"], data["set_aside"], data["valid"])
