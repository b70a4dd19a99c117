"""Does the summary anchor? The labels of the study's agreement round, split by whether the summary was on the
page (annotation.summary_arms), compared on agreement and on the distribution of types."""
from __future__ import annotations

from collections import defaultdict

from annotation.models import NOT_RELEVANT, Study
from annotation.selectors.labels import counted_in_round
from annotation.selectors.studies import agreement_round
from stats.contingency import compare
from stats.figures import finite
from stats.lazy_numpy import np
from stats.proportions import wilson
from stats.ties import modal_label
from taxonomy.codes import sort_key

ARMS = ("summary shown", "summary hidden")
RESAMPLES = 1000


def _labels(study: Study) -> list[tuple[int, int, str, bool | None]]:
    round = agreement_round(study)
    if round is None:
        return []
    rows = counted_in_round(round).order_by().values_list(
        "issue_id", "annotator_id", "is_relevant", "type__code", "summary_shown")
    return [(issue, who, code if relevant else NOT_RELEVANT, shown) for issue, who, relevant, code, shown in rows]


def experiment(study: Study, *, seed: int = 0) -> dict:
    """Per arm: how often a label matches the plurality of the other annotators' labels of the report (ties and
    reports with no other label left out), with a Wilson interval; the difference with a bootstrap interval over
    reports (labels of one report are not independent) and a score test; and the type distribution per arm
    with the chi-square test and Cramér's V."""
    labels = _labels(study)
    in_experiment = [lb for lb in labels if lb[3] is not None]
    result: dict = {"labels": len(labels), "in_experiment": len(in_experiment), "arms": [], "difference": None,
                    "distribution": None, "undefined_because": ""}
    if not in_experiment:
        result["undefined_because"] = ("no label of the agreement round was made under the experiment (turn it on "
                                       "in the set-up before the independent round)")
        return result
    table = _agreeing_per_report(in_experiment)
    totals = table.sum(axis=0)
    for name, (agree, n) in zip(ARMS, ((totals[0], totals[1]), (totals[2], totals[3])), strict=True):
        low, high = wilson(int(agree), int(n)) if n else (None, None)
        result["arms"].append({"arm": name, "labels": int(n), "agree": int(agree),
                               "share": finite(agree / n) if n else None, "ci": [low, high]})
    if totals[1] and totals[3]:
        result["difference"] = _difference(table, totals, seed)
    result["distribution"] = _distribution(in_experiment, seed)
    return result


def _agreeing_per_report(in_experiment: list) -> np.ndarray:
    """Per report: the labels of each arm that match the plurality of the report's other labels, and those
    counted (a label whose others tie is not): shown agree, shown n, hidden agree, hidden n."""
    by_report: dict[int, list[tuple[str, bool]]] = defaultdict(list)
    for issue, _, code, shown in in_experiment:
        by_report[issue].append((code, shown))
    per_report = []
    for items in by_report.values():
        row = [0, 0, 0, 0]
        for i, (code, shown) in enumerate(items):
            others = modal_label([c for j, (c, _) in enumerate(items) if j != i])
            if others is None:
                continue
            at = 0 if shown else 2
            row[at] += code == others
            row[at + 1] += 1
        per_report.append(row)
    return np.array(per_report, dtype=np.int64).reshape(-1, 4)


def _listed(values) -> list | None:
    return None if values is None else values.tolist()


def _distribution(in_experiment: list, seed: int) -> dict:
    """The types per arm, compared: the chi-square test, Cramér's V and each arm's shares."""
    codes = sorted({lb[2] for lb in in_experiment}, key=sort_key)
    counts = np.zeros((2, len(codes)), dtype=np.int64)
    index = {c: i for i, c in enumerate(codes)}
    for _, _, code, shown in in_experiment:
        counts[0 if shown else 1, index[code]] += 1
    compared = compare(counts, list(ARMS), codes, seed=seed)
    return {
        "categories": compared.categories, "counts": compared.counts.tolist(), "chi2": compared.chi2,
        "df": compared.df, "p": compared.p, "cramers_v": compared.cramers_v,
        "exact_p": compared.exact_p, "exact_method": compared.exact_method,
        "shares": _listed(compared.shares), "share_low": _listed(compared.share_low),
        "share_high": _listed(compared.share_high),
        "undefined_because": compared.undefined_because,
        "method": "types (not relevant a category of its own) per arm; chi-square test of independence, "
                  "Cramér's V, shares with 95 % bootstrap intervals"}


def _difference(table: np.ndarray, totals: np.ndarray, seed: int) -> dict:
    from statsmodels.stats.proportion import test_proportions_2indep  # deferred: heavy to import

    value = totals[0] / totals[1] - totals[2] / totals[3]
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(table), size=(RESAMPLES, len(table)))
    sums = table[draws].sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        diffs = sums[:, 0] / sums[:, 1] - sums[:, 2] / sums[:, 3]
    diffs = diffs[np.isfinite(diffs)]
    low, high = (np.percentile(diffs, [2.5, 97.5]) if len(diffs) else (None, None))
    test = test_proportions_2indep(int(totals[0]), int(totals[1]), int(totals[2]), int(totals[3]), method="score")
    return {"value": finite(value), "ci": [finite(low) if low is not None else None,
                                           finite(high) if high is not None else None],
            "p": finite(test.pvalue),
            "method": "share agreeing (summary shown − hidden); 95 % bootstrap interval over reports "
                      f"({RESAMPLES} resamples, seed {seed}); score test of two proportions (labels as independent)"}
