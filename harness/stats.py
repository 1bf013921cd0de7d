"""Statistics over seeds: per-cell summaries, intervals, paired tests and rankings.

Seeds are an axis: a cell (method x dataset x metric) summarises its per-seed values
with mean, std, n and a 95% interval (Student t by default, percentile bootstrap on
request). A within-run bootstrap stderr (resampling a run's test samples) is a
different quantity and is kept in its own column, never mixed with seed variance.
"""
from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

CONFIDENCE = 0.95
ALPHA = 0.05  # claims and compare gates test at this level
# Student t's 0.975 quantile for 1..64 degrees of freedom, the float64 values scipy.special.stdtrit gives (a test
# checks each): every `harness run` summarises its table over seeds, and importing scipy for it costs more than
# the re-run of a stored suite itself. More degrees of freedom ask scipy.
T_975 = (
    12.706204736174694, 4.302652729749462, 3.1824463052837078, 2.7764451051977934, 2.5705818356363146,
    2.4469118511449786, 2.364624251592784, 2.306004135204166, 2.262157162798205, 2.228138851986274,
    2.200985160091639, 2.1788128296672284, 2.1603686564627913, 2.144786687917804, 2.131449545559776,
    2.1199052992212546, 2.1098155778333156, 2.1009220402410382, 2.0930240544083087, 2.085963447265864,
    2.0796138447276795, 2.0738730679040254, 2.0686576104190486, 2.0638985616280245, 2.0595385527532972,
    2.0555294386428735, 2.0518305164802846, 2.0484071417952454, 2.045229642132703, 2.0422724563012378,
    2.039513446396408, 2.0369333434601016, 2.0345152974493383, 2.0322445093177186, 2.030107928250343,
    2.0280940009804502, 2.0261924630291093, 2.0243941639119694, 2.022690920036761, 2.021075390306273,
    2.019540970441376, 2.0180817028184443, 2.016692199227824, 2.0153675744437636, 2.014103388880846,
    2.012895598919429, 2.0117405137297655, 2.010634757624232, 2.0095752371292392, 2.008559112100761,
    2.007583770315836, 2.006646805061688, 2.0057459953178687, 2.0048792881880564, 2.0040447832891455,
    2.003240718847872, 2.002465459291007, 2.0017174841452356, 2.000995378088267, 2.0002978220142604,
    1.999623584994939, 1.9989715170333788, 1.998340542520741, 1.997729654317693,
)


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
    if (finite == finite[0]).all():  # no spread; the float mean of equal values can be an ulp off, std then 1e-14
        value = float(finite[0])
        return CellStats(value, 0.0, n, value, value, nonfinite)
    std = float(finite.std(ddof=1))
    if interval == "bootstrap":
        low, high = bootstrap_interval(finite, rng_seed, resamples)
    elif interval == "t":
        half = t_quantile_975(n - 1) * std / math.sqrt(n)
        low, high = mean - half, mean + half
    else:
        raise ValueError(f"unknown interval '{interval}'; use 't' or 'bootstrap'")
    return CellStats(mean, std, n, low, high, nonfinite)


def t_quantile_975(degrees_of_freedom: int) -> float:
    """Student t's 0.975 quantile: the 95% interval's multiplier of the standard error."""
    if degrees_of_freedom <= len(T_975):
        return T_975[degrees_of_freedom - 1]
    from scipy.special import stdtrit  # what scipy.stats.t.ppf computes, without importing scipy.stats

    return float(stdtrit(degrees_of_freedom, (1 + CONFIDENCE) / 2))


def bootstrap_interval(values: np.ndarray, rng_seed: int = 0, resamples: int = 2000) -> tuple[float, float]:
    """Percentile bootstrap 95% interval of the mean."""
    rng = np.random.default_rng(rng_seed)
    means = rng.choice(values, size=(resamples, values.size), replace=True).mean(axis=1)
    alpha = (1 - CONFIDENCE) / 2
    return float(np.quantile(means, alpha)), float(np.quantile(means, 1 - alpha))


@dataclass(frozen=True)
class PairedTest:
    """A against B on matched pairs: the mean difference (A - B, direction-adjusted) and one-sided p-values.

    `p_better` and `p_worse` are exact one-sided Wilcoxon signed-rank p-values (zero differences
    dropped, Wilcoxon's own rule) that A is better and that A is worse; `t_test_p` is the one-sided
    paired t-test that A is better, used by `harness compare`'s gates.
    """

    n: int
    mean_difference: float
    p_better: float
    p_worse: float
    t_test_p: float


def smallest_wilcoxon_p(n: int) -> float:
    """One-sided exact Wilcoxon: with n pairs all in one direction, p = 2^-n (5 pairs: 1/32, 6: 1/64)."""
    return 0.5 ** n if n > 0 else 1.0


POWER = 0.8
WILCOXON_ARE = 3 / math.pi  # the signed-rank test's efficiency relative to the t-test under normal differences


def minimum_detectable_effect(spread: float, n: int, tests: int = 1, alpha: float = ALPHA,
                              power: float = POWER) -> float:
    """The smallest mean paired difference a one-sided Wilcoxon signed-rank test over `n` pairs detects with
    probability `power` at `alpha / tests` (Bonferroni over a claim's datasets, as Holm's first step), given the
    differences' standard deviation `spread`: the paired t's (t_{1-a} + t_{power}) * sd / sqrt(n), widened by the
    signed-rank test's relative efficiency. Infinite where even a clean sweep cannot reach the level."""
    if n < 2 or smallest_wilcoxon_p(n) >= alpha / tests or not math.isfinite(spread):
        return math.inf
    from scipy.special import stdtrit  # the t quantile, without importing scipy.stats

    t_total = stdtrit(n - 1, 1 - alpha / tests) + stdtrit(n - 1, power)
    return float(t_total * spread / math.sqrt(n * WILCOXON_ARE))


def paired_test(a: Sequence[float], b: Sequence[float], higher_is_better: bool = True) -> PairedTest:
    """One-sided Wilcoxon signed-rank tests both ways, and the paired t-test, that A beats B.

    Non-finite pairs are dropped. Differences are compared with zero exactly: a consistent gain
    of 1e-9 is a gain, whatever its scale.
    """
    a_arr, b_arr = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a_arr.shape != b_arr.shape:
        raise ValueError("paired values need the same seeds on both sides")
    keep = np.isfinite(a_arr) & np.isfinite(b_arr)
    diff = (a_arr - b_arr)[keep] * (1 if higher_is_better else -1)
    n = int(diff.size)
    mean = float(diff.mean()) if n else math.nan
    if not np.any(diff != 0):
        return PairedTest(n, mean, 1.0, 1.0, 1.0)
    from scipy import stats as scipy_stats  # imported where tests run, not by every table

    better = scipy_stats.wilcoxon(diff, alternative="greater", zero_method="wilcox").pvalue
    worse = scipy_stats.wilcoxon(diff, alternative="less", zero_method="wilcox").pvalue
    if diff.std() > 0:
        with warnings.catch_warnings():
            # A planted or systematic shift gives near-identical differences; scipy warns of lost
            # precision there, but the t statistic is huge either way and the verdict is unaffected.
            warnings.simplefilter("ignore", RuntimeWarning)
            t_test = scipy_stats.ttest_1samp(diff, 0.0, alternative="greater").pvalue
    else:  # every pair differs by the same amount: certain, and scipy's t is undefined
        t_test = 0.0 if mean > 0 else 1.0
    return PairedTest(n, mean, float(better), float(worse), float(t_test))


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (family-wise error control over, e.g., a claim's datasets)."""
    count = len(p_values)
    order = sorted(range(count), key=lambda i: p_values[i])
    adjusted, running = [1.0] * count, 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (count - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


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
