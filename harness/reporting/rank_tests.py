"""Comparing several methods over several datasets by their ranks (Demsar 2006, JMLR 7:1-30).

Each dataset is a block: the methods are ranked on it (1 = best, ties share their average rank) by the cell's mean
over seeds. The Friedman test asks whether the mean ranks differ at all; the Nemenyi critical difference says
which pairs of mean ranks differ by more than chance allows (the critical-difference diagram draws it); pairwise
Wilcoxon signed-rank tests over the datasets, Holm-corrected, are the stricter alternative Benavoli et al. (2016)
recommend, since a Nemenyi verdict on two methods depends on which other methods are compared.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from harness.stats import ALPHA, holm

MIN_METHODS = 3   # Friedman's test compares three or more methods; two are one Wilcoxon test
MIN_DATASETS = 4  # with fewer blocks Friedman's chi-square approximation is too crude to report


@dataclass(frozen=True)
class Friedman:
    """Friedman's chi-square over `datasets` blocks of `methods` ranks, corrected for ties as scipy's is."""

    statistic: float
    p_value: float
    mean_ranks: tuple[float, ...]  # per method, in the order of the score matrix's columns
    datasets: int
    methods: int


@dataclass(frozen=True)
class PairTest:
    """Two methods' cell means compared over the datasets: a two-sided Wilcoxon signed-rank test."""

    first: int   # column indices in the score matrix
    second: int
    better: int  # the column whose cells are better by the median difference (direction-aware)
    p_value: float
    p_holm: float  # Holm-adjusted over every pair of the comparison

    def significant(self, alpha: float = ALPHA) -> bool:
        return self.p_holm < alpha


def average_ranks(scores: np.ndarray, higher_is_better: bool) -> np.ndarray:
    """Ranks within each row (a dataset, or a bootstrap draw's dataset) along the last axis: 1 is best, ties
    share their average rank (Demsar 2006, Sec. 3.2.2)."""
    from scipy.stats import rankdata

    return rankdata(-scores if higher_is_better else scores, axis=-1)


def friedman(scores: np.ndarray, higher_is_better: bool) -> Friedman:
    """Friedman's test on a datasets x methods matrix of cell means.

    Computed from the ranks this module already needs for the mean ranks and the critical difference, with the
    tie correction of `scipy.stats.friedmanchisquare` (a test checks the two agree). Every row tied throughout
    carries no evidence: the statistic is 0 and p is 1 (scipy divides by zero there).
    """
    from scipy.stats import chi2

    datasets, methods = scores.shape
    ranks = average_ranks(scores, higher_is_better)
    tie_sizes = (np.unique(row, return_counts=True)[1] for row in ranks)
    ties = sum(float((sizes ** 3 - sizes).sum()) for sizes in tie_sizes)
    correction = 1 - ties / (methods * (methods ** 2 - 1) * datasets)
    rank_sums = ranks.sum(axis=0)
    statistic = (12 / (methods * datasets * (methods + 1)) * float((rank_sums ** 2).sum())
                 - 3 * datasets * (methods + 1))
    statistic = statistic / correction if correction > 0 else 0.0
    p_value = float(chi2.sf(statistic, methods - 1)) if correction > 0 else 1.0
    return Friedman(float(statistic), p_value, tuple(float(r) for r in ranks.mean(axis=0)), datasets, methods)


def nemenyi_q(methods: int, alpha: float = ALPHA) -> float:
    """The Nemenyi test's critical value: the Studentized range's 1 - alpha quantile for `methods` means and
    infinite degrees of freedom, divided by sqrt(2) (Demsar 2006, Table 5a: 2.569 for 4 methods at 0.05)."""
    from scipy.stats import studentized_range

    return float(studentized_range.ppf(1 - alpha, methods, math.inf)) / math.sqrt(2)


def critical_difference(methods: int, datasets: int, alpha: float = ALPHA) -> float:
    """Nemenyi's critical difference of mean ranks, CD = q_alpha sqrt(k (k + 1) / (6 N)) (Demsar 2006, Sec. 3.2.2)."""
    return nemenyi_q(methods, alpha) * math.sqrt(methods * (methods + 1) / (6 * datasets))


def pairwise_wilcoxon(scores: np.ndarray, higher_is_better: bool) -> tuple[PairTest, ...]:
    """Every pair of methods (columns) compared over the datasets (rows) with a two-sided Wilcoxon signed-rank
    test, p-values Holm-adjusted over all pairs. Zero differences are dropped (Wilcoxon's rule); a pair equal on
    every dataset has p = 1."""
    pairs = list(combinations(range(scores.shape[1]), 2))
    raw, better = [], []
    for first, second in pairs:
        differences = (scores[:, first] - scores[:, second]) * (1 if higher_is_better else -1)
        raw.append(signed_rank_p(differences))
        better.append(first if np.median(differences) >= 0 else second)
    adjusted = holm(raw)
    return tuple(PairTest(a, b, winner, p, q)
                 for (a, b), winner, p, q in zip(pairs, better, raw, adjusted, strict=True))


EXACT_UP_TO = 13  # scipy's own limit for an exact p under ties: 2^13 sign patterns


def signed_rank_p(differences: np.ndarray) -> float:
    """The two-sided Wilcoxon signed-rank p of paired differences, zeros dropped (Wilcoxon's rule): what
    scipy.stats.wilcoxon gives for the nonzero differences (a test checks it).

    Up to 13 differences the p is exact, from all 2^n sign patterns on the ranks (scipy's exact and permutation
    methods give it); scipy reaches it through its generic permutation test whenever |d| has ties, 0.6-1.7 s a
    pair measured on 12 datasets, and through 2 ms of call overhead otherwise, where a suite compares up to
    hundreds of pairs. Enumerating with numpy takes well under a millisecond. Beyond 13, scipy decides.
    """
    from scipy.stats import rankdata, wilcoxon

    nonzero = differences[differences != 0]
    if nonzero.size == 0:
        return 1.0
    ranks = rankdata(np.abs(nonzero))
    if nonzero.size > EXACT_UP_TO:
        return float(wilcoxon(nonzero).pvalue)
    doubled = np.rint(2 * ranks).astype(np.int64)  # average ranks are multiples of 1/2: compare integers
    signs = (np.arange(2 ** nonzero.size)[:, None] >> np.arange(nonzero.size)) & 1
    null = signs @ doubled
    centre = int(doubled.sum())  # twice the null's mean, doubled again to stay in integers
    observed = int(doubled[nonzero > 0].sum())
    return float(np.mean(np.abs(2 * null - centre) >= abs(2 * observed - centre)))


def smallest_two_sided_p(datasets: int) -> float:
    """The smallest p a two-sided exact Wilcoxon test over `datasets` pairs can give: every difference one way,
    2 * 2^-N. At N = 5 it is 0.0625, so no pair of methods can differ at 0.05 over five datasets or fewer."""
    return min(1.0, 2 * 0.5 ** datasets)


def nemenyi_groups(mean_ranks: list[float], cd: float) -> list[tuple[int, int]]:
    """The bars of a critical-difference diagram: maximal runs (first, last), as positions in `mean_ranks`
    sorted ascending, of methods whose mean ranks all differ by less than `cd` (no pair in a run differs
    significantly); runs of one method are left out."""
    ordered = sorted(mean_ranks)
    groups: list[tuple[int, int]] = []
    for first, low in enumerate(ordered):
        last = max(j for j, rank in enumerate(ordered) if rank - low < cd)
        if last > first and not (groups and groups[-1][1] >= last):
            groups.append((first, last))
    return groups
