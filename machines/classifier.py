"""Pure: the built-in machine rater, a text classifier that needs no network. TF-IDF of each report's title and
opening text, and a linear model per level — the type; the theme given the type; the sub-theme given the
theme — cross-fitted: the reports are dealt into k folds and each fold is rated by models trained on the other
folds only, so no report is ever rated by a model that saw its label.

The vocabulary and its weights are learned once from every report's text (no label is read for that), which
keeps 40,000 reports to one pass over the text instead of k."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from concord.lazy_numpy import np

Label = tuple[str, str | None, str | None]  # (type code or "NR", theme code, sub-theme code)
# A report's first characters carry what it is about; the rest is mostly logs and code.
TEXT_CHARS = 4000
FOLDS = 5


@dataclass(frozen=True)
class Settings:
    """What reproduces a built-in model's labels, kept with them."""

    folds: int = FOLDS
    seed: int = 0
    text_chars: int = TEXT_CHARS
    max_features: int = 100_000
    ngrams: tuple[int, int] = (1, 2)


class _Level:
    """One level's model: a linear classifier, or the single label when the training data has only one."""

    def __init__(self, x, y: list[str], seed: int):
        self.only = y[0] if len(set(y)) == 1 else None
        if self.only is None:
            from sklearn.linear_model import SGDClassifier  # deferred: heavy, half a second to import

            # Regularised as labels made by people need: at α 1e-5 the model fitted their disagreements and trailed
            # a plain logistic regression by 3 to 4 points on noisy labels; at 1e-3 it matches or passes it, and
            # stays fast (tests/machines/test_classifier.py measures it against that baseline).
            self.model = SGDClassifier(loss="hinge", alpha=1e-3, max_iter=15, tol=None, random_state=seed)
            self.model.fit(x, y)

    def predict(self, x) -> list[str]:
        if self.only is not None:
            return [self.only] * x.shape[0]
        return list(self.model.predict(x))


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


def rate(texts: Sequence[str], labels: Sequence[Label | None], settings: Settings = Settings(),
         progress: Callable[[int, int], None] | None = None) -> list[Label | None]:
    """A label for every report: `labels[i]` is report i's training label (its final or plurality label), None
    where it has none. Each report is rated by the models of the folds it is not in; None when no report of
    the other folds has a label to learn from. `progress(folds done, folds)` is called before each fold and at
    the end."""
    n = len(texts)
    if len(labels) != n:
        raise ValueError(f"{n} texts but {len(labels)} labels")
    from sklearn.feature_extraction.text import TfidfVectorizer  # deferred: heavy, half a second to import

    x = TfidfVectorizer(sublinear_tf=True, min_df=2 if n > 50 else 1, max_features=settings.max_features,
                        ngram_range=settings.ngrams, dtype=np.float32).fit_transform(
        [text[:settings.text_chars] for text in texts])
    types = [lb[0] if lb else None for lb in labels]
    themes = [lb[1] if lb and lb[0] != "NR" else None for lb in labels]
    subs = [lb[2] if lb and lb[0] != "NR" else None for lb in labels]
    order = np.random.default_rng(settings.seed).permutation(n)
    folds = np.array_split(order, max(2, settings.folds))
    out: list[Label | None] = [None] * n
    labeled = np.array([t is not None for t in types])
    for done, fold in enumerate(folds, start=1):
        if progress is not None:
            progress(done - 1, len(folds))
        train = np.setdiff1d(np.flatnonzero(labeled), fold, assume_unique=True)
        if not len(train) or not len(fold):
            continue
        fold = np.sort(fold)
        type_model = _Level(x[train], [types[i] for i in train], settings.seed)
        theme_models = _fit_below(x, train, types, themes, settings.seed)
        sub_models = _fit_below(x, train, themes, subs, settings.seed)
        rated_types = type_model.predict(x[fold])
        rated_themes = _below(theme_models, x, fold, [t if t != "NR" else None for t in rated_types])
        rated_subs = _below(sub_models, x, fold, rated_themes)
        for i, t, th, sub in zip(fold, rated_types, rated_themes, rated_subs, strict=True):
            out[int(i)] = (t, None, None) if t == "NR" else (t, th, sub)
    if progress is not None:
        progress(len(folds), len(folds))
    return out
