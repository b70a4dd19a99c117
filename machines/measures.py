"""Pure: a machine rater measured the way the study measures people, at one level and for one type.

Inputs are plain mappings of report → (type, theme, sub-theme) codes ("NR" as the type of "not relevant");
outputs are plain dicts, so that a decision can freeze them and an export can carry them. Every figure says
how many reports it used, its interval where one is defined, and its method."""
from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence

from stats import cohen as cohen_kappa
from stats.alpha import alpha_counts_figure
from stats.alt_test import MIN_HUMANS_PER_ITEM, alt_test
from stats.figures import Figure
from stats.kappa import fleiss_matrix_figure
from stats.lazy_numpy import np
from stats.matrices import complete_counts, counts_of, rating_table
from stats.ties import modal_label
from taxonomy.codes import sort_key

from .replacing import seats

Chain = tuple[str, str | None, str | None]
NR = "NR"
LEVELS = ("type", "theme", "sub_theme")
_INDEX = {"type": 0, "theme": 1, "sub_theme": 2}
COHEN = "Cohen's kappa; 95 % bootstrap interval over reports"
RESAMPLES = 500


def value_at(chain: Chain | None, level: str) -> str | None:
    """A label's value at a level: "not relevant" is a value at every level; a missing theme is no value."""
    if chain is None:
        return None
    if chain[0] == NR:
        return NR
    return chain[_INDEX[level]]


def reports_of(reference_types: Mapping[int, str], level: str, type_code: str) -> list[int]:
    """The reports a figure uses: all at type level (those whose type the annotators tie on, "", included); at
    theme or sub-theme level those whose reference type (final, else plurality) is `type_code`, as the study
    computed its per-type kappas."""
    if level == "type":
        return sorted(reference_types)
    return sorted(r for r, t in reference_types.items() if t == type_code)


def cohen(first: Mapping[Hashable, str | None], second: Mapping[Hashable, str | None], *, other: str,
          resamples: int = RESAMPLES, seed: int = 0) -> dict:
    """Cohen's kappa of two raters over the reports both rated, with a percentile bootstrap interval."""
    shared = [r for r in first if first[r] is not None and second.get(r) is not None]
    result = {"with": other, "method": COHEN, "value": None, "ci": [None, None], "n": len(shared),
              "observed": None, "undefined_because": ""}
    if len(shared) < 2:
        result["undefined_because"] = "fewer than two reports rated by both"
        return result
    categories = sorted({first[r] for r in shared} | {second[r] for r in shared}, key=sort_key)
    index = {c: i for i, c in enumerate(categories)}
    a = np.array([index[first[r]] for r in shared], dtype=np.int64)
    b = np.array([index[second[r]] for r in shared], dtype=np.int64)
    k = len(categories)
    result["value"], result["observed"] = cohen_kappa.kappa_and_observed(cohen_kappa.table_of(a, b, k))
    if result["value"] is None:
        result["undefined_because"] = "both gave a single category throughout, so chance agreement is total"
        return result
    result["ci"] = list(cohen_kappa.bootstrap_interval(a, b, k, resamples, seed))
    return result


def _figure(figure: Figure) -> dict:
    return {"method": figure.method, "value": figure.value, "ci": [figure.ci_low, figure.ci_high],
            "n": figure.n_reports, "raters": figure.n_raters, "left_out": len(figure.left_out),
            "undefined_because": figure.undefined_because}


def _panel_figures(columns: Sequence[Mapping[int, str | None]], reports: Sequence[int], *, level: str,
                   type_code: str, resamples: int, seed: int) -> tuple[dict, dict]:
    """Fleiss' kappa (reports every column rated) and Krippendorff's alpha (any two) of these raters."""
    table = rating_table({r: [column.get(r) for column in columns] for r in reports}, sort_key)
    fleiss = fleiss_matrix_figure(complete_counts(table, None, len(columns)), level=level, type=type_code,
                                  resamples=resamples, seed=seed)
    alpha = alpha_counts_figure(list(reports), table.categories, counts_of(table), level=level, type=type_code)
    return _figure(fleiss), _figure(alpha)


def plurality(humans: Mapping[str, Mapping[int, str | None]], reports: Sequence[int]) -> dict[int, str | None]:
    """The panel's plurality value per report; None where the largest count is shared (a tie)."""
    out = {}
    for r in reports:
        values = [labels[r] for labels in humans.values() if labels.get(r) is not None]
        out[r] = modal_label(values) if values else None
    return out


def confusion(reference: Mapping[int, str | None], machine: Mapping[int, str | None]) -> dict:
    """Rows: the panel's plurality; columns: the machine. Reports where either has no value are left out."""
    pairs = [(reference[r], machine[r]) for r in reference if reference[r] is not None and machine.get(r)]
    categories = sorted({p for p, _ in pairs} | {m for _, m in pairs}, key=sort_key)
    index = {c: i for i, c in enumerate(categories)}
    cells = np.zeros((len(categories), len(categories)), dtype=np.int64)
    for p, m in pairs:
        cells[index[p], index[m]] += 1
    return {"categories": categories, "rows": cells.tolist(), "n": len(pairs),
            "method": "reports by the panel's plurality (rows) and the machine's label (columns); ties left out"}


def measure(humans: Mapping[str, Mapping[int, Chain]], reference_types: Mapping[int, str],
            machine: Mapping[int, Chain | None], *, level: str, type_code: str = "", epsilon: float = 0.15,
            runs: Sequence[Mapping[int, Chain | None]] = (),
            machines: Mapping[str, Mapping[int, Chain | None]] | None = None,
            resamples: int = RESAMPLES, seed: int = 0) -> dict:
    """Every figure of one (level, type): `humans` annotator → report → label; `reference_types` report → the
    type that places it (final, else plurality); `machine` its labels of record; `runs` a language model's k
    runs per report (self-agreement); `machines` the study's other machines' labels of record."""
    if level not in LEVELS:
        raise ValueError(f"level: one of {', '.join(LEVELS)}")
    reports = reports_of(reference_types, level, type_code)
    people = {name: {r: value_at(labels.get(r), level) for r in reports} for name, labels in sorted(humans.items())}
    mine = {r: value_at(machine.get(r), level) for r in reports}
    panel = plurality(people, reports)
    result: dict = {"level": level, "type": type_code, "reports": len(reports),
                    "rated": sum(mine[r] is not None for r in reports),
                    "humans": list(people), "left_out": _untyped(reference_types, level)}
    result["cohen_humans"] = [cohen(mine, values, other=name, resamples=resamples, seed=seed)
                              for name, values in people.items()]
    result["cohen_plurality"] = cohen(mine, panel, other="plurality of the panel", resamples=resamples, seed=seed)
    result["cohen_plurality"]["ties_left_out"] = sum(panel[r] is None for r in reports)
    result |= _seated(people, mine, reports, level=level, type_code=type_code, resamples=resamples, seed=seed)
    result["alt_test"] = _alt_test(mine, people, epsilon)
    result["machines"] = [cohen(mine, {r: value_at(labels.get(r), level) for r in reports}, other=other,
                                resamples=resamples, seed=seed) for other, labels in sorted((machines or {}).items())]
    result["self"] = _self_agreement(runs, reports, level, type_code, resamples, seed)
    result["confusion"] = confusion(panel, mine)
    return result


def _untyped(reference_types: Mapping[int, str], level: str) -> dict[str, int]:
    """Below the type, the reports no type places (the annotators tie on it), left out."""
    tied = sum(t == "" for t in reference_types.values()) if level != "type" else 0
    return {"reports whose type the annotators tie on (no type places them)": tied} if tied else {}


def _seated(people: dict, mine: dict, reports: Sequence[int], *, level: str, type_code: str, resamples: int,
            seed: int) -> dict:
    """The panel's Fleiss' kappa and alpha, and the same with the machine in each person's seat in turn."""
    columns = list(people.values())
    fleiss_, alpha_ = _panel_figures(columns, reports, level=level, type_code=type_code, resamples=resamples,
                                     seed=seed)
    replacing = [{"human": name, "fleiss": _figure(fleiss), "alpha": _figure(alpha)}
                 for name, (fleiss, alpha) in zip(people, seats(columns, mine, reports, level=level,
                                                                type_code=type_code, resamples=resamples,
                                                                seed=seed), strict=True)]
    return {"humans_fleiss": fleiss_, "humans_alpha": alpha_, "replacing": replacing}


def _alt_test(machine: Mapping[int, str | None], people: Mapping[str, Mapping[int, str | None]],
              epsilon: float) -> dict:
    labeled = {r: v for r, v in machine.items() if v is not None}
    humans = {name: {r: v for r, v in values.items() if v is not None} for name, values in people.items()}
    outcome = alt_test(labeled, humans, epsilon)
    left_out = _left_out(machine, labeled, humans)
    said = "; ".join(f"{n} report{'s' if n != 1 else ''} left out: {why}" for why, n in left_out.items())
    return {"method": "alternative annotator test (Calderon, Reichart and Dror 2025): leave one human out, "
                      "one-sided t-test against epsilon, Benjamini-Yekutieli at q = 0.05; passes when the machine "
                      f"wins against at least half of the humans; every report with a machine label and "
                      f"{MIN_HUMANS_PER_ITEM} or more human labels{'; ' + said if said else ''}",
            "left_out": left_out,
            "epsilon": epsilon, "q": outcome.q, "winning_rate": outcome.winning_rate,
            "advantage_probability": outcome.advantage_probability, "passed": outcome.passed,
            "comparisons": [_comparison(c) for c in outcome.comparisons],
            "skipped": list(outcome.skipped)}


def _left_out(machine: Mapping, labeled: Mapping, humans: Mapping) -> dict[str, int]:
    """Which reports the test could not use, and why: it takes every one with a machine label and two human ones."""
    per_report = {r: sum(1 for values in humans.values() if r in values) for r in machine}
    left_out = {"no machine label": sum(1 for r in machine if r not in labeled),
                f"fewer than {MIN_HUMANS_PER_ITEM} human labels": sum(
                    1 for r in labeled if per_report[r] < MIN_HUMANS_PER_ITEM)}
    return {why: n for why, n in left_out.items() if n}


def _comparison(c) -> dict:
    return {"human": c.annotator, "items": c.items, "advantage": c.advantage, "p_value": c.p_value,
            "machine_wins": c.machine_wins, "human_agreement": c.human_agreement,
            "machine_agreement": c.machine_agreement}


def _self_agreement(runs: Sequence[Mapping[int, Chain | None]], reports: Sequence[int], level: str,
                    type_code: str, resamples: int, seed: int) -> dict | None:
    if len(runs) < 2:
        return None
    fleiss, _ = _panel_figures([{r: value_at(run.get(r), level) for r in reports} for run in runs], reports,
                               level=level, type_code=type_code, resamples=resamples, seed=seed)
    fleiss["method"] = f"Fleiss' kappa of the model's {len(runs)} runs per report with each other"
    return fleiss


def sentinels(reports: Sequence[int], share: float, seed: int) -> set[int]:
    """The seeded share of reports that people keep labeling after a machine was let in (at least one)."""
    ordered = sorted(reports)
    if not ordered:
        return set()
    size = min(len(ordered), max(1, round(share * len(ordered))))
    picked = np.random.default_rng(seed).choice(len(ordered), size=size, replace=False)
    return {ordered[i] for i in picked}


# How far below its value at decision time the sentinels' kappa may fall by chance alone, in standard errors of
# the difference: a one-sided test at 2.5 %. The standard errors come from bootstrap intervals, rough on a few
# dozen sentinels; at 2.5 % the false alarms stay under 5 % in simulation (tests/machines/test_sentinels.py).
Z_ALARM = 1.96


def sentinel_baseline(humans: Mapping[str, Mapping[int, Chain]], machine: Mapping[int, Chain | None],
                      reports: Sequence[int], *, level: str, resamples: int = RESAMPLES, seed: int = 0) -> dict:
    """The machine's Cohen's kappa with the panel's plurality on the sentinel reports alone, kept with a decision
    so that later watches compare the sentinels with themselves: a tenth of the reports has about three times
    the standard error of all of them, and against an interval from all of them it falls short by chance."""
    people = {name: {r: value_at(labels.get(r), level) for r in reports} for name, labels in humans.items()}
    mine = {r: value_at(machine.get(r), level) for r in reports}
    return cohen(mine, plurality(people, reports), other="plurality of the panel on the sentinels",
                 resamples=resamples, seed=seed)


def _standard_error(figure: dict) -> float | None:
    low, high = (figure.get("ci") or [None, None])[:2]
    return None if low is None or high is None else (high - low) / (2 * 1.96)


def below_decision(decided: dict, now: dict) -> bool:
    """Whether the machine's agreement with the panel's plurality on the sentinels has fallen, so that chance
    alone is an unlikely explanation: below the same sentinels' kappa at decision time by more than Z_ALARM
    standard errors of the difference (each from its bootstrap interval). A decision made
    before the sentinels' own figure was kept is compared with the lower bound of the interval on all reports,
    as then, which raises false alarms (the page says which rule applies)."""
    current = now.get("cohen_plurality", {})
    if current.get("value") is None:
        return False
    then = decided.get("sentinels_at_decision")
    if then and then.get("value") is not None:
        spread = [_standard_error(then), _standard_error(current)]
        if None in spread:
            return False
        return current["value"] < then["value"] - Z_ALARM * (spread[0] ** 2 + spread[1] ** 2) ** 0.5
    low = decided.get("cohen_plurality", {}).get("ci", [None])[0]
    return low is not None and current["value"] < low


def calibration(pairs: Sequence[tuple[float, bool]], bins: int = 10) -> dict:
    """How often labels given with each confidence were right: per tenth of confidence, the reports, their mean
    confidence and the share right (with its Wilson interval); the expected calibration error, the
    reports-weighted mean distance between the two; and the share of all labels that were right."""
    from stats.proportions import rate

    rows, distance, total = [], 0.0, len(pairs)
    for k in range(bins):
        low, high = k / bins, (k + 1) / bins
        inside = [(p, r) for p, r in pairs if low <= p < high or (k == bins - 1 and p == 1.0)]
        if not inside:
            continue
        mean = sum(p for p, _ in inside) / len(inside)
        right = rate(sum(1 for _, r in inside if r), len(inside))
        distance += len(inside) * abs(mean - right.value)
        rows.append({"low": low, "high": high, "n": len(inside), "confidence": mean, "right": right.value,
                     "right_low": right.low, "right_high": right.high})
    right_in_all = sum(1 for _, r in pairs if r)
    return {"bins": rows, "n": total, "ece": distance / total if total else None,
            "right": right_in_all / total if total else None}
