"""Is a change between two sides' seeds real? A one-sided t-test in the direction of the change.

Matching seeds are paired (`harness.stats.paired_test`'s paired t); otherwise Welch's t-test, as for
samples that pair nothing (a benchmark's rounds: round 3 of one file has nothing to do with round 3 of another).
Times are tested on the log scale when asked (`log_scale`): their noise is a factor (a busy machine slows a
round by some fraction of its time), as their `max_ratio` rule is; on the raw scale the spread of a slow
side's rounds grows with the slowdown, and a 2-round benchmark's test could not see a 3-fold one.
The one-sided rank tests cannot reach p < 0.05 below 5 pairs (Wilcoxon: 2^-n) or 4 runs a side
(Mann-Whitney: 3 a side give 1/20), which would leave a 3-seed suite's gate unable to ever fire,
so the gates use t-tests. Claims in reports use the Wilcoxon test (`harness.reporting.claims`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from harness.stats import ALPHA, paired_test


@dataclass(frozen=True)
class ChangeTest:
    """p-value that the better side of the change is better, and the test that gave it."""

    test: str
    p_value: float

    @property
    def significant(self) -> bool:
        return self.p_value < ALPHA


def change_test(better: dict[int, float], worse: dict[int, float], higher_is_better: bool,
                paired: bool = True, log_scale: bool = False) -> ChangeTest:
    """One-sided test that `better`, the side the change favours, is better than `worse`; values keyed by
    seed (by round, unpaired). `log_scale` tests the logs of the values when all are positive."""
    scale = ""
    if log_scale and min([*better.values(), *worse.values()]) > 0:
        better, worse = ({key: math.log(value) for key, value in side.items()} for side in (better, worse))
        scale = " (log)"
    if paired and set(better) == set(worse):
        seeds = sorted(better)
        pairs = paired_test([better[s] for s in seeds], [worse[s] for s in seeds], higher_is_better)
        return ChangeTest("paired t" + scale, pairs.t_test_p)
    sign = 1.0 if higher_is_better else -1.0
    oriented = [sign * np.fromiter(side.values(), float) for side in (better, worse)]
    return ChangeTest("Welch t" + scale, _welch_p(*oriented))


def _welch_p(better: np.ndarray, worse: np.ndarray) -> float:
    """Welch's one-sided p; with no spread on either side a difference is certain (as in `paired_test`)."""
    if better.std() == 0 and worse.std() == 0:
        return 0.0 if better.mean() > worse.mean() else 1.0
    from scipy import stats as scipy_stats  # only where a test runs: reports import this package too

    p = scipy_stats.ttest_ind(better, worse, equal_var=False, alternative="greater").pvalue
    return float(p) if math.isfinite(p) else 1.0
