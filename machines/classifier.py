"""Pure: the built-in machine rater, a text classifier that needs no network. TF-IDF of each report's title and
opening text and linear models: the type and the theme are chosen together, as the pair that a model of the
type and a model of every theme (over all types) find likeliest together; the sub-theme is chosen given the
theme. The models are cross-fitted: the reports are dealt into k folds and each fold is rated by models trained
on the other folds only, so no report is ever rated by a model that saw its label.

The features are hashed word and word-pair counts weighted by TF-IDF, learned once from every report's text (no
label is read for that), which keeps the text to one pass instead of k. Hashing holds no vocabulary: a vocabulary
of every word pair of 160,000 reports took gigabytes before it was cut to its commonest, and a million reports'
would not fit beside the matrix."""
from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from stats.lazy_numpy import np

Label = tuple[str, str | None, str | None]  # (type code or "NR", theme code, sub-theme code)
# A report's first characters carry what it is about; the rest is mostly logs and code.
TEXT_CHARS = 4000
FOLDS = 5
# What each run of the built-in model records, so that labels made by an earlier version of it say so.
MODEL = ("built-in 4: hashed TF-IDF (2^20, the 100,000 commonest; CJK text as character pairs); type and theme "
         "chosen together (logistic, α 5e-4, 5 passes); sub-theme given theme")


# What a built-in model reads, by name: a jury of built-in models differs in these (and in its seed), so that its
# members err on different reports.
FEATURES = {
    "words-1-2": {"ngrams": (1, 2)},  # single words and pairs of words of the title and the body's opening
    "words-1": {"ngrams": (1, 1)},  # single words only
    "opening": {"ngrams": (1, 2), "text_chars": 300},  # the title and the first lines of the body only
}
DEFAULT_FEATURES = "words-1-2"


@dataclass(frozen=True)
class Settings:
    """What reproduces a built-in model's labels, kept with them."""

    folds: int = FOLDS
    seed: int = 0
    text_chars: int = TEXT_CHARS
    max_features: int = 100_000
    features: int = 2 ** 20  # hashed n-grams, few of them colliding, before the commonest are kept
    ngrams: tuple[int, int] = (1, 2)


class _Level:
    """One level's model: a linear classifier, or the single label when the training data has only one."""

    def __init__(self, x, y: list[str], seed: int):
        self.only = y[0] if len(set(y)) == 1 else None
        if self.only is None:
            from sklearn.linear_model import SGDClassifier  # deferred: heavy, half a second to import

            # Logistic loss, for probabilities that can be weighed against another level's; regularised as labels
            # made by people need (α 1e-5 fitted their disagreements and trailed a plain logistic regression by
            # 3 to 4 points on noisy labels; 5e-4 matches it, tests/machines/test_classifier.py). Five passes do
            # as well as fifteen and keep 40,000 reports' 20-theme model within the time of the old per-type ones.
            # One-vs-rest fits on two threads (the fits are independent and seeded alike: the same labels as one).
            self.model = SGDClassifier(loss="log_loss", alpha=5e-4, max_iter=5, tol=None, random_state=seed,
                                       n_jobs=2)
            self.model.fit(x, y)

    @property
    def classes(self) -> list[str]:
        return [self.only] if self.only is not None else list(self.model.classes_)

    def log_proba(self, x):
        """Rows of log-probabilities, one column per class in `classes`."""
        if self.only is not None:
            return np.zeros((x.shape[0], 1))
        return np.log(np.clip(self.model.predict_proba(x), 1e-12, 1.0))

    def predict(self, x) -> list[str]:
        if self.only is not None:
            return [self.only] * x.shape[0]
        return list(self.model.predict(x))


def _key(label: Label) -> str:
    """What the all-themes model learns for a label: its theme, or its type where it has none (NR too)."""
    return label[1] if label[0] != "NR" and label[1] else label[0]


def _type_and_theme(type_model: _Level, key_model: _Level, x
                    ) -> tuple[list[tuple[str, str | None]], np.ndarray, np.ndarray]:
    """For each row, the (type, theme) pair with the highest log P(type) + log P(theme): the theme's own model
    knows themes apart better than a model of one type's themes trained on a third of the reports, and the type's
    model keeps a theme from pulling the type where the text says otherwise. A type with no theme in training is
    weighed with its "no theme" key. Also each pair's confidence: its weight among every pair's, the two models'
    probabilities multiplied, so that the confidences of a row's pairs add up to 1; and the chosen type's
    confidence, the weights of every pair of that type together (what a decision about the type alone rests on)."""
    log_type, log_key = type_model.log_proba(x), key_model.log_proba(x)
    rows = np.arange(x.shape[0])
    total = np.zeros(x.shape[0])
    keys = key_model.classes
    best = np.full(x.shape[0], -np.inf)
    mass = np.zeros((x.shape[0], len(type_model.classes)))
    best_type = np.zeros(x.shape[0], dtype=int)
    chosen: list[tuple[str, str | None]] = [("", None)] * x.shape[0]
    for j, t in enumerate(type_model.classes):
        under = [k for k, key in enumerate(keys) if key == t or key.startswith(f"{t}.")]
        if not under:
            continue
        within = log_key[:, under]
        arg = within.argmax(axis=1)
        score = log_type[:, j] + within[rows, arg]
        mass[:, j] = np.exp(log_type[:, j]) * np.exp(within).sum(axis=1)
        total += mass[:, j]
        for row in np.flatnonzero(score > best):
            key = keys[under[arg[row]]]
            chosen[row] = (t, None if key == t else key)
            best_type[row] = j
        best = np.maximum(best, score)
    with np.errstate(divide="ignore", invalid="ignore"):
        sure = np.where(total > 0, np.exp(best) / total, 0.0)
        sure_of_type = np.where(total > 0, mass[rows, best_type] / total, 0.0)
    return chosen, sure, sure_of_type


def _fit_below(x, rows: np.ndarray, parents: list, children: list, seed: int) -> dict[str, _Level]:
    """A model per parent label, from the training rows whose parent is that label and whose child is given."""
    by_parent: dict[str, list[int]] = {}
    for i in rows:
        if parents[i] is not None and children[i] is not None:
            by_parent.setdefault(parents[i], []).append(i)
    return {parent: _Level(x[picked], [children[i] for i in picked], seed) for parent, picked in by_parent.items()}


def _below(models: dict[str, _Level], x, rows: np.ndarray, parents: list) -> list[str | None]:
    out: list[str | None] = [None] * len(rows)
    for parent, model in models.items():
        at = [k for k, p in enumerate(parents) if p == parent]
        if at:
            for k, label in zip(at, model.predict(x[rows[at]]), strict=True):
                out[k] = label
    return out


# Chinese, Japanese and Korean are written without spaces between words, so a run of their characters is a whole
# sentence to a pattern of word characters, a token no other report shares. Such a run is cut into overlapping
# pairs of characters instead (most Chinese words are two characters long; a lone character is kept as it is),
# as search engines' CJK analysers do; the rest of the text is cut into words as before.
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_HAS_CJK = re.compile(f"[{_CJK}]")
_WORDS = re.compile(r"(?u)\b\w\w+\b")  # scikit-learn's own token pattern, for text with no CJK in it
_TOKENS = re.compile(f"[{_CJK}]+|[^\\W{_CJK}]{{2,}}")


def tokens(text: str) -> list[str]:
    """The words of `text` (already lowercased), with each run of CJK characters as its pairs of characters."""
    if text.isascii() or not _HAS_CJK.search(text):  # most reports: one pass in C, not a regular expression
        return _WORDS.findall(text)
    out = []
    for run in _TOKENS.findall(text):
        if len(run) > 1 and _HAS_CJK.match(run):
            out.extend(run[i:i + 2] for i in range(len(run) - 1))
        else:
            out.append(run)
    return out


HASH_CHUNK = 5000  # texts hashed at once: the hasher's own working memory is some 25 bytes a non-zero


def features(texts: Iterable[str], settings: Settings = Settings()):
    """Each report's TF-IDF row over hashed n-grams of its first `text_chars` characters (float32, L2-normed),
    reading `texts` a chunk at a time: a caller that streams them holds no more than a chunk's text (a million
    reports' text is gigabytes as Python strings). An n-gram found in one report only is dropped where there are
    more than 50 reports, as min_df=2 would: it teaches a model of many reports nothing, and its IDF, the
    highest, would make it loud."""
    from scipy import sparse
    from sklearn.feature_extraction.text import HashingVectorizer, TfidfTransformer  # deferred: heavy

    hasher = HashingVectorizer(n_features=settings.features, alternate_sign=False, norm=None,
                               ngram_range=settings.ngrams, dtype=np.float32, tokenizer=tokens, token_pattern=None)
    stream, chunks = iter(texts), []
    while batch := [text[:settings.text_chars] for text in itertools.islice(stream, HASH_CHUNK)]:
        chunks.append(hasher.transform(batch))
    counts = sparse.vstack(chunks or [hasher.transform([])], format="csr")
    del chunks
    # The columns kept: those of n-grams in at least two reports (where there are more than 50), and of these
    # the `max_features` found in most reports; they are renumbered 0, 1, …, so a class's weights stay small.
    reports = np.bincount(counts.indices, minlength=settings.features)
    kept = np.flatnonzero(reports >= (2 if counts.shape[0] > 50 else 1))
    if len(kept) > settings.max_features:
        kept = np.sort(kept[np.argsort(-reports[kept], kind="stable")[:settings.max_features]])
    column = np.full(settings.features, -1, dtype=np.int64)
    column[kept] = np.arange(len(kept))
    counts.data[column[counts.indices] < 0] = 0
    counts.eliminate_zeros()
    counts = sparse.csr_matrix((counts.data, column[counts.indices].astype(counts.indices.dtype), counts.indptr),
                               shape=(counts.shape[0], max(1, len(kept))))
    # In place: a second matrix of a million reports would be gigabytes more.
    return TfidfTransformer(sublinear_tf=True).fit(counts).transform(counts, copy=False)


def rate(texts: Sequence[str], labels: Sequence[Label | None], settings: Settings = Settings(),
         progress: Callable[[int, int], None] | None = None) -> list[Label | None]:
    """A label for every report: `labels[i]` is report i's training label (its final or plurality label), None
    where it has none. Each report is rated by the models of the folds it is not in; None when no report of
    the other folds has a label to learn from. `progress(folds done, folds)` is called before each fold and at
    the end."""
    if len(labels) != len(texts):
        raise ValueError(f"{len(texts)} texts but {len(labels)} labels")
    return rate_rows(features(texts, settings), labels, settings, progress)


@dataclass(frozen=True)
class Rated:
    """A rating of the reports: each label, the model's confidence in its type and theme together (the chosen
    pair's probability among all pairs) and in its type alone, both calibrated (`calibrated`); None where the
    report was not rated."""
    labels: list[Label | None]
    sure: list[float | None]
    sure_of_type: list[float | None]


def rate_rows(x, labels: Sequence[Label | None], settings: Settings = Settings(),
              progress: Callable[[int, int], None] | None = None) -> list[Label | None]:
    """`rate` for reports whose `features` are the rows of `x`."""
    return rate_rows_sure(x, labels, settings, progress).labels


def _levels(labels: Sequence[Label | None]) -> tuple[list, list, list]:
    """The training labels' types, and their themes and sub-themes (none for a report not relevant)."""
    types = [lb[0] if lb else None for lb in labels]
    themes = [lb[1] if lb and lb[0] != "NR" else None for lb in labels]
    subs = [lb[2] if lb and lb[0] != "NR" else None for lb in labels]
    return types, themes, subs


def _rate_fold(x, train, fold, labels: Sequence[Label | None], levels: tuple[list, list, list], seed: int):
    """The fold's reports rated by models fitted on `train`: per report its index, type, theme, sub-theme, the
    confidence in its type and theme, and in its type."""
    types, themes, subs = levels
    type_model = _Level(x[train], [types[i] for i in train], seed)
    key_model = _Level(x[train], [_key(labels[i]) for i in train], seed)
    sub_models = _fit_below(x, train, themes, subs, seed)
    pairs, sure, of_type = _type_and_theme(type_model, key_model, x[fold])
    rated_types, rated_themes = zip(*pairs, strict=True)
    rated_subs = _below(sub_models, x, fold, list(rated_themes))
    return zip(fold, rated_types, rated_themes, rated_subs, sure, of_type, strict=True)


def rate_rows_sure(x, labels: Sequence[Label | None], settings: Settings = Settings(),
                   progress: Callable[[int, int], None] | None = None) -> Rated:
    """`rate_rows`, with the model's confidence in each label (`Rated`)."""
    n = x.shape[0]
    if len(labels) != n:
        raise ValueError(f"{n} reports but {len(labels)} labels")
    types, themes, subs = _levels(labels)
    order = np.random.default_rng(settings.seed).permutation(n)
    folds = np.array_split(order, max(2, settings.folds))
    out: list[Label | None] = [None] * n
    sure_of: list[float | None] = [None] * n
    sure_of_type: list[float | None] = [None] * n
    labeled = np.array([t is not None for t in types])
    for done, fold in enumerate(folds, start=1):
        if progress is not None:
            progress(done - 1, len(folds))
        train = np.setdiff1d(np.flatnonzero(labeled), fold, assume_unique=True)
        if not len(train) or not len(fold):
            continue
        fold = np.sort(fold)
        for i, t, th, sub, p, q in _rate_fold(x, train, fold, labels, (types, themes, subs), settings.seed):
            out[int(i)] = (t, None, None) if t == "NR" else (t, th, sub)
            sure_of[int(i)], sure_of_type[int(i)] = float(p), float(q)
    if progress is not None:
        progress(len(folds), len(folds))
    return Rated(out, calibrated(sure_of, out, labels, folds),
                 calibrated(sure_of_type, out, labels, folds, right=right_type))


def right_pair(rated: Label | None, given: Label | None) -> bool:
    """Whether a rated label has the training label's type and theme (what the confidence is of)."""
    return rated is not None and given is not None and rated[0] == given[0] and (
        given[0] == "NR" or rated[1] == given[1])


def right_type(rated: Label | None, given: Label | None) -> bool:
    """Whether a rated label has the training label's type (what the confidence of the type is of)."""
    return rated is not None and given is not None and rated[0] == given[0]


def calibrated(sure: list[float | None], rated: list[Label | None], labels: Sequence[Label | None],
               folds: list, right: Callable[[Label | None, Label | None], bool] = right_pair
               ) -> list[float | None]:
    """The model's confidences mapped to how often labels that sure were right: for each fold, an isotonic
    regression of being right on the raw confidence, fitted on the other folds' reports (whose labels were rated
    by models that never saw them), so that no report's confidence is fitted on its own label; reports with no
    training label get the map fitted on every labeled report. Two models' probabilities multiplied, as the raw
    confidence is, are no probability of being right; this one is (the calibration curve on a rater's page)."""
    known = [i for i, p in enumerate(sure) if p is not None and labels[i] is not None]
    truth = {i: float(right(rated[i], labels[i])) for i in known}
    if len(set(truth.values())) < 2:
        return sure
    out = list(sure)
    _map_folds(out, sure, truth, known, folds)
    unlabeled = [i for i, p in enumerate(sure) if p is not None and labels[i] is None]
    if unlabeled:
        _map(out, sure, truth, known, unlabeled)
    return out


def _map_folds(out: list, sure: list, truth: dict[int, float], known: list[int], folds: list) -> None:
    """Each fold's reports mapped by the other folds' labeled reports, where those are both right and wrong."""
    fold_of = {int(i): k for k, fold in enumerate(folds) for i in fold}
    for k, fold in enumerate(folds):
        others = [i for i in known if fold_of[i] != k]
        inside = [int(i) for i in fold if sure[int(i)] is not None]
        if len(others) >= 2 and inside and len({truth[i] for i in others}) == 2:
            _map(out, sure, truth, others, inside)


def _map(out: list, sure: list, truth: dict[int, float], fit_on: list[int], mapped: list[int]) -> None:
    """Set `out` at `mapped` to the isotonic map of being right on confidence fitted on `fit_on`."""
    from sklearn.isotonic import IsotonicRegression  # deferred: heavy

    model = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(
        [sure[i] for i in fit_on], [truth[i] for i in fit_on])
    for i, p in zip(mapped, model.predict([sure[i] for i in mapped]), strict=True):
        out[i] = float(p)
