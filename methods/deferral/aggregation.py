"""The decision of a consulted set (the spec's "majority or weighted vote for classification, averaging for
regression", marked [inferred]): a majority vote over the consulted entities that have a positive weight,
ties going to the tied label whose heaviest voter is heaviest (then the lowest label); for regression the
weighted mean of their answers (Top-k gives equal weights: the plain average).

The weights only order the voters: Top-k L2D passes each entity's estimated chance of being right at x, from a
scorer trained on the train part's losses without the costs, not the cost-laden routing scores. With two voters
a majority vote is always a tie when they disagree, so k = 2 answers with one of the two: the top-scored
entity's answer, or the second's when it is estimated the more reliable one at x. It can correct a top-1 that
was chosen for being cheap; it can never outvote both."""
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
    np.add.at(votes, (rows, labels.ravel()), (weights > 0).ravel().astype(np.float64))
    heaviest = np.zeros_like(votes)
    np.maximum.at(heaviest, (rows, labels.ravel()), weights.ravel())
    # a vote counts 2, the tie-break at most 1 (the heaviest weight over the row's largest): a count always wins
    return (2.0 * votes + heaviest / weights.max(axis=1, keepdims=True)).argmax(axis=1)
