"""GADBench's two node splits (Tang et al., NeurIPS 2023, `preprocess.ipynb`), one draw per `rng`.

Both return `(train_idx, val_idx, test_idx)`: sorted, disjoint int64 arrays that together
cover every node, so a detector is scored on all unlabelled nodes, as GADBench does.
"""
from __future__ import annotations

import numpy as np

Split = tuple[np.ndarray, np.ndarray, np.ndarray]


def semi_supervised_split(
    y: np.ndarray,
    rng: np.random.Generator,
    train_pos: int = 20,
    train_neg: int = 80,
    val_pos: int = 20,
    val_neg: int = 80,
) -> Split:
    """GADBench's semi-supervised trial: 20 + 80 labelled train nodes, 20 + 80 validation, the rest test.

    Raises `ValueError` when `y` has too few anomalies or normals to leave at least one of
    each for the test part (else every test metric would be undefined).
    """
    pos = rng.permutation(np.flatnonzero(y == 1))
    neg = rng.permutation(np.flatnonzero(y == 0))
    if pos.size <= train_pos + val_pos or neg.size <= train_neg + val_neg:
        raise ValueError(
            f"{pos.size} anomalies and {neg.size} normals, but the semi-supervised split needs at least "
            f"{train_pos + val_pos + 1} anomalies and {train_neg + val_neg + 1} normals (one of each left for test)"
        )
    train = np.r_[pos[:train_pos], neg[:train_neg]]
    val = np.r_[pos[train_pos:train_pos + val_pos], neg[train_neg:train_neg + val_neg]]
    return _with_rest_as_test(y.size, train, val)


def supervised_split(y: np.ndarray, rng: np.random.Generator, train: float = 0.4, val: float = 0.2) -> Split:
    """GADBench's fully supervised split: stratified train/val fractions (40/20 by default), the rest test.

    Each class is shuffled and cut separately, rounding its share of train and validation
    to the nearest node, so every part keeps the graph's anomaly rate.
    """
    train_parts, val_parts = [], []
    for label in np.unique(y):
        members = rng.permutation(np.flatnonzero(y == label))
        n_train = int(round(train * members.size))
        n_val = int(round(val * members.size))
        train_parts.append(members[:n_train])
        val_parts.append(members[n_train:n_train + n_val])
    return _with_rest_as_test(y.size, np.concatenate(train_parts), np.concatenate(val_parts))


def _with_rest_as_test(num_nodes: int, train: np.ndarray, val: np.ndarray) -> Split:
    test = np.ones(num_nodes, dtype=bool)
    test[train] = False
    test[val] = False
    return np.sort(train).astype(np.int64), np.sort(val).astype(np.int64), np.flatnonzero(test).astype(np.int64)
