"""How sure a ranking is: each method's rank with a bootstrap interval, its probability of being best, and the
datasets on which the overall leader is not first.

A leaderboard's order is a point estimate; with a few seeds per cell two methods a hair apart swap places from
one set of seeds to the next. The bootstrap redraws each cell's seeds (with replacement, independently per cell)
and re-ranks the methods on every dataset; the mean rank over datasets also redraws the datasets, so one
dataset that favours a method does not make it look certain. Draws come from a fixed-seed numpy Generator, so
a report is the same every time it is rendered.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from harness.reporting.rank_tests import average_ranks

DRAWS = 2000
SEED = 0
LEVEL = 0.95  # the intervals' coverage


@dataclass(frozen=True)
class RankInterval:
    """An observed rank (1 = best; a mean over datasets may be fractional) and its 95% bootstrap interval."""

    rank: float
    low: float
    high: float

    @property
    def text(self) -> str:
        """'2 [1, 3]'."""
        return f"{rank_text(self.rank)} [{rank_text(self.low)}, {rank_text(self.high)}]"


@dataclass(frozen=True)
class MethodRank:
    method: str
    mean_rank: RankInterval            # over datasets; on one dataset, its rank there
    p_best: float                      # share of draws with the best mean rank (a tie for first shares the draw)
    by_dataset: tuple[RankInterval, ...]  # in `RankUncertainty.datasets` order; intervals over seeds only


@dataclass(frozen=True)
class Flip:
    """A dataset on which the overall leader is not first, and who is."""

    dataset: str
    first: tuple[str, ...]


@dataclass(frozen=True)
class RankUncertainty:
    datasets: tuple[str, ...]
    methods: tuple[MethodRank, ...]  # by observed mean rank, best first
    flips: tuple[Flip, ...]
    draws: int
    seed: int

    @property
    def leader(self) -> str:
        return self.methods[0].method


def rank_text(rank: float) -> str:
    """A rank as tables show it: '1', '1.5', '2.33'."""
    return f"{rank:.2f}".rstrip("0").rstrip(".")


def rank_uncertainty(methods: tuple[str, ...], datasets: tuple[str, ...], observed: np.ndarray,
                     samples: dict[tuple[str, str], np.ndarray], higher_is_better: bool, draws: int = DRAWS,
                     seed: int = SEED) -> RankUncertainty:
    """Ranks of `methods` (the columns of `observed`, a datasets x methods matrix of cell means) with bootstrap
    intervals; `samples[(method, dataset)]` holds the cell's finite per-seed values."""
    rng = np.random.default_rng(seed)
    resampled = np.empty((draws, len(datasets), len(methods)))
    for i, dataset in enumerate(datasets):
        for j, method in enumerate(methods):
            resampled[:, i, j] = _resampled_means(samples[(method, dataset)], observed[i, j], draws, rng)
    ranks = average_ranks(resampled, higher_is_better)  # draws x datasets x methods
    picks = rng.integers(0, len(datasets), size=(draws, len(datasets)))
    pooled = np.take_along_axis(ranks, picks[:, :, None], axis=1).mean(axis=1)  # draws x methods
    first = pooled == pooled.min(axis=1, keepdims=True)
    p_best = (first / first.sum(axis=1, keepdims=True)).mean(axis=0)
    observed_ranks = average_ranks(observed, higher_is_better)
    mean_ranks = observed_ranks.mean(axis=0)
    tail = (1 - LEVEL) / 2
    by_dataset = np.quantile(ranks, [tail, 1 - tail], axis=0, method="inverted_cdf")
    by_mean = np.quantile(pooled, [tail, 1 - tail], axis=0, method="inverted_cdf")
    rows = [MethodRank(method, RankInterval(float(mean_ranks[j]), float(by_mean[0, j]), float(by_mean[1, j])),
                       float(p_best[j]),
                       tuple(RankInterval(float(observed_ranks[i, j]), float(by_dataset[0, i, j]),
                                          float(by_dataset[1, i, j])) for i in range(len(datasets))))
            for j, method in enumerate(methods)]
    order = sorted(range(len(methods)), key=lambda j: (mean_ranks[j], -p_best[j], j))
    leader = order[0]
    flips = tuple(Flip(dataset, tuple(m for j, m in enumerate(methods) if observed_ranks[i, j] == row.min()))
                  for i, (dataset, row) in enumerate(zip(datasets, observed_ranks, strict=True))
                  if row[leader] > row.min())
    return RankUncertainty(datasets, tuple(rows[j] for j in order), flips, draws, seed)


def _resampled_means(values: np.ndarray, mean: float, draws: int, rng: np.random.Generator) -> np.ndarray:
    """The cell's mean over seeds redrawn with replacement, `draws` times; a cell without spread (one seed, or a
    deterministic figure) keeps its mean, so two equal cells stay exactly tied rather than an ulp apart."""
    if values.size < 2 or bool((values == values[0]).all()):
        return np.full(draws, mean)
    return values[rng.integers(0, values.size, size=(draws, values.size))].mean(axis=1)
