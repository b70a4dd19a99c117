"""Recompute every agreement figure of this replication package from its own files, with Python, numpy and
statsmodels alone, and say for each whether it matches the report.

    python recompute.py            # in the unzipped package; exit status 0 when every figure matches

Reads reliability/labels.csv (exactly the labels the figures count: report as source#number, with its source,
number and address, rater, and the code given at type, theme and sub-theme level, "" where none),
reliability/reference_types.csv (the type that places each report in a per-type figure: its final label, else
the plurality) and reliability/report.json (the figures). First it checks that those labels are the labels of
the agreement round in labels/labels.csv, every one of them, so that a changed label shows. Where machines stood
in people's seats, the same figures with their votes (report.json's "with_machines") from
reliability/labels-with-machines.csv and reference_types-with-machines.csv.

Then every share of estimates/shares.json three ways — people's labels alone, a machine rater's alone and
prediction-powered (PPI++, power-tuned and never wider than people's alone; a share of a type or theme as a
linearised ratio) — from estimates/reports.csv: per rater and report, its year, people's label and the machine's.

And every decided screening sample of screening.json from its votes: its rate, and the confidence sequence that
may be read after every vote (the betting sequence for sampling without replacement, Waudby-Smith & Ramdas
2020), at its last verdict read in the drawn order and, for a keyword, the number of verdicts after which it
first lay wholly on one side of the threshold.

Not recomputed here: the bootstrap intervals (resampled), the machine raters' figures (study.json, "machines":
Cohen's kappa and the alternative annotator test), the subset comparisons and Table 1 / Figure 3's counts.
"""
from __future__ import annotations

import csv
import itertools
import json
import sys
from pathlib import Path
from statistics import NormalDist

import numpy as np
from statsmodels.stats.inter_rater import fleiss_kappa

HERE = Path(__file__).resolve().parent
TOLERANCE = 1e-9


def read_tables(side: str = ""):
    with open(HERE / "reliability" / f"labels{side}.csv", newline="", encoding="utf-8") as f:
        labels = list(csv.DictReader(f))
    with open(HERE / "reliability" / f"reference_types{side}.csv", newline="", encoding="utf-8") as f:
        reference = {row["report"]: row["type"] for row in csv.DictReader(f)}
    return labels, reference


def trace(labels, round_number: int) -> list[str]:
    """Differences between the labels the figures count and the agreement round's labels in labels/labels.csv
    (a rater none of whose labels is counted, such as a lead who stopped labeling blind, is named, not wrong)."""
    given = {}
    with open(HERE / "labels" / "labels.csv", newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            if row["round"] == str(round_number):
                relevant = row["relevant"] == "yes"
                codes = ((row["type_code"], row["theme_code"], row["sub_theme_code"]) if relevant
                         else ("NR", "NR", "NR"))
                given[(f"{row['source']}#{row['number']}", row["annotator"])] = codes
    counted_raters = {row["rater"] for row in labels}
    problems = []
    for row in labels:
        key = (row["report"], row["rater"])
        codes = (row["type"], row["theme"], row["sub_theme"])
        if key not in given:
            problems.append(f"{row['report']} by {row['rater']}: counted, but not in labels/labels.csv")
        elif given[key] != codes:
            problems.append(f"{row['report']} by {row['rater']}: counted as {'/'.join(codes)}, labels/labels.csv "
                            f"says {'/'.join(given[key])}")
    counted = {(row["report"], row["rater"]) for row in labels}
    for key in sorted(given):
        if key[1] in counted_raters and key not in counted:
            problems.append(f"{key[0]} by {key[1]}: in labels/labels.csv, but not counted")
    aside = sorted({rater for _, rater in given} - counted_raters)
    if aside:
        print(f"not counted (set aside, as the report says): {', '.join(aside)}")
    return problems


def counts_at(labels, level: str, reports: list[str]) -> np.ndarray:
    """Reports × categories: how many raters gave each value at `level` (a missing value is no rating)."""
    values = sorted({row[level] for row in labels if row[level]})
    col = {v: i for i, v in enumerate(values)}
    row_of = {r: i for i, r in enumerate(reports)}
    counts = np.zeros((len(reports), max(len(values), 1)), dtype=np.int64)
    for row in labels:
        if row[level] and row["report"] in row_of:
            counts[row_of[row["report"]], col[row[level]]] += 1
    return counts


def fleiss(counts: np.ndarray, raters: int):
    complete = counts[counts.sum(axis=1) == raters]
    complete = complete[:, complete.sum(axis=0) > 0]
    if len(complete) == 0 or complete.shape[1] < 2 or raters < 2:
        return None
    return float(fleiss_kappa(complete, method="fleiss"))


def alpha(counts: np.ndarray):
    """Krippendorff's alpha, nominal, from units × categories counts (units with fewer than two values out)."""
    m = counts.sum(axis=1)
    used = (counts.sum(axis=0) > 0).sum()
    pairable = counts[m >= 2].astype(float)
    m = m[m >= 2]
    if not len(pairable) or used < 2:
        return None
    scaled = pairable / (m - 1)[:, None]
    coincidences = pairable.T @ scaled - np.diag(scaled.sum(axis=0))
    n_c = coincidences.sum(axis=1)
    n = n_c.sum()
    expected = (n * n - np.square(n_c).sum()) / (n - 1)
    return float(1 - (n - np.trace(coincidences)) / expected) if expected else None


def gwet(counts: np.ndarray, offered: int | None = None) -> dict:
    """Fleiss' kappa in Gwet's form, AC1 and Brennan–Prediger (Gwet 2014), over the categories used, and
    Brennan–Prediger over the `offered` categories of the codebook (the report's figure says how many)."""
    counts = counts[:, counts.sum(axis=0) > 0].astype(float)
    q = counts.shape[1]
    r = counts.sum(axis=1)
    pairable = counts[r >= 2]
    if not len(pairable) or q < 2:
        return {"fleiss": None, "ac1": None, "brennan_prediger": None, "brennan_prediger_codebook": None}
    rp = r[r >= 2][:, None]
    pa = (pairable * (pairable - 1) / (rp * (rp - 1))).sum(axis=1).mean()
    rated = counts[r >= 1]
    pi = (rated / rated.sum(axis=1, keepdims=True)).mean(axis=0)
    chances = {"fleiss": np.square(pi).sum(), "ac1": (pi * (1 - pi)).sum() / (q - 1), "brennan_prediger": 1 / q,
               "brennan_prediger_codebook": 1 / offered if offered else 1.0}
    return {k: (float((pa - pe) / (1 - pe)) if pe < 1 else None) for k, pe in chances.items()}


def per_code(counts: np.ndarray, values: list[str]) -> dict[str, tuple]:
    """Per category: Krippendorff's alpha on this code or not (binary), and Fleiss' per-category kappa over the
    reports rated by every rater."""
    m = counts.sum(axis=1)
    keep = m >= 2
    hits_all, mk = counts[keep].astype(float), m[keep].astype(float)
    raters = int(m.max()) if len(m) else 0
    full = counts[m == raters].astype(float)
    out = {}
    for j, name in enumerate(values):
        if counts[:, j].sum() == 0:
            continue
        h = hits_all[:, j]
        n, n1 = mk.sum(), h.sum()
        expected = 2 * n1 * (n - n1) / (n - 1) if n > 1 else 0
        a = float(1 - (2 * h * (mk - h) / (mk - 1)).sum() / expected) if len(h) and expected else None
        k = None
        if len(full) and raters >= 2:
            x = full[:, j]
            p = x.sum() / (len(full) * raters)
            if 0 < p < 1:
                k = float(1 - (x * (raters - x)).sum() / (len(full) * raters * (raters - 1) * p * (1 - p)))
        out[name] = (a, k)
    return out


def value_names(labels, level: str) -> list[str]:
    return sorted({row[level] for row in labels if row[level]})


def _powered_se(z, g, g_rest, lam: float) -> float:
    imputed = (lam * g_rest).std() ** 2 / len(g_rest) if len(g_rest) else 0.0
    return float(np.sqrt(imputed + (z - lam * g).std() ** 2 / len(z)))


def _ratio(num, den, num_f, den_f, rest_num, rest_den, lam: float):
    """(λ·mean of the rest's machine + mean of (people − λ·machine)) for the part over the same for the whole,
    and its standard error from the linearised share."""
    def powered(y, f, rest):
        return (lam * rest.mean() if len(rest) else 0.0) + (y - lam * f).mean()

    top, bottom = powered(num, num_f, rest_num), powered(den, den_f, rest_den)
    if not bottom > 0:
        return None
    theta = top / bottom
    return theta, _powered_se(num - theta * den, num_f - theta * den_f, rest_num - theta * rest_den, lam) / bottom


def _tuned(z, g, g_rest) -> float:
    """PPI++'s power-tuning parameter, clipped to [0, 1] (ppi_py's for a mean)."""
    if not len(g_rest):
        return 0.0
    spread = np.var(np.concatenate([g, g_rest]), ddof=1)
    if not spread > 0:
        return 0.0
    lam = np.mean((z - z.mean()) * (g - g.mean())) / ((1 + len(z) / len(g_rest)) * spread)
    return float(np.clip(lam, 0.0, 1.0))


def three_ways(p_in, p_of, m_in, m_of, labeled):
    """(people, machine, powered), each (value, standard error, λ) or None."""
    num, den, num_f, den_f = p_in[labeled], p_of[labeled], m_in[labeled], m_of[labeled]
    rest_num, rest_den = m_in[~labeled], m_of[~labeled]
    people = _ratio(num, den, num_f, den_f, rest_num, rest_den, 0.0) if labeled.sum() >= 2 else None
    machine = _ratio(m_in, m_of, m_in, m_of, m_in[:0], m_of[:0], 0.0) if len(m_in) >= 2 else None
    powered = None
    if people is not None:
        lam = 0.0
        at_one = _ratio(num, den, num_f, den_f, rest_num, rest_den, 1.0)
        if at_one is not None and len(rest_num):
            theta = at_one[0]
            lam = _tuned(num - theta * den, num_f - theta * den_f, rest_num - theta * rest_den)
        tuned = _ratio(num, den, num_f, den_f, rest_num, rest_den, lam)
        powered = (*tuned, lam) if tuned is not None and tuned[1] <= people[1] else (*people, 0.0)
    return (None if people is None else (*people, None), None if machine is None else (*machine, None), powered)


def _weighted(num, den, num_f, den_f, weight, lam: float):
    """Under the confidence-driven design: each report contributes λ·machine + (people − λ·machine)/chance where
    people's label is used (0 elsewhere), to the part and to the whole; their ratio and its standard error."""
    def part(y, f):
        return lam * f + (y - lam * f) * weight

    top, bottom = part(num, num_f).mean(), part(den, den_f).mean()
    if not bottom > 0:
        return None
    theta = top / bottom
    parts = part(num - theta * den, num_f - theta * den_f)
    return theta, float(parts.std() / np.sqrt(len(parts)) / bottom)


def three_ways_weighted(p_in, p_of, m_in, m_of, labeled, chance):
    p_in, p_of = np.where(labeled, p_in, 0.0), np.where(labeled, p_of, 0.0)
    weight = np.where(labeled, 1.0 / np.where(labeled, chance, 1.0), 0.0)
    people = _weighted(p_in, p_of, m_in, m_of, weight, 0.0) if labeled.sum() >= 2 else None
    machine = _ratio(m_in, m_of, m_in, m_of, m_in[:0], m_of[:0], 0.0) if len(m_in) >= 2 else None
    powered = None
    if people is not None:
        lam = 0.0
        at_one = _weighted(p_in, p_of, m_in, m_of, weight, 1.0)
        if at_one is not None:
            theta = at_one[0]
            a, b = (m_in - theta * m_of) * (1 - weight), (p_in - theta * p_of) * weight
            if a.var() > 0:
                lam = float(np.clip(-np.mean((a - a.mean()) * (b - b.mean())) / a.var(), 0.0, 1.0))
        tuned = _weighted(p_in, p_of, m_in, m_of, weight, lam)
        powered = (*tuned, lam) if tuned is not None and tuned[1] <= people[1] else (*people, 0.0)
    return (None if people is None else (*people, None), None if machine is None else (*machine, None), powered)


def _columns(rows: list[dict], rater: dict):
    """One rater's reports as columns, which are in the sample, each one's chance of it, and its year."""
    mine = [r for r in rows if r["rater"] == rater["rater"]]
    if not mine:
        return 0, {}, np.zeros(0, dtype=bool), np.zeros(0), np.zeros(0, dtype=object)
    col = {k: np.array([r[k] for r in mine], dtype=object) for k in mine[0]}
    chance = np.array([float(c) if c else 1.0 for c in col["chance"]])
    return len(mine), col, col["in_sample"] == "yes", chance, col.get("year", np.zeros(0, dtype=object))


def _share_inputs(share: dict, col: dict, year, n: int):
    """The reports a share is over, and people's and the machine's indicators of its inside and its whole."""
    whole, code = share["whole"], share["code"]
    if share["table"] == "type":
        keep = year == whole if whole else np.ones(n, dtype=bool)
        p_of = m_of = np.ones(int(keep.sum()))
        return keep, (col["people_type"][keep] == code).astype(float), p_of, \
            (col["machine_type"][keep] == code).astype(float), m_of
    parent, child = ("type", "theme") if share["table"] == "theme" else ("theme", "sub_theme")
    p_of = (col[f"people_{parent}"] == whole).astype(float)
    m_of = (col[f"machine_{parent}"] == whole).astype(float)
    p_in = ((col[f"people_{child}"] == code) & (p_of > 0)).astype(float)
    m_in = ((col[f"machine_{child}"] == code) & (m_of > 0)).astype(float)
    return np.ones(n, dtype=bool), p_in, p_of, m_in, m_of


def _share_entries(name: str, share: dict, again, z: float) -> list:
    checks = []
    for way, found in zip(("people", "machine", "powered"), again, strict=True):
        given = share[way]
        named = f"{name}, {way}"
        if given is None or found is None:
            checks.append((f"{named}, share", None if given is None else given["value"],
                           None if found is None else found[0]))
            continue
        value, se, lam = found
        checks.append((f"{named}, share", given["value"], value))
        checks.append((f"{named}, interval low", given["low"], value - z * se))
        checks.append((f"{named}, interval high", given["high"], value + z * se))
        if way == "powered":
            checks.append((f"{named}, λ", given["lambda"], lam))
    return checks


def share_checks() -> list:
    """Every share of estimates/shares.json recomputed from estimates/reports.csv."""
    shares = json.loads((HERE / "estimates" / "shares.json").read_text(encoding="utf-8"))
    with open(HERE / "estimates" / "reports.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    z = NormalDist().inv_cdf(0.975)
    checks = []
    for rater in shares["raters"]:
        n, col, labeled, chance, year = _columns(rows, rater)
        for share in rater["shares"]:
            keep, p_in, p_of, m_in, m_of = _share_inputs(share, col, year, n)
            if rater["design"] == "confidence":
                again = three_ways_weighted(p_in, p_of, m_in, m_of, labeled[keep], chance[keep])
            else:
                again = three_ways(p_in, p_of, m_in, m_of, labeled[keep])
            if not rater["valid"]:  # people's labels so far are no sample the powered share may use
                again = (*again[:2], None)
            name = f"{rater['rater']}: {share['table']} {share['code']} of {share['whole'] or 'all years'}"
            checks += _share_entries(name, share, again, z)
    return checks


def confidence_sequence(x, population: int, alpha: float = 0.05, grid: int = 1000):
    """The (1 − alpha) betting confidence sequence for the share of ones among `population`, after each draw of
    `x` without replacement: hedged capital with the predictable plug-in bets, each capped at half of what keeps
    the capital positive, on a grid of candidate shares, bounded by what the draws prove, intersected over time."""
    x = np.asarray(x, dtype=float)
    n = len(x)
    t = np.arange(1, n + 1)
    mean = (0.5 + np.cumsum(x)) / (t + 1)
    variance = (0.25 + np.cumsum((x - mean) ** 2)) / (t + 1)
    bets = np.sqrt(2 * np.log(1 / alpha) / (np.append(0.25, variance[:-1]) * t * np.log1p(t)))
    lowest, highest = np.full(n, np.nan), np.full(n, np.nan)
    for m in np.linspace(0.0, 1.0, grid + 1):
        mu = (population * m - np.append(0.0, np.cumsum(x)[:-1])) / (population - (t - 1))
        # A share the draws have made impossible (more ones or zeros than it leaves room for) stays out.
        possible = np.logical_and.accumulate((mu >= 0) & (mu <= 1))
        mu = np.clip(mu, 0.0, 1.0)
        with np.errstate(divide="ignore"):
            up = np.cumsum(np.log1p(np.minimum(bets, 0.5 / mu) * (x - mu)))
            down = np.cumsum(np.log1p(-np.minimum(bets, 0.5 / (1 - mu)) * (x - mu)))
        inside = possible & (np.maximum(up, down) + np.log(0.5) < np.log(1 / alpha))
        lowest = np.where(inside & np.isnan(lowest), m, lowest)
        highest = np.where(inside, m, highest)
    found = ~np.isnan(lowest)
    low = np.where(found, np.maximum(0.0, lowest - 1 / grid), 0.0)
    high = np.where(found, np.minimum(1.0, highest + 1 / grid), 1.0)
    ones = np.cumsum(x)
    low, high = np.maximum(low, ones / population), np.minimum(high, 1 - (t - ones) / population)
    return np.maximum.accumulate(low), np.minimum.accumulate(high)


def _verdicts(sample: dict) -> list:
    """Each drawn item's verdict in the drawn order: the two screeners' when they agree, else the tiebreaker's;
    None while undecided."""
    first, second, tiebreaker = sample["screeners"]
    verdicts = []
    for item in sample["items"]:
        votes = {v["reviewer"]: v["relevant"] for v in item["votes"] or []}
        a, b = votes.get(first), votes.get(second)
        verdicts.append(None if a is None or b is None else a if a == b else votes.get(tiebreaker))
    return verdicts


def _sequence_checks(name: str, figures: dict, read: list[float]) -> list:
    low, high = confidence_sequence(read, max(figures["population"], len(read)))
    checks = [(f"{name}, confidence sequence low", figures["sequence"]["low"], float(low[-1])),
              (f"{name}, confidence sequence high", figures["sequence"]["high"], float(high[-1]))]
    if figures.get("stop"):
        threshold = figures["threshold"]
        cleared = np.flatnonzero((low >= threshold) | (high < threshold))
        checks.append((f"{name}, verdicts read when the sequence cleared {threshold}", figures["stop"]["n"],
                       int(cleared[0]) + 1 if len(cleared) else None))
    return checks


def screening_checks() -> list:
    """Every decided sample of screening.json: its rate and confidence sequence, and a keyword's stop, again."""
    path = HERE / "screening.json"
    checks = []
    for sample in json.loads(path.read_text(encoding="utf-8")) if path.exists() else []:
        figures = sample.get("figures")
        if not figures:
            continue
        verdicts = _verdicts(sample)
        name = f"screening {sample['keyword'] or sample['source'] + ' ' + sample['stratum']}"
        decided = [v for v in verdicts if v is not None]
        checks.append((f"{name}, rate", figures["rate"]["value"], sum(decided) / len(decided) if decided else None))
        # In the drawn order, up to the first undecided.
        read = [float(v) for v in itertools.takewhile(lambda v: v is not None, verdicts)]
        if read:
            checks += _sequence_checks(name, figures, read)
    return checks


def _coefficient_checks(name: str, figures: dict, counts, raters: int, labels, level: str,
                        per_code_rows: list) -> list:
    """A set of reports' Fleiss' kappa, alpha, the other coefficients and the per-code figures, again."""
    checks = [(f"{name}, Fleiss' kappa", figures["fleiss"]["value"], fleiss(counts, raters)),
              (f"{name}, Krippendorff's alpha", figures["alpha"]["value"], alpha(counts))]
    for c in (figures.get("others") or {}).get("coefficients", []):
        checks.append((f"{name}, {c['name']}", c["value"], gwet(counts, c["categories"])[c["name"]]))
    found = per_code(counts, value_names(labels, level))
    for row in per_code_rows:
        again = found.get(row["category"], (None, None))
        checks.append((f"{name}, code {row['category']}, alpha-binary", row["alpha"]["value"], again[0]))
        checks.append((f"{name}, code {row['category']}, per-category kappa", row["kappa"]["value"], again[1]))
    return checks


def agreement_checks(labels, reference, levels: dict, side: str = "") -> list:
    """Every agreement figure of `levels` (report.json's, per level) recomputed from `labels` and `reference`."""
    raters = len({row["rater"] for row in labels})
    reports = sorted({row["report"] for row in labels})
    types = sorted({row["type"] for row in labels if row["type"]})
    checks = []
    for level, figures in levels.items():
        level = f"{level}{side}"
        type_counts = counts_at(labels, "type", reports)
        overall = {"fleiss": figures["type"], "alpha": figures["type_alpha"], "others": figures["type_others"]}
        checks += _coefficient_checks(f"{level}: type", overall, type_counts, raters, labels, "type",
                                      figures.get("type_per_code", []))
        for t in figures["per_type"]:
            rows = [r for r in reports if reference.get(r) == t["type"]]
            name = f"{level}: type {t['type']}"
            checks += _coefficient_checks(name, t, counts_at(labels, figures["level"], rows), raters, labels,
                                          figures["level"], t.get("per_code", []))
            if t.get("unanimous") and t["type"] in types:
                by_type = type_counts[:, types.index(t["type"])]
                agreed = [r for r, n in zip(reports, by_type, strict=True) if n == raters]
                checks.append((f"{name}, Fleiss' kappa where every rater gave the type", t["unanimous"]["value"],
                               fleiss(counts_at(labels, figures["level"], agreed), raters)))
    return checks


def _compare(checks: list) -> int:
    """Print each check; the number that differ."""
    wrong = 0
    for name, published, again in checks:
        same = (published is None and again is None) or (
            published is not None and again is not None and abs(published - again) <= TOLERANCE)
        wrong += not same
        shown = "undefined" if again is None else f"{again:.6f}"
        print(f"{'matches' if same else 'DIFFERS'}  {name}: {shown}"
              + ("" if same else f" (the report says {published})"))
    return wrong


def main() -> int:
    labels, reference = read_tables()
    report = json.loads((HERE / "reliability" / "report.json").read_text(encoding="utf-8"))
    round_number = next((f["round"] for f in report["levels"].values()), None)
    problems = trace(labels, round_number) if round_number is not None else []
    for problem in problems:
        print(f"DIFFERS  {problem}")
    print(f"{len(labels)} counted labels traced to labels/labels.csv: "
          f"{'every one the same' if not problems else f'{len(problems)} differences'}.")
    checks = agreement_checks(labels, reference, report["levels"])
    if report.get("with_machines"):
        # Where machines stood in people's seats, the figures with their votes filling those places, from the
        # same labels with the machines' votes added (reliability/labels-with-machines.csv).
        with_machines, machine_reference = read_tables("-with-machines")
        checks += agreement_checks(with_machines, machine_reference, report["with_machines"], ", with machines")
    if (HERE / "estimates" / "shares.json").exists():
        checks += share_checks()
    checks += screening_checks()
    wrong = _compare(checks)
    print(f"{len(checks) - wrong} of {len(checks)} figures match.")
    print("Not recomputed here: the bootstrap intervals, the machine raters' figures (study.json), the subset "
          "comparisons and Table 1 / Figure 3's counts.")
    return 1 if wrong or problems else 0


if __name__ == "__main__":
    sys.exit(main())
