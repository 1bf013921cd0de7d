"""Representation diagnostics of a layer's features (rows: inputs, columns: units).

tau-dormant ratio (Sokar, Agarwal, Castro, Evci, "The Dormant Neuron Phenomenon in Deep RL", ICML 2023): a
unit's score is its mean absolute activation over the inputs divided by the layer's mean of those means; a unit
is dormant when its score is at most tau. srank (Kumar, Agarwal, Ghosh, Levine, "Implicit Under-
Parameterization", ICLR 2021): the fewest singular values of the feature matrix whose sum reaches 1 - delta of
the total."""
from __future__ import annotations

import numpy as np

DORMANT_TAU = 0.025
SRANK_DELTA = 0.01


def dormant_ratio(features: np.ndarray, tau: float = DORMANT_TAU) -> float:
    """Share of units whose normalised mean |activation| is <= tau; every unit counts dormant on an all-zero layer."""
    activity = np.abs(np.asarray(features, dtype=np.float64)).mean(axis=0)
    layer_mean = activity.mean()
    if layer_mean == 0:
        return 1.0
    return float((activity / layer_mean <= tau).mean())


def srank(features: np.ndarray, delta: float = SRANK_DELTA) -> int:
    """min k with sum_{i<=k} sigma_i >= (1 - delta) sum_i sigma_i (singular values in decreasing order); 0 for zeros."""
    singular = np.linalg.svd(np.asarray(features, dtype=np.float64), compute_uv=False)
    total = singular.sum()
    if total == 0:
        return 0
    return int(np.searchsorted(np.cumsum(singular) / total, 1.0 - delta - 1e-12) + 1)
