"""Statistics over seeds: per-cell summaries, intervals, paired tests and rankings.

Seeds are an axis: a cell (method x dataset x metric) summarises its per-seed values
with mean, std, n and a 95% interval (Student t by default, percentile bootstrap on
request). A within-run bootstrap stderr (resampling a run's test samples) is a
different quantity and is kept in its own column, never mixed with seed variance.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as scipy_stats

CONFIDENCE = 0.95


@dataclass(frozen=True)
class CellStats:
    """Summary of one cell over seeds; intervals are NaN when n < 2 (never faked)."""

    mean: float
    std: float
    n: int
    ci_low: float
    ci_high: float
    n_nonfinite: int = 0

    @property
    def ci95(self) -> float:
        """Half-width of the interval (NaN when there is none)."""
        return (self.ci_high - self.ci_low) / 2


def summarize(values: Sequence[float], interval: str = "t", rng_seed: int = 0, resamples: int = 2000) -> CellStats:
    """Mean, std (ddof=1), n and a 95% interval of the finite values; non-finite ones are counted apart."""
    array = np.asarray(values, dtype=float)
    finite = array[np.isfinite(array)]
    n = int(finite.size)
    nonfinite = int(array.size - n)
    if n == 0:
        return CellStats(math.nan, math.nan, 0, math.nan, math.nan, nonfinite)
    mean = float(finite.mean())
    if n < 2:
        return CellStats(mean, math.nan, 1, math.nan, math.nan, nonfinite)
    std = float(finite.std(ddof=1))
    if interval == "bootstrap":
        low, high = bootstrap_interval(finite, rng_seed, resamples)
    elif interval == "t":
        half = float(scipy_stats.t.ppf((1 + CONFIDENCE) / 2, n - 1)) * std / math.sqrt(n)
        low, high = mean - half, mean + half
    else:
        raise ValueError(f"unknown interval '{interval}'; use 't' or 'bootstrap'")
    return CellStats(mean, std, n, low, high, nonfinite)


def bootstrap_interval(values: np.ndarray, rng_seed: int = 0, resamples: int = 2000) -> tuple[float, float]:
    """Percentile bootstrap 95% interval of the mean."""
    rng = np.random.default_rng(rng_seed)
    means = rng.choice(values, size=(resamples, values.size), replace=True).mean(axis=1)
    alpha = (1 - CONFIDENCE) / 2
    return float(np.quantile(means, alpha)), float(np.quantile(means, 1 - alpha))


@dataclass(frozen=True)
class PairedTest:
    """A over B on matching seeds: mean difference (A - B, direction-adjusted) and two p-values."""

    n: int
    mean_difference: float
    wilcoxon_p: float
    t_test_p: float

    def significant(self, alpha: float = 0.05) -> bool:
        """Both tests agree at `alpha` (one-sided, A better)."""
        return self.n >= 2 and self.wilcoxon_p < alpha and self.t_test_p < alpha


def paired_test(a: Sequence[float], b: Sequence[float], higher_is_better: bool = True) -> PairedTest:
    """One-sided Wilcoxon signed-rank and paired t-test that A beats B over matching seeds.

    With fewer than 6 pairs the exact Wilcoxon p-value cannot fall below 0.05, so a claim
    needs at least 6 seeds to be declared significant; that is reported, not hidden.
    """
    a_arr, b_arr = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a_arr.shape != b_arr.shape:
        raise ValueError("paired values need the same seeds on both sides")
    keep = np.isfinite(a_arr) & np.isfinite(b_arr)
    diff = (a_arr - b_arr)[keep] * (1 if higher_is_better else -1)
    n = int(diff.size)
    if n < 2:
        return PairedTest(n, float(diff.mean()) if n else math.nan, math.nan, math.nan)
    if np.allclose(diff, 0):
        return PairedTest(n, 0.0, 1.0, 1.0)
    wilcoxon = scipy_stats.wilcoxon(diff, alternative="greater", zero_method="zsplit").pvalue
    t_test = scipy_stats.ttest_1samp(diff, 0.0, alternative="greater").pvalue if diff.std() > 0 else (
        0.0 if diff.mean() > 0 else 1.0)
    return PairedTest(n, float(diff.mean()), float(wilcoxon), float(t_test))


def mean_win_rate(means: dict[str, dict[str, float]], higher_is_better: bool = True) -> dict[str, float]:
    """Per method, the share of (dataset, rival) pairs it beats, averaged over datasets.

    `means[dataset][method]` is a cell mean; NaN cells neither win nor lose. Ties count half.
    """
    sign = 1 if higher_is_better else -1
    totals: dict[str, list[float]] = {}
    for by_method in means.values():
        finite = {m: v for m, v in by_method.items() if math.isfinite(v)}
        for method, value in finite.items():
            rivals = [v for m, v in finite.items() if m != method]
            if not rivals:
                continue
            wins = sum(1.0 if sign * (value - r) > 0 else 0.5 if value == r else 0.0 for r in rivals)
            totals.setdefault(method, []).append(wins / len(rivals))
    return {m: float(np.mean(v)) for m, v in totals.items()}
