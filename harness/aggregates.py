"""Aggregates over a suite's tasks (datasets) with stratified bootstrap intervals.

The definitions are rliable's (Agarwal et al., "Deep Reinforcement Learning at the Edge of the
Statistical Precipice", NeurIPS 2021): the mean and the median of the per-task mean scores, the
interquartile mean (IQM: the 25%-trimmed mean of every run on every task, pooled), the optimality gap
(the mean shortfall below `gamma`, pooled) and the probability of improvement P(X > Y) (per task the
Mann-Whitney U statistic over n m, ties counting 1/2, averaged over tasks). Intervals are percentile
intervals of a stratified bootstrap: runs are resampled with replacement within each task,
independently per task, so every task keeps its run count and its weight.

rliable's own bootstrap (`rliable.library`, through `arch`) does not run with arch 8, so this module
implements the statistics in numpy/scipy; its point estimates are tested equal to `rliable.metrics`.
Scores are given per task, one 1-D array of runs each; tasks may hold different numbers of runs.
Every statistic is computed on a batch, one row per bootstrap draw, so the point estimate is the
batch of the observed runs alone.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np

from harness.stats import CONFIDENCE

TaskScores = Sequence[np.ndarray | Sequence[float]]  # per task, the scores of its runs
Batch = list[np.ndarray]  # per task, an array (draws, runs)
Statistic = Callable[[Batch], np.ndarray]  # a batch -> one value per draw

STATISTICS = ("mean", "median", "iqm", "optimality_gap")
LOWER_IS_BETTER = frozenset({"optimality_gap"})  # a shortfall: the others are scores, higher is better
TITLES = {"mean": "Mean", "median": "Median", "iqm": "IQM", "optimality_gap": "Optimality gap",
          "probability_of_improvement": "P(X > Y)"}


def mean_of_task_means(batch: Batch) -> np.ndarray:
    return np.stack([runs.mean(axis=1) for runs in batch], axis=1).mean(axis=1)


def median_of_task_means(batch: Batch) -> np.ndarray:
    return np.median(np.stack([runs.mean(axis=1) for runs in batch], axis=1), axis=1)


def interquartile_mean(batch: Batch) -> np.ndarray:
    """The mean of the middle 50% of all runs of all tasks, pooled (`scipy.stats.trim_mean`, 25% cut each side)."""
    from scipy import stats as scipy_stats  # only for suites with aggregates: every report imports this module

    return scipy_stats.trim_mean(np.concatenate(batch, axis=1), 0.25, axis=1)


def optimality_gap(batch: Batch, gamma: float = 1.0) -> np.ndarray:
    """How far the pooled runs fall short of `gamma` on average; scores above it count as `gamma`."""
    return np.maximum(gamma - np.concatenate(batch, axis=1), 0.0).mean(axis=1)


def statistic(name: str, gamma: float = 1.0) -> Statistic:
    """One of `STATISTICS` by name; `gamma` is the optimality gap's target (1 after normalisation)."""
    by_name: dict[str, Statistic] = {"mean": mean_of_task_means, "median": median_of_task_means,
                                     "iqm": interquartile_mean, "optimality_gap": partial(optimality_gap, gamma=gamma)}
    return by_name[name]


def probability_of_improvement(x: Batch, y: Batch) -> np.ndarray:
    """P(X > Y) per draw: per task the share of run pairs where X scores higher, ties counting 1/2, averaged
    over tasks (the Mann-Whitney U statistic over n m)."""
    per_task = [(np.greater(a[:, :, None], b[:, None, :]) + 0.5 * np.equal(a[:, :, None], b[:, None, :]))
                .mean(axis=(1, 2)) for a, b in zip(x, y, strict=True)]
    return np.stack(per_task, axis=1).mean(axis=1)


def observed(scores: TaskScores) -> Batch:
    """The runs themselves as a batch of one draw."""
    return [np.asarray(runs, dtype=float)[None, :] for runs in scores]


def stratified_resamples(scores: TaskScores, reps: int, rng: np.random.Generator) -> Batch:
    """`reps` draws, each resampling every task's runs with replacement within that task (rliable's
    stratified bootstrap); tasks are drawn in order, so one seed gives one batch."""
    arrays = [np.asarray(runs, dtype=float) for runs in scores]
    return [runs[rng.integers(0, runs.size, size=(reps, runs.size))] for runs in arrays]


@dataclass(frozen=True)
class Estimate:
    """A point estimate with its 95% percentile interval."""

    point: float
    low: float
    high: float


def estimate(point: np.ndarray, draws: np.ndarray) -> Estimate:
    """The point (a batch of one) with the percentile interval of the bootstrap `draws`."""
    tail = (1 - CONFIDENCE) / 2
    low, high = np.quantile(draws, [tail, 1 - tail])
    return Estimate(float(point[0]), float(low), float(high))


def aggregate_estimates(scores: TaskScores, names: Sequence[str], reps: int, rng: np.random.Generator,
                        gamma: float = 1.0) -> dict[str, Estimate]:
    """Each named statistic with its interval, all from one set of stratified draws (as rliable does)."""
    draws = stratified_resamples(scores, reps, rng)
    return {name: estimate(statistic(name, gamma)(observed(scores)), statistic(name, gamma)(draws))
            for name in names}


def difference_estimate(name: str, a: TaskScores, b: TaskScores, reps: int, rng_a: np.random.Generator,
                        rng_b: np.random.Generator, gamma: float = 1.0) -> Estimate:
    """statistic(A) - statistic(B) with its interval; A's and B's runs are resampled independently."""
    measure = statistic(name, gamma)
    point = measure(observed(a)) - measure(observed(b))
    draws = measure(stratified_resamples(a, reps, rng_a)) - measure(stratified_resamples(b, reps, rng_b))
    return estimate(point, draws)


def improvement_estimate(x: TaskScores, y: TaskScores, reps: int, rng_x: np.random.Generator,
                         rng_y: np.random.Generator) -> Estimate:
    """P(X > Y) with its interval, X's and Y's runs resampled independently within each task."""
    point = probability_of_improvement(observed(x), observed(y))
    draws = probability_of_improvement(stratified_resamples(x, reps, rng_x), stratified_resamples(y, reps, rng_y))
    return estimate(point, draws)
