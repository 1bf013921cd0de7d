"""The family's metrics: pure functions of `ScoredAnswers` (every answer of a run graded against its puzzle).

`accuracy` grades each puzzle's first answer. For test-time scaling, with n >= k answers per puzzle:
`pass_at_k` is the unbiased estimator 1 - C(n - c, k) / C(n, k) of Chen et al. (2021) (c correct answers), the
chance that one of k answers is right (an oracle verifier); `best_of_k` grades the answer the method itself
scored highest among its first k (no verifier: the method's own confidence). Both are NaN when a puzzle has
fewer than k answers.
"""
from __future__ import annotations

from functools import partial

import numpy as np
from scipy.special import comb

from harness import Metric
from methods.visual_reasoning.grading import ScoredAnswers

SCALING = (1, 2, 4, 8, 16)  # the k of the pass@k and best-of-k metrics (and of the best-of-N plot)


def accuracy(run: ScoredAnswers) -> float:
    """Per cent of puzzles whose first answer is correct (a valid path for mazes, ChartQA's relaxed accuracy
    for charts, the exact placement for jigsaws)."""
    return 100.0 * float(run.correct[:, 0].mean())


def pass_at(run: ScoredAnswers, k: int) -> float:
    if (run.counts < k).any():
        return float("nan")
    right = np.nansum(run.correct, axis=1)
    return 100.0 * float(np.mean(1.0 - comb(run.counts - right, k) / comb(run.counts, k)))


def best_of(run: ScoredAnswers, k: int) -> float:
    if (run.counts < k).any():
        return float("nan")
    chosen = np.argmax(np.nan_to_num(run.score[:, :k], nan=-np.inf), axis=1)  # ties: the earliest answer
    return 100.0 * float(run.correct[np.arange(len(chosen)), chosen].mean())


def _first(values: np.ndarray, scale: float = 1.0) -> float:
    """The mean over puzzles of a first-answer figure; NaN where it does not apply to the task."""
    first = values[:, 0]
    return float("nan") if np.isnan(first).all() else scale * float(np.nanmean(first))


def perm_accuracy(run: ScoredAnswers) -> float:
    """Jigsaws: per cent of picture positions the first answer fills with the right tile."""
    return _first(run.partial, 100.0)


def kendall_tau(run: ScoredAnswers) -> float:
    """Jigsaws: mean Kendall's tau between the first answer's placement and the true one (1: exact)."""
    return _first(run.tau)


def path_optimal(run: ScoredAnswers) -> float:
    """Mazes: per cent of first answers that are valid paths of the shortest length."""
    return _first(run.optimal, 100.0)


def answered(run: ScoredAnswers) -> float:
    """Per cent of puzzles whose first answer holds an answer of the task's kind at all (format compliance)."""
    return 100.0 * float(run.answered[:, 0].mean())


def with_images(run: ScoredAnswers) -> float:
    """Per cent of puzzles whose first answer came with intermediate images (interleaved reasoning, BYO)."""
    return 100.0 * float((run.images[:, 0] > 0).mean())


ACCURACY = Metric("accuracy", accuracy, higher_is_better=True, unit="%",
                  description="per cent of puzzles whose first answer is correct")
PASS_AT_1, PASS_AT_2, PASS_AT_4, PASS_AT_8, PASS_AT_16 = (
    Metric(f"pass_at_{k}", partial(pass_at, k=k), higher_is_better=True, unit="%",
           description=f"chance that one of {k} answers is correct (unbiased estimator)") for k in SCALING)
BEST_OF_2, BEST_OF_4, BEST_OF_8, BEST_OF_16 = (
    Metric(f"best_of_{k}", partial(best_of, k=k), higher_is_better=True, unit="%",
           description=f"accuracy of the method's highest-scored answer among its first {k}") for k in SCALING[1:])
PERM_ACCURACY = Metric("perm_accuracy", perm_accuracy, higher_is_better=True, unit="%",
                       description="jigsaws: per cent of positions with the right tile")
KENDALL_TAU = Metric("kendall_tau", kendall_tau, higher_is_better=True,
                     description="jigsaws: Kendall's tau between the answered and the true placement")
PATH_OPTIMAL = Metric("path_optimal", path_optimal, higher_is_better=True, unit="%",
                      description="mazes: per cent of answers that are shortest valid paths")
ANSWERED = Metric("answered", answered, higher_is_better=True, unit="%",
                  description="per cent of first answers from which an answer could be extracted")
WITH_IMAGES = Metric("with_images", with_images, higher_is_better=True, unit="%",
                     description="per cent of first answers with intermediate images")
