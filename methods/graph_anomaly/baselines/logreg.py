"""Class-weighted logistic regression on node features: the graph-free, linear floor.

Features are standardised with statistics of all nodes, which the transductive setting
shows every method (GADBench, Tang et al., NeurIPS 2023); labels come from train only.
The inverse regularisation C is picked on validation AUPRC, GADBench's selection metric.
"""
from __future__ import annotations

import math

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

from harness import Method, RunContext
from methods.graph_anomaly.metrics import auprc
from methods.graph_anomaly.params import LogisticRegressionParams
from methods.graph_anomaly.task import NodeScoringInputs


class LogisticRegressionDetector(Method[LogisticRegressionParams]):
    """scikit-learn's LogisticRegression with class_weight="balanced", one fit per C in `c_grid`."""

    def run(self, inputs: NodeScoringInputs, ctx: RunContext) -> np.ndarray:
        if not np.any(inputs.val_y == 1):
            raise ValueError("validation labels hold no anomaly, so validation AUPRC is undefined")
        x = StandardScaler().fit_transform(np.asarray(inputs.x, dtype=np.float64))
        best_auprc, best_c, best_model = -math.inf, None, None
        for c in self.params.c_grid:
            model = LogisticRegression(
                C=c, class_weight="balanced", max_iter=self.params.max_iter, random_state=ctx.seed,
            ).fit(x[inputs.train_idx], inputs.train_y)
            val_auprc = auprc(inputs.val_y, model.predict_proba(x[inputs.val_idx])[:, 1])
            if best_model is None or val_auprc > best_auprc:
                best_auprc, best_c, best_model = val_auprc, c, model
        if best_model is None or best_c is None:
            raise ValueError("c_grid is empty")
        ctx.record("best_c", best_c)
        ctx.record("best_val_auprc", best_auprc, "%", higher_is_better=True)
        return best_model.predict_proba(x)[:, 1].astype(np.float64)
