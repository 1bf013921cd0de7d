"""The fixed model of the two-stage setting: trained once on the model part, then frozen; every deferral
method sees its outputs. Logistic regression (classification) or ridge regression (regression) on the
first principal components of x, so a suite can set how much there is to gain by deferring."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from methods.deferral.problem import Kind

if TYPE_CHECKING:
    from sklearn.pipeline import Pipeline


@dataclass(frozen=True)
class FixedModel:
    kind: Kind
    pipeline: Pipeline  # fitted

    def outputs(self, x: np.ndarray) -> np.ndarray:
        """(n, C) class probabilities, or (n, 1) predictions."""
        if self.kind == "classification":
            return self.pipeline.predict_proba(x)
        return self.pipeline.predict(x)[:, None]

    def answers(self, outputs: np.ndarray) -> np.ndarray:
        """The model's answers from its outputs: the most probable class, or the prediction."""
        return outputs.argmax(axis=1) if self.kind == "classification" else outputs[:, 0]


def fit_fixed_model(kind: Kind, x: np.ndarray, y: np.ndarray, components: int | None, seed: int) -> FixedModel:
    from sklearn.decomposition import PCA
    from sklearn.linear_model import LogisticRegression, Ridge
    from sklearn.pipeline import make_pipeline

    steps: list = [] if components is None else [PCA(n_components=min(components, x.shape[1]), random_state=seed)]
    head = LogisticRegression(max_iter=2000) if kind == "classification" else Ridge(alpha=1.0)
    return FixedModel(kind, make_pipeline(*steps, head).fit(x, y))
