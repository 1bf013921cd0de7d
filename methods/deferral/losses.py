"""Per-sample losses and costs of entities: the c_j(x, y) = loss_j + beta_j of the paper's deferral loss."""
from __future__ import annotations

import numpy as np

from methods.deferral.problem import Kind


def loss(kind: Kind, answers: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Loss of each answer: 0-1 for classification, squared error for regression. `answers` is (n,) or (n, E)
    and `y` (n,); the result has the shape of `answers`."""
    target = y if answers.ndim == 1 else y[:, None]
    if kind == "classification":
        return (answers != target).astype(np.float64)
    return (answers.astype(np.float64) - target) ** 2


def entity_costs(kind: Kind, answers: np.ndarray, y: np.ndarray, costs: np.ndarray, cost_scale: float = 1.0
                 ) -> np.ndarray:
    """(n, E) realised cost of consulting each entity alone: its loss plus `cost_scale` times its beta."""
    return loss(kind, answers, y) + cost_scale * costs[None, :]


def expected_model_loss(kind: Kind, answer: np.ndarray, y: np.ndarray, posterior: np.ndarray | None) -> np.ndarray:
    """(n,) E[loss | x] of a fixed predictor's answers: under the exact posterior when one is known, else the
    realised loss (the label is a function of x)."""
    if posterior is None or kind == "regression":
        return loss(kind, answer, y)
    return 1.0 - posterior[np.arange(answer.size), answer.astype(np.int64)]
