"""Class-weighted logistic regression on node features: the graph-free, linear floor.

Features are standardised with statistics of all nodes, which the transductive setting
shows every method (GADBench, Tang et al., NeurIPS 2023); labels come from train only.
The inverse regularisation C is picked on validation AUPRC, GADBench's selection metric.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import ClassVar

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

from harness import Method, RunContext
from methods.graph_anomaly.metrics import auprc
from methods.graph_anomaly.task import NodeScoringInputs


class LogisticRegressionDetector(Method):
    """scikit-learn's LogisticRegression with class_weight="balanced", one fit per C in `c_grid`."""

    version: ClassVar[str] = "1"

    def __init__(self, c_grid: Sequence[float] = (0.01, 0.1, 1.0, 10.0, 100.0), max_iter: int = 1000) -> None:
        if isinstance(c_grid, (str, bytes)) or not isinstance(c_grid, Sequence) or not c_grid:
            raise ValueError(f"c_grid must be a non-empty list of positive numbers, got {c_grid!r}")
        for c in c_grid:
            if isinstance(c, bool) or not isinstance(c, (int, float)) or not (math.isfinite(c) and c > 0):
                raise ValueError(f"every C in c_grid must be a positive finite number, got {c!r}")
        if isinstance(max_iter, bool) or not isinstance(max_iter, int) or max_iter < 1:
            raise ValueError(f"max_iter must be a positive integer, got {max_iter!r}")
        self.c_grid = tuple(float(c) for c in c_grid)
        self.max_iter = max_iter

    def run(self, inputs: NodeScoringInputs, ctx: RunContext) -> np.ndarray:
        if not np.any(inputs.val_y == 1):
            raise ValueError("validation labels hold no anomaly, so validation AUPRC is undefined")
        x = StandardScaler().fit_transform(np.asarray(inputs.x, dtype=np.float64))
        best_auprc, best_c, best_model = -math.inf, None, None
        for c in self.c_grid:
            model = LogisticRegression(
                C=c, class_weight="balanced", max_iter=self.max_iter, random_state=ctx.seed,
            ).fit(x[inputs.train_idx], inputs.train_y)
            val_auprc = auprc(inputs.val_y, model.predict_proba(x[inputs.val_idx])[:, 1])
            if best_model is None or val_auprc > best_auprc:
                best_auprc, best_c, best_model = val_auprc, c, model
        ctx.record("best_c", best_c)
        ctx.record("best_val_auprc", best_auprc, "%", higher_is_better=True)
        return best_model.predict_proba(x)[:, 1].astype(np.float64)
