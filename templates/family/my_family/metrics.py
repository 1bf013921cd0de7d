"""The family's metrics: pure functions of the test labels and the scores, each with its direction and version.

Bump a metric's `version` whenever its definition changes: the version enters every run key, so stored
runs scored the old way are no longer counted, and `harness score SUITE` re-scores their stored predictions.
"""
from __future__ import annotations

import numpy as np
from scipy.stats import mannwhitneyu

from harness import Metric


def auroc(y_true: np.ndarray, y_score: np.ndarray) -> float:
    """Area under the ROC curve x100: the Mann-Whitney U of the positives' scores over the negatives',
    normalised (ties count one half, as in scikit-learn's `roc_auc_score`); NaN when a class is absent."""
    y_true = np.asarray(y_true).astype(bool)
    y_score = np.asarray(y_score, dtype=np.float64)
    positives, negatives = y_score[y_true], y_score[~y_true]
    if positives.size == 0 or negatives.size == 0:
        return float("nan")
    u = mannwhitneyu(positives, negatives, method="asymptotic").statistic
    return 100.0 * float(u) / (positives.size * negatives.size)


AUROC = Metric("auroc", auroc, higher_is_better=True, version="1", unit="%",
               description="area under the ROC curve of the test points' scores, x100")
