"""The only ORM reader in agreement/: builds rating tables for a study's round and calls the pure maths."""
from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cached_property
from itertools import compress

from django.contrib.auth import get_user_model
from django.db.models import Count, Exists, OuterRef

from annotation.models import NOT_RELEVANT, FinalLabel, Label, Round, Seat, SeatLabel
from annotation.selectors.labels import counted_in_round
from concord.int_columns import int_columns, int_pieces
from stats.alpha import alpha_counts_figure
from stats.coefficients import Coefficient, coefficients, diverge
from stats.confusion import Pair, top_pairs
from stats.figures import Figure
from stats.kappa import fleiss_matrix_figure
from stats.lazy_numpy import np
from stats.matrices import RatingTable, complete_counts, grouped_counts
from stats.per_code import per_code
from stats.raters import RaterAgreement, rater_agreement_table
from stats.resampling import shared
from stats.resampling import start as start_resampling
from stats.tree_alpha import TreeDistance, coincidence_matrix, tree_alpha_counts, tree_alpha_interval
from taxonomy.codes import sort_key
from taxonomy.models import Category
from taxonomy.selectors import types_of

LEVELS = ("theme", "sub_theme")
RESAMPLES = 1000
# The tree distance's alpha is resampled over its own distinct rows (every path down to the level), a draw and a
# column per path each time, so its cost is resamples × distinct rows. A study with many rows gets 100 resamples,
# which keeps the dashboard within its second; a small one as many as its rows allow up to 1,000, because with
# 100 the percentile interval covered the population's alpha in only 92 % of 60-report studies (94 % with 1,000,
# and about 95 % from a few hundred reports on with either: tests/stats/test_tree_alpha.py).
TREE_RESAMPLES = 100
TREE_BUDGET = 400_000  # resamples × distinct rows: 1,000 resamples up to 400 rows, 100 from 4,000 rows on


def tree_resamples(distinct_rows: int, most: int = RESAMPLES) -> int:
    """How many resamples the tree alpha's interval draws over this many distinct rows."""
    return min(most, max(TREE_RESAMPLES, TREE_BUDGET // max(1, distinct_rows)))


@dataclass
class TypeAgreement:
    type: Category
    fleiss: Figure
    alpha: Figure
    others: dict[str, Coefficient] = field(default_factory=dict)  # AC1 and Brennan–Prediger beside Fleiss'
    per_code: list[dict] = field(default_factory=list)  # alpha-binary and per-category kappa of each category
    # Fleiss' kappa at the level among the reports every rater gave this type: the theme agreement once the type
    # is not in doubt.
    unanimous: Figure | None = None
    # Krippendorff's alpha over the labels' paths in the codebook with the tree distance (stats.tree_alpha),
    # and its bootstrap interval (filled in when the shared resamples are drawn).
    tree_alpha: float | None = None
    tree_alpha_ci: list = field(default_factory=lambda: [None, None])

    @property
    def result(self) -> Figure:
        return self.fleiss


@dataclass
class StudyAgreement:
    round: Round
    level: str
    basis: str  # what decided each report's type for the per-type figures
    by_type: Figure
    type_alpha: Figure
    per_type: list[TypeAgreement]
    raters: list[RaterAgreement]
    controversial: dict[str, int] = field(default_factory=dict)
    no_type: list[int] = field(default_factory=list)  # reports with no final type and a tied plurality
    type_others: dict[str, Coefficient] = field(default_factory=dict)
    type_per_code: list[dict] = field(default_factory=list)
    # Over every report, each label's path down to the level: a confusion across types costs most.
    tree_alpha: float | None = None
    tree_alpha_ci: list = field(default_factory=lambda: [None, None])
    tree: TreeDistance = field(default_factory=TreeDistance)
    # The pairs of categories most often given to one report, at type level and at the level (stats.confusion).
    confusion: dict[str, list[Pair]] = field(default_factory=dict)
    # Krippendorff's coincidence matrix of people's labels at type level and at the level: categories, matrix.
    coincidences: dict[str, tuple[list[str], list[list[float]]]] = field(default_factory=dict)


@dataclass
class _Labels:
    """One round's labels as a table per level: reports × raters, the category each rater gave."""

    issues: list[int]  # table row → issue id, in id order
    raters: list[str]  # table column → username
    tables: dict[str, RatingTable]  # "type", "theme", "sub_theme"

    def paths(self, level: str) -> tuple[RatingTable, list[tuple[str, ...]]]:
        """Each label as its path in the codebook down to `level` (type, theme, sub-theme as given): a table of
        path indexes, and the paths."""
        levels = ("type", "theme") if level == "theme" else ("type", "theme", "sub_theme")
        tables = [self.tables[lv] for lv in levels]
        key = np.zeros(tables[0].codes.shape, dtype=np.int64)
        for table in tables:
            key = key * (len(table.categories) + 1) + (table.codes.astype(np.int64) + 1)
        given = tables[0].codes >= 0
        found, index = np.unique(key[given], return_inverse=True)
        codes = np.full(key.shape, -1, dtype=np.int32)
        codes[given] = index
        paths = []
        for k in found.tolist():
            parts = []
            for table in reversed(tables):
                k, at = divmod(k, len(table.categories) + 1)
                parts.append(table.categories[at - 1] if at else None)
            paths.append(tuple(p for p in reversed(parts) if p is not None))
        return RatingTable(self.issues, ["/".join(p) for p in paths], codes), paths

    @cached_property
    def type_plurality(self) -> tuple[np.ndarray, np.ndarray]:
        """Per report: the index of its most frequent type (the lowest of those tied), and whether it is tied
        (or there is none); the reference type and the ties both start from it."""
        return _plurality_of_codes(self.tables["type"].codes)


TABLE_IDS = 1 << 22  # category ids below which a label's place is looked up in a table (4 bytes an id at most)


class _Places:
    """Each category pk's place among the codebook's ids (−1: not relevant, 0: not given, then the pks in order),
    found for a piece of the labels at a time: two bytes a label where there are fewer than 32,768 ids."""

    def __init__(self, names: dict[int, str]) -> None:
        self.keys = np.array(sorted({-1, 0, *names}), dtype=np.int64)
        self.dtype = np.int16 if len(self.keys) < 1 << 15 else np.int32
        # Looked up in a table of every id up to the largest (one pass over the labels), or found by bisection
        # where the ids are too far apart for such a table.
        self.table = None
        if self.keys[-1] < TABLE_IDS:
            self.table = np.full(int(self.keys[-1]) + 2, -1, dtype=self.dtype)
            self.table[self.keys + 1] = np.arange(len(self.keys), dtype=self.dtype)

    def of(self, values: np.ndarray) -> np.ndarray:
        keys = self.keys
        if self.table is not None:
            outside = (values < -1) | (values > keys[-1])
            at = self.table[np.where(outside, 0, values + 1)]
            unknown = len(values) and (outside.any() or (at < 0).any())
        else:
            at = np.searchsorted(keys, values)
            unknown = len(values) and not np.array_equal(keys[np.minimum(at, len(keys) - 1)], values)
            at = at.astype(self.dtype)
        if unknown:
            raise ValueError("a label names a category that is not in the study's codebook")
        return at


def _level_codes(at: np.ndarray, keys: np.ndarray, names: dict[int, str]) -> tuple[list[str], np.ndarray]:
    """Places among the codebook's ids (`_Places`) → the names of the categories used, sorted, and each label's
    index among them (−1 where none was given)."""
    seen = np.bincount(at, minlength=len(keys)) > 0
    name = {int(k): NOT_RELEVANT if k == -1 else names.get(int(k), "") for k in keys}
    labels = sorted((name[int(k)] for k, used in zip(keys, seen, strict=True) if used and k != 0), key=sort_key)
    position = {code: i for i, code in enumerate(labels)}
    lookup = np.array([position[name[int(k)]] if used and k != 0 else -1 for k, used in zip(keys, seen, strict=True)],
                      dtype=np.int32)
    return labels, lookup[at]


def _compact(ids: np.ndarray) -> np.ndarray:
    """Ids as int32 where they fit (half the memory), else int64; in this machine's byte order either way."""
    fits = not len(ids) or (int(ids.min()) >= -(1 << 31) and int(ids.max()) < 1 << 31)
    return ids.astype(np.int32 if fits else np.int64)


def _ranked(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`np.unique(values, return_inverse=True)` for ids: where they lie close together (a round's reports,
    its raters), each id's rank is read from a count of the ids present up to it, one pass with no sort."""
    if not len(values):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    low, high = int(values.min()), int(values.max())
    if high - low > 4 * len(values) + 1024:
        return np.unique(values, return_inverse=True)
    present = np.zeros(high - low + 1, dtype=bool)
    offset = values - low
    present[offset] = True
    rank = np.cumsum(present, dtype=np.int32 if len(present) < 1 << 31 else np.int64) - 1
    return np.flatnonzero(present) + low, rank[offset]


LEVEL_FIELDS = ["issue_id", "annotator_id", "type_id", "theme_id", "sub_theme_id"]


def _seat_piece(round: Round) -> tuple[list[np.ndarray], dict[int, str]]:
    """The votes of the machines standing in people's seats in the round, as label columns in the seat holder's
    place: Fleiss' kappa counts raters per report, and the machine is the one who rated in that place. With the
    new name of each such place."""
    mine = Label.objects.filter(round=round, annotator=OuterRef("seat__annotator"), issue=OuterRef("issue"))
    rows = list(SeatLabel.objects.filter(seat__round=round, seat__given_back_at__isnull=True)
                .exclude(Exists(mine)).order_by()
                .values_list("issue_id", "seat__annotator_id", "type_id", "theme_id", "sub_theme_id"))
    columns = [np.array([r[i] or 0 for r in rows], dtype=np.int64) for i in range(len(LEVEL_FIELDS))]
    names = {seat.annotator_id: f"{seat.annotator.username}, or {seat.machine} in their seat"
             for seat in Seat.objects.filter(round=round, given_back_at__isnull=True).select_related("annotator")}
    return columns, names


def _labels(round: Round, machines: bool = False) -> _Labels:
    """The round's counted labels; with `machines`, and the votes of machines standing in people's seats."""
    names = dict(Category.objects.filter(codebook=round.study.codebook_id).values_list("pk", "code"))
    places = _Places(names)

    def compact(columns: list[np.ndarray]) -> list[np.ndarray]:
        # A piece's labels as they are kept, 14 bytes each instead of 40, made while the next piece is packed.
        # Relevance is not read: a label has a type exactly when it is relevant (a constraint of the table), and
        # NULL is read as 0.
        issue, annotator, *levels = columns
        not_relevant = levels[0] == 0
        return [_compact(issue), _compact(annotator), *(places.of(np.where(not_relevant, -1, v)) for v in levels)]

    # order_by() drops the model's default ordering, which would join and sort every row.
    pieces = int_pieces(counted_in_round(round).order_by(), LEVEL_FIELDS, compact)
    machine_names: dict[int, str] = {}
    if machines:
        seat_columns, machine_names = _seat_piece(round)
        if len(seat_columns[0]):
            pieces.append(compact(seat_columns))
    columns = []
    for i in range(len(LEVEL_FIELDS)):  # each column's pieces let go once it is whole
        columns.append(np.concatenate([piece[i] for piece in pieces]))
        for piece in pieces:
            piece[i] = None
    issues, row = _ranked(columns[0])
    annotators, col = _ranked(columns[1])
    columns[:2] = [None, None]
    # Each label's cell in a reports × raters table, found once for the three tables.
    cell = row.astype(np.int64) * len(annotators) + col
    del row, col
    users = dict(get_user_model().objects.filter(pk__in=annotators.tolist()).values_list("pk", "username"))
    issue_ids = issues.tolist()  # one list, shared by the tables: they never change it
    tables = {}
    for i, level in enumerate(("type", "theme", "sub_theme"), start=2):
        categories, index = _level_codes(columns[i], places.keys, names)
        columns[i] = None
        codes = np.full((len(issues), len(annotators)), -1, dtype=np.int32)
        codes.ravel()[cell] = index
        tables[level] = RatingTable(issue_ids, categories, codes)
    users |= machine_names
    return _Labels(issue_ids, [users[int(a)] for a in annotators], tables)


def _plurality_of_codes(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per report of a reports × raters table of codes (−1: none), without its reports × categories counts:
    the lowest of the most frequent codes (0 where there is none), and whether the top count is shared or
    absent. Each report's codes sorted, then the runs of equal codes counted, a rater at a time."""
    ordered = np.sort(codes, axis=1)  # −1 first; each code's raters side by side
    n, r = ordered.shape
    run = np.zeros((n, r), dtype=np.int32)  # per place: how many raters so far in its run of one code
    for c in range(r):
        given = ordered[:, c] >= 0
        if c:
            run[:, c] = np.where(given, np.where(ordered[:, c] == ordered[:, c - 1], run[:, c - 1] + 1, 1), 0)
        else:
            run[:, c] = given
    top = run.max(axis=1) if r else np.zeros(n, dtype=np.int32)
    at_top = run == top[:, None]  # one place per code that reaches the top count (the end of its run)
    # The lowest code at the top: the first place there, codes being sorted.
    winner = np.where(top > 0, ordered[np.arange(n), np.argmax(at_top, axis=1)] if r else 0, 0)
    return winner.astype(np.int64), (at_top.sum(axis=1) > 1) | (top == 0)


def _controversial(labels: _Labels) -> dict[str, int]:
    """Vectorised stats.ties.controversial_levels over every report: the type's plurality, then the theme's
    among the labels of that type, then the sub-theme's among the labels of that theme."""
    types, themes, subs = (labels.tables[level].codes for level in ("type", "theme", "sub_theme"))
    type_winner, type_tied = labels.type_plurality
    theme_of_type = np.where(types == type_winner[:, None], themes, -1)
    theme_winner, theme_tied = _plurality_of_codes(theme_of_type)
    theme_tied &= (theme_of_type >= 0).any(axis=1)
    sub_of_theme = np.where(themes == theme_winner[:, None], subs, -1)
    _, sub_tied = _plurality_of_codes(sub_of_theme)
    sub_tied &= (sub_of_theme >= 0).any(axis=1)
    return {"type": int(type_tied.sum()), "theme": int((~type_tied & theme_tied).sum()),
            "sub_theme": int((~type_tied & ~theme_tied & sub_tied).sum())}


def _final_types(round: Round, labels: _Labels) -> tuple[np.ndarray, str]:
    """Per row, the final type's name: the decision if there is one, else the plurality ("" when tied)."""
    decided, decided_types = int_columns(FinalLabel.objects.filter(study=round.study_id).order_by(),
                                         ["issue_id", "type_id"])
    categories = labels.tables["type"].categories
    winner, tied = labels.type_plurality
    final = np.array([*categories, ""], dtype=object)[np.where(tied, len(categories), winner)]
    # Rows are in issue id order (np.unique), so a decided report's row is found by bisection.
    issues = np.asarray(labels.issues, dtype=np.int64)
    at = np.searchsorted(issues, decided)
    found = at < len(issues)
    found[found] = issues[at[found]] == decided[found]
    kinds, which = np.unique(decided_types[found], return_inverse=True)
    codes = dict(Category.objects.filter(pk__in=kinds.tolist()).values_list("pk", "code"))
    final[at[found]] = np.array([codes[int(k)] if k else NOT_RELEVANT for k in kinds], dtype=object)[which]
    basis = "final labels" if len(decided) else "plurality of the labels (no final labels yet)"
    if len(decided) and int(found.sum()) < len(issues):
        basis = "final labels where decided, else the plurality of the labels"
    return final, basis


def study_agreement(round: Round, level: str = "theme", resamples: int = RESAMPLES, seed: int = 0,
                    machines: bool = False) -> StudyAgreement:
    """Every figure of the dashboard for one round (as the study computed its kappas).

    Type: all reports, "not relevant" a category of its own. Per type T at `level`: the reports whose final
    (or, before adjudication, plurality) type is T, the categories being the distinct labels raters gave, a
    label of another type counting as a category of its own.
    """
    if level not in LEVELS:
        raise ValueError(f"level: one of {', '.join(LEVELS)}")
    return agreement_from(read_round(round, machines), level, resamples, seed)


@dataclass
class RoundLabels:
    """What the dashboard's figures are computed from, read from the database: the labels as tables, each
    report's reference type, and the codebook's types."""

    round: Round
    labels: _Labels
    final: np.ndarray
    basis: str
    types: list[Category]
    # How many categories the codebook offers at each level ("not relevant" included): Brennan–Prediger's q
    # as Gwet recommends it.
    offered: dict[str, int] = field(default_factory=dict)
    # The study's tree distance, for alpha over the codebook's paths.
    tree: TreeDistance = field(default_factory=TreeDistance)


def read_round(round: Round, machines: bool = False) -> RoundLabels:
    """With `machines`, a machine standing in a person's seat counts as a rater of its seat's reports."""
    labels = _labels(round, machines)
    final, basis = _final_types(round, labels)
    live = dict(Category.objects.filter(codebook=round.study.codebook_id, retired_at__isnull=True).order_by()
                .values_list("level").annotate(n=Count("pk")))
    offered = {level: live.get(level, 0) + 1 for level in LEVELS + ("type",)}
    study = round.study
    return RoundLabels(round, labels, final, basis, list(types_of(study.codebook)), offered,
                       TreeDistance(study.tree_sibling, study.tree_same_type))


def agreement_from(read: RoundLabels, level: str = "theme", resamples: int = RESAMPLES,
                   seed: int = 0) -> StudyAgreement:
    """The figures from labels already in memory: numpy work only, no query. Figures over the same reports share
    their bootstrap resamples, drawn once every figure has asked for them (stats.resampling.shared)."""
    with shared():
        return _agreement_from(read, level, resamples, seed)


def _agreement_from(read: RoundLabels, level: str, resamples: int, seed: int) -> StudyAgreement:
    round, labels, final, basis = read.round, read.labels, read.final, read.basis
    n_raters = len(labels.raters)
    types = labels.tables["type"]
    # Every figure is a sum over reports: each set of reports is taken as its distinct count rows and their
    # frequencies, found from the codes (stats.matrices.grouped_counts), never as a reports × categories matrix.
    type_rows, type_freq, type_inverse = grouped_counts(types)
    type_index = {c: i for i, c in enumerate(types.categories)}
    # The figures that draw no resamples are computed beside the others: until the first type's resamples
    # start drawing, the second core has nothing else to do.
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="agreement") as beside:
        raters = beside.submit(rater_agreement_table, types.codes, labels.raters, len(types.categories))
        controversial = beside.submit(_controversial, labels)
        paths = labels.paths(level)
        level_rows, level_freq, _ = grouped_counts(labels.tables[level])
        per_type = _per_type(read, level, resamples, seed, (type_rows, type_inverse, type_index), paths)
        return StudyAgreement(
            round=round, level=level, basis=basis,
            by_type=fleiss_matrix_figure(complete_counts(types, None, n_raters,
                                                         grouped=(type_rows, type_freq, type_inverse)),
                                         level="type", resamples=resamples, seed=seed),
            type_alpha=alpha_counts_figure(labels.issues, types.categories, type_rows, level="type",
                                           inverse=type_inverse),
            per_type=[per_type[t.code] for t in read.types],
            raters=raters.result(),
            controversial=controversial.result(),
            no_type=[labels.issues[i] for i in np.flatnonzero(final == "")],
            type_others=_others(type_rows, type_freq, resamples, seed, read.offered.get("type")),
            type_per_code=per_code(type_rows, types.categories, seed=seed, freq=type_freq),
            **_tree_alpha(paths, read.tree, resamples=resamples, seed=seed), tree=read.tree,
            confusion={"type": top_pairs(type_rows, type_freq, types.categories, seed=seed),
                       level: top_pairs(level_rows, level_freq, labels.tables[level].categories, seed=seed)},
            coincidences={"type": (list(types.categories), coincidence_matrix(type_rows, type_freq).tolist()),
                          level: (list(labels.tables[level].categories),
                                  coincidence_matrix(level_rows, level_freq).tolist())},
        )


def _tree_alpha(paths: tuple[RatingTable, list], tree: TreeDistance, rows: np.ndarray | None = None, *,
                resamples: int, seed: int) -> dict:
    """The tree distance's alpha over the reports `rows` picks (all of them: None), and its interval, which the
    shared resamples fill in."""
    table, found = paths
    distinct, freq, _ = grouped_counts(table, rows)
    ci: list = [None, None]
    value = tree_alpha_counts(distinct.astype(float), freq.astype(float), found, tree)
    if value is not None:
        tree_alpha_interval(distinct, freq, found, lambda low, high: ci.__setitem__(slice(None), [low, high]), tree,
                            resamples=tree_resamples(len(distinct), resamples), seed=seed)
    return {"tree_alpha": value, "tree_alpha_ci": ci}


def _per_type(read: RoundLabels, level: str, resamples: int, seed: int, by_type: tuple,
              paths: tuple[RatingTable, list]) -> dict[str, TypeAgreement]:
    """Each type's figures at `level` over the reports whose final type it is."""
    labels, final = read.labels, read.final
    n_raters = len(labels.raters)
    table = labels.tables[level]
    type_rows, type_inverse, type_index = by_type
    per_type: dict[str, TypeAgreement] = {}
    # The type with the most reports first: its resamples, the longest to draw, are drawn while the others'
    # figures are computed, not after (each figure's resamples are its own whatever the order).
    for type_ in sorted(read.types, key=lambda t: -int(np.count_nonzero(final == t.code))):
        rows = final == type_.code
        # The reports every rater gave this type: the type's column of their counts is the number of raters.
        agreed = type_rows[type_inverse, type_index[type_.code]] == n_raters if type_.code in type_index else \
            np.zeros(len(labels.issues), dtype=bool)
        grouped = distinct, freq, inverse = grouped_counts(table, rows)
        subset = list(compress(labels.issues, rows.tolist()))
        alpha = alpha_counts_figure(subset, table.categories, distinct, level=level, type=type_.code,
                                    inverse=inverse)
        matrix = complete_counts(table, rows, n_raters, grouped=grouped)
        fleiss = fleiss_matrix_figure(matrix, level=level, type=type_.code, resamples=resamples, seed=seed)
        unanimous = fleiss_matrix_figure(complete_counts(table, agreed, n_raters, grouped=True), level=level,
                                         type=type_.code, resamples=resamples, seed=seed)
        per_type[type_.code] = TypeAgreement(
            type=type_, fleiss=fleiss, alpha=alpha, others=_others(distinct, freq, resamples, seed,
                                                                   read.offered.get(level)),
            per_code=per_code(distinct, table.categories, seed=seed, freq=freq), unanimous=unanimous,
            **_tree_alpha(paths, read.tree, rows, resamples=resamples, seed=seed))
        start_resampling()  # this type's draws go on while the next type's figures are computed
    return per_type


def _others(rows: np.ndarray, freq: np.ndarray, resamples: int, seed: int,
            offered: int | None = None) -> dict[str, Coefficient]:
    """Fleiss' kappa in Gwet's form (every report with two or more labels), AC1 and Brennan–Prediger over the
    categories the raters used here, and Brennan–Prediger over the `offered` categories of the codebook, from the
    reports' distinct count rows and their frequencies."""
    return coefficients(rows[:, rows.sum(axis=0) > 0], offered=offered, resamples=resamples, seed=seed, freq=freq)


def _coefficients(others: dict[str, Coefficient]) -> dict:
    return {"coefficients": [c.as_dict() for c in others.values()], "diverge": diverge(others)} if others else {}


def _figure(figure: Figure) -> dict:
    data = figure.as_dict()
    data.update(reports=figure.n_reports, raters=figure.n_raters)
    if figure.method.startswith("Fleiss"):
        data["kappa"] = figure.value
    return data


def tree_distance_of(figures: dict) -> dict:
    """The tree distance kept figures were computed with; figures from before it was kept used the default."""
    return figures.get("tree_distance") or {"sibling": TreeDistance().sibling, "same_type": TreeDistance().same_type}


def agreement_figures(agreement: StudyAgreement) -> dict:
    """The figures as plain JSON, for the API, the command and task results."""
    return {
        "round": agreement.round.number,
        "level": agreement.level,
        "basis": agreement.basis,
        "type": _figure(agreement.by_type),
        "type_alpha": _figure(agreement.type_alpha),
        "type_others": _coefficients(agreement.type_others),
        "type_per_code": agreement.type_per_code,
        "tree_alpha": agreement.tree_alpha,
        "tree_alpha_ci": list(agreement.tree_alpha_ci),
        "tree_distance": {"sibling": agreement.tree.sibling, "same_type": agreement.tree.same_type},
        "confusion": {level: [vars(p) | {"ci": list(p.ci)} for p in pairs]
                      for level, pairs in agreement.confusion.items()},
        "coincidences": {level: {"categories": categories, "matrix": matrix}
                         for level, (categories, matrix) in agreement.coincidences.items()},
        "per_type": [
            {"type": t.type.code, "name": t.type.name, "fleiss": _figure(t.fleiss), "alpha": _figure(t.alpha),
             "others": _coefficients(t.others), "per_code": t.per_code,
             "unanimous": _figure(t.unanimous) if t.unanimous else None, "tree_alpha": t.tree_alpha,
             "tree_alpha_ci": list(t.tree_alpha_ci)}
            for t in agreement.per_type
        ],
        "raters": [vars(r) for r in agreement.raters],
        "controversial": agreement.controversial,
        "no_type_reports": len(agreement.no_type),
    }


def figure_counts(round: Round, level: str = "theme") -> list[tuple[str, np.ndarray]]:
    """The count matrix each Fleiss' kappa of the dashboard is computed from (reports every rater labeled),
    named as the dashboard names it: what the planner simulates from."""
    labels = _labels(round)
    n_raters = len(labels.raters)
    final, _ = _final_types(round, labels)
    out = [("Type", complete_counts(labels.tables["type"], None, n_raters).counts)]
    for type_ in types_of(round.study.codebook):
        matrix = complete_counts(labels.tables[level], final == type_.code, n_raters)
        out.append((f"{type_.name} ({type_.code}), at {level.replace('_', '-')} level", matrix.counts))
    return out


def replication_tables(round: Round, machines: bool = False) -> tuple[Iterator[tuple], dict[int, str]]:
    """Exactly the labels the figures count (one row per report and rater: report, rater, and the codes at type,
    theme and sub-theme level, "" where a level was not given), streamed, and each report's reference type
    (final, else plurality; "" while tied): what a replication package recomputes the figures from. With
    `machines`, the votes of machines in people's seats too."""
    labels = _labels(round, machines)
    final, _ = _final_types(round, labels)
    tables = [labels.tables[level] for level in ("type", "theme", "sub_theme")]

    def rows() -> Iterator[tuple]:
        # Every label has a type (or "not relevant"), so the type table marks where the labels are.
        for r, c in zip(*np.nonzero(tables[0].codes >= 0), strict=True):
            yield (labels.issues[r], labels.raters[c],
                   *(t.categories[t.codes[r, c]] if t.codes[r, c] >= 0 else "" for t in tables))

    return rows(), {issue: str(final[i]) for i, issue in enumerate(labels.issues)}
