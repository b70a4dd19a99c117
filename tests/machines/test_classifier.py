"""The built-in machine rater: cross-fitted, so no report is rated by a model that saw its
label; its labels follow the codebook's hierarchy; the same seed gives the same labels."""
from __future__ import annotations

import csv
import gzip
import json
import random
from collections import Counter
from pathlib import Path

import pytest

from machines.classifier import Settings, rate

DATA = Path(__file__).resolve().parent / "data"
THEMES = {"A": ["A.1", "A.2"], "B": ["B.1", "B.2"], "C": ["C.1", "C.2", "C.3"]}


def _labels(n: int, seed: int = 1):
    pick = random.Random(seed)
    out = []
    for _ in range(n):
        t = pick.choice([*THEMES, "NR"])
        out.append(("NR", None, None) if t == "NR" else (t, (theme := pick.choice(THEMES[t])), f"{theme}.i"))
    return out


def test_a_label_seen_in_training_is_never_the_one_rated():
    # Each report's text is a token of its own: a model that had seen a report's label would repeat it. Rated
    # only by models of the other folds, the labels match no better than chance.
    labels = _labels(400)
    texts = [f"report token{n}x" for n in range(400)]
    out = rate(texts, labels)
    same = sum(a[0] == b[0] for a, b in zip(labels, out, strict=True)) / 400
    assert same < 0.45


def test_labels_follow_the_hierarchy_and_the_seed():
    words = {"A": "how do i", "B": "please add support", "C": "crash error traceback"}
    labels = _labels(300, seed=2)
    texts = [f"{words.get(lb[0], 'unrelated spam')} topic{(lb[1] or '').replace('.', '')} number {n}"
             for n, lb in enumerate(labels)]
    out = rate(texts, labels, Settings(seed=3))
    assert out == rate(texts, labels, Settings(seed=3))
    for t, theme, sub in out:
        assert (theme is None and sub is None) if t == "NR" else (theme.startswith(f"{t}.") and sub == f"{theme}.i")
    # Text that names the label is learned, from the other folds.
    assert sum(a == b for a, b in zip(labels, out, strict=True)) / 300 > 0.9


def test_unlabeled_reports_are_rated_and_no_labels_rate_nothing():
    labels = _labels(60)
    texts = [f"{lb[0]} words {n}" for n, lb in enumerate(labels)]
    out = rate(texts, [*labels[:50], *[None] * 10])
    assert all(o is not None for o in out)
    assert rate(texts[:5], [None] * 5) == [None] * 5


def _vllm() -> tuple[list[str], list[tuple]]:
    finals = {row["Issue_URL"]: row["Final_Label"]
              for row in csv.DictReader(open(DATA / "vllm-paper-labels-974.csv", encoding="utf-8"))}
    texts, labels = [], []
    for line in gzip.open(DATA / "vllm-labeled-974.jsonl.gz", "rt", encoding="utf-8"):
        issue = json.loads(line)
        texts.append(f"{issue['title']}\n{issue['body']}")
        code = finals[issue["html_url"]]
        labels.append((code.split(".")[0], code, None))
    return texts, labels


def test_the_vllm_reports_against_the_panels_final_labels():
    """974 real vLLM reports with the study's final labels: the cross-fitted type beats always answering the
    commonest type. An honest figure, whatever it is (see the README)."""
    texts, labels = _vllm()
    out = rate(texts, labels)
    types = sum(a[0] == b[0] for a, b in zip(labels, out, strict=True)) / len(labels)
    themes = sum(a[1] == b[1] for a, b in zip(labels, out, strict=True)) / len(labels)
    commonest = Counter(a[0] for a in labels).most_common(1)[0][1] / len(labels)
    assert len(labels) == 974 and types > commonest + 0.05, (types, themes, commonest)


# Half a minute of fitting: CI's, not the quick suite's.
@pytest.mark.slow
def test_on_noisy_labels_the_model_is_no_weaker_than_a_plain_logistic_regression():
    """The study's final labels as truth; the models learn from labels a third of which a seeded hand replaced
    with a random theme (what a panel's plurality looks like). The built-in model must do as well as TF-IDF and a
    logistic regression over the same folds' worth of data, at the type and at the theme (a flat regression over
    every theme, the stronger baseline there): within half a point at the type and one and a half at the theme,
    about one standard error of a difference on 974 reports. (Choosing the theme given the type alone trailed
    the baseline by five points at the theme.)"""
    import numpy as np
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import KFold, cross_val_predict

    texts, truth = _vllm()
    codes = sorted({lb[1] for lb in truth})
    x = TfidfVectorizer(sublinear_tf=True, min_df=2, ngram_range=(1, 2)).fit_transform([t[:4000] for t in texts])
    ours, baseline = [], []
    for seed in (0, 1, 2):
        pick = random.Random(seed)
        noisy = [(c.split(".")[0], c, None) if pick.random() < 0.3 and (c := pick.choice(codes)) else lb
                 for lb in truth]
        rated = rate(texts, noisy, Settings(seed=seed))
        ours.append([np.mean([a[i] == b[i] for a, b in zip(truth, rated, strict=True)]) for i in (0, 1)])
        folds = KFold(5, shuffle=True, random_state=seed)
        baseline.append([np.mean([a[i] == b for a, b in zip(truth, cross_val_predict(
            LogisticRegression(max_iter=1000), x, [lb[i] for lb in noisy], cv=folds), strict=True)]) for i in (0, 1)])
    ours, baseline = np.mean(ours, axis=0), np.mean(baseline, axis=0)
    assert ours[0] >= baseline[0] - 0.005 and ours[1] >= baseline[1] - 0.015, (ours, baseline)


def test_its_confidence_sorts_right_from_wrong():
    """Beside each label, the model's confidence in its type and theme together: a probability, the same labels
    as without it, and on the vLLM reports the surer half of the labels is right more often than the rest; and
    calibrated, cross-fitted: labels given with confidence p are right about p of the time."""
    import numpy as np

    from machines.classifier import features, rate_rows_sure

    texts, labels = _vllm()
    settings = Settings(seed=1)
    x = features(texts, settings)
    made = rate_rows_sure(x, labels, settings)
    rated, sure = made.labels, made.sure
    assert rated == rate(texts, labels, settings)
    sure = np.array(sure)
    assert ((sure >= 0) & (sure <= 1)).all()
    right = np.array([a[1] == b[1] for a, b in zip(labels, rated, strict=True)])
    surer = sure >= np.median(sure)
    assert right[surer].mean() > right[~surer].mean() + 0.1, (right[surer].mean(), right[~surer].mean())
    assert abs(sure.mean() - right.mean()) < 0.03
    for low, high in ((0.0, 0.3), (0.3, 0.6), (0.6, 1.01)):
        inside = (sure >= low) & (sure < high)
        assert inside.sum() >= 30 and abs(sure[inside].mean() - right[inside].mean()) < 0.08, (low, high)


def test_its_confidence_in_the_type_alone_is_calibrated_on_types():
    """Beside it, the confidence in the label's type alone, which a jury deciding types rests on: calibrated,
    cross-fitted, against whether the type is right; the surer half's types are right more often; and higher on
    the whole than the confidence in type and theme together, as types are the easier half."""
    import numpy as np

    from machines.classifier import features, rate_rows_sure

    texts, labels = _vllm()
    settings = Settings(seed=1)
    made = rate_rows_sure(features(texts, settings), labels, settings)
    of_type, pair = np.array(made.sure_of_type), np.array(made.sure)
    assert ((of_type >= 0) & (of_type <= 1)).all()
    right = np.array([a[0] == b[0] for a, b in zip(labels, made.labels, strict=True)])
    surer = of_type >= np.median(of_type)
    assert right[surer].mean() > right[~surer].mean() + 0.05, (right[surer].mean(), right[~surer].mean())
    assert abs(of_type.mean() - right.mean()) < 0.03
    assert of_type.mean() > pair.mean() + 0.1


def test_chinese_text_is_read_as_pairs_of_characters():
    # Chinese reports name what they are about inside sentences with no spaces: read as words, each sentence is
    # one token no other report shares, and nothing is learned (24 % of types right, chance, with the former
    # word pattern). Read as pairs of characters, the words that name the label are found.
    from machines.classifier import tokens

    assert tokens("mindspore 训练时内存泄漏 ab错cd") == ["mindspore", "训练", "练时", "时内", "内存", "存泄", "泄漏",
                                                     "ab", "错", "cd"]
    assert tokens("no cjk here, a b_c 12") == ["no", "cjk", "here", "b_c", "12"]
    pick = random.Random(5)
    words = {"A": "请问如何", "B": "希望支持", "C": "程序崩溃", "NR": "广告推广"}
    filler = ("的一是在不了有和人这中大为上个国我以要他时来用们生到作地"
              "于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经")
    labels = _labels(300, seed=4)
    texts = ["".join(pick.choice(filler) for _ in range(8)) + words[lb[0]] +
             "".join(pick.choice(filler) for _ in range(8)) for lb in labels]
    out = rate(texts, labels)
    assert sum(a[0] == b[0] for a, b in zip(labels, out, strict=True)) / 300 > 0.9
