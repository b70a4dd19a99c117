"""Pure: two ways a report's ratings come about, each fitted to a study's count matrix (reports × categories,
every report rated m times), so that a simulation can rate the same reports by more raters.

- Shares (`SharesModel`): each report has its own share of the categories, drawn from a Dirichlet around the
  overall shares; its ratings are a multinomial of those shares. Reports differ in how clear they are, and a
  report two raters split on may split any further rater too.
- Known answer (`AnswerModel`): each report has one right category; a rater gives it with the category's own
  accuracy p_c and otherwise guesses from shares q (the "knew it or guessed" model of Dawid and Skene, with the
  raters exchangeable as Fleiss' kappa takes them). Every report of a category is as clear as the next.

The two narrow differently as raters are added: under the first, the spread of the reports' own shares stays
whatever the panel; under the second, every disagreement is rating noise that more raters average away. Which
one a study follows is read from its counts (`fit`), as far as they tell: by Akaike's criterion (the
likelihood less the number of parameters), one model is kept alone where the other has no support, and
otherwise each draws half of the simulated studies.
"""
from __future__ import annotations

from dataclasses import dataclass

from .lazy_numpy import np

EM_ROUNDS = 200
EM_TOLERANCE = 1e-7


def _log_multinomial_coefficients(counts: np.ndarray) -> np.ndarray:
    from scipy.special import gammaln  # deferred: heavy, a second to import

    return gammaln(counts.sum(axis=1) + 1) - gammaln(counts + 1).sum(axis=1)


@dataclass(frozen=True)
class SharesModel:
    posterior: np.ndarray  # per report: its Dirichlet posterior, its counts plus the prior
    aic: float

    def shares(self, reports: np.ndarray, rng) -> np.ndarray:
        drawn = rng.gamma(self.posterior[reports])
        return drawn / drawn.sum(axis=1, keepdims=True)


@dataclass(frozen=True)
class AnswerModel:
    answers: np.ndarray  # per report: the posterior probability of each category being its answer
    ratings: np.ndarray  # per answer: the probability of each rating (p_c on the answer, (1 - p_c) q elsewhere)
    aic: float

    def shares(self, reports: np.ndarray, rng) -> np.ndarray:
        chances = self.answers[reports]
        answer = (rng.random((len(reports), 1)) > np.cumsum(chances, axis=1)).sum(axis=1)
        return self.ratings[np.minimum(answer, len(self.ratings) - 1)]


def shares_model(counts: np.ndarray, kappa: float) -> SharesModel:
    """The Dirichlet posterior of each report: its counts plus the overall shares at strength s, where s is
    what makes reports agree as often as they do here (two ratings of one report agree beyond chance by
    1/(1 + s), which Fleiss' kappa estimates). Kappa is kept within [0.01, 0.99] so that s stays finite."""
    from scipy.special import gammaln

    shares = counts.sum(axis=0) / counts.sum()
    kappa = float(np.clip(kappa, 0.01, 0.99)) if np.isfinite(kappa) else 0.99
    prior = (1 - kappa) / kappa * np.maximum(shares, 1e-12)
    m = counts.sum(axis=1)
    loglik = (_log_multinomial_coefficients(counts) + gammaln(prior.sum()) - gammaln(m + prior.sum())
              + (gammaln(counts + prior) - gammaln(prior)).sum(axis=1)).sum()
    parameters = counts.shape[1]  # the shares (k - 1) and the strength
    return SharesModel(posterior=counts + prior, aic=float(2 * parameters - 2 * loglik))


def answer_model(counts: np.ndarray) -> AnswerModel:
    """Fitted by expectation-maximisation over the distinct rows, started from raters right 70 % of the time."""
    from .matrices import distinct_rows

    rows, freq = distinct_rows(counts)
    rows = rows.astype(float)
    k = counts.shape[1]
    m = rows.sum(axis=1)
    prior = counts.sum(axis=0) / counts.sum()
    accuracy = np.full(k, 0.7)
    guesses = prior.copy()
    last = -np.inf
    eye = np.eye(k)
    for _ in range(EM_ROUNDS):
        ratings = np.clip(accuracy[:, None] * eye + (1 - accuracy[:, None]) * guesses[None, :], 1e-300, 1)
        joint = np.log(np.maximum(prior, 1e-300))[None, :] + rows @ np.log(ratings).T
        top = joint.max(axis=1, keepdims=True)
        per_row = top[:, 0] + np.log(np.exp(joint - top).sum(axis=1))
        answers = np.exp(joint - per_row[:, None])
        loglik = float(freq @ per_row)
        if loglik - last < EM_TOLERANCE * abs(loglik):
            break
        last = loglik
        weighted = answers * freq[:, None]
        prior = weighted.sum(axis=0) / freq.sum()
        # A rating equal to the answer was known with chance p_c / (p_c + (1 - p_c) q_c), else guessed.
        on_answer = weighted * rows  # [row, c]: ratings of category c on reports whose answer is c
        knew_share = accuracy / np.maximum(accuracy + (1 - accuracy) * guesses, 1e-300)
        known = on_answer.sum(axis=0) * knew_share
        accuracy = np.clip(known / np.maximum((weighted * m[:, None]).sum(axis=0), 1e-300), 0, 1)
        guessed = freq @ rows - known
        guesses = guessed / max(guessed.sum(), 1e-300)
    ratings = accuracy[:, None] * eye + (1 - accuracy[:, None]) * guesses[None, :]
    loglik += float(freq @ _log_multinomial_coefficients(rows))
    parameters = 3 * k - 2  # the answers' shares (k - 1), the accuracies (k), the guesses (k - 1)
    every = np.asarray(counts, dtype=float)
    joint = np.log(np.maximum(prior, 1e-300))[None, :] + every @ np.log(np.clip(ratings, 1e-300, 1)).T
    answers = np.exp(joint - joint.max(axis=1, keepdims=True))
    answers /= answers.sum(axis=1, keepdims=True)
    return AnswerModel(answers=answers, ratings=ratings, aic=float(2 * parameters - 2 * loglik))


# Burnham and Anderson's rule of thumb: a model whose Akaike criterion is more than 10 above the best one's has
# essentially no support in the data.
NO_SUPPORT = 10.0


def fit(counts: np.ndarray, kappa: float) -> list[tuple[float, SharesModel | AnswerModel]]:
    """The models the counts support, each with its share of the simulated studies. With three ratings a report
    the two fit about equally well (their criteria 2 to 9 apart on studies drawn from either, in favour of the
    one with fewer parameters whichever is true), so neither is preferred: each draws half the studies. With
    more ratings, or reports that clearly follow one (criteria more than 10 apart), that one alone draws them."""
    counts = np.asarray(counts, dtype=np.int64)
    models = [shares_model(counts, kappa), answer_model(counts)]
    best = min(model.aic for model in models)
    supported = [model for model in models if model.aic - best <= NO_SUPPORT]
    return [(1 / len(supported), model) for model in supported]
