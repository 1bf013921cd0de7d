"""The decision of a consulted set: a weighted vote over the consulted entities' answers (classification, ties
going to the label of the heaviest single voter) or their weighted mean (regression)."""
from __future__ import annotations

import numpy as np

from methods.deferral.problem import Kind


def aggregate(kind: Kind, answers: np.ndarray, weights: np.ndarray, num_classes: int) -> np.ndarray:
    """(n,) decisions from (n, E) answers and (n, E) weights (zero for an entity not consulted)."""
    if kind == "regression":
        return (answers * weights).sum(axis=1) / weights.sum(axis=1)
    labels = answers.astype(np.int64)
    rows = np.repeat(np.arange(labels.shape[0]), labels.shape[1])
    votes = np.zeros((labels.shape[0], num_classes))
    np.add.at(votes, (rows, labels.ravel()), weights.ravel())
    heaviest = np.zeros_like(votes)
    np.maximum.at(heaviest, (rows, labels.ravel()), weights.ravel())
    # the tie-break term is below any difference of vote totals that matters (weights are O(1))
    return (votes + 1e-9 * heaviest).argmax(axis=1)
