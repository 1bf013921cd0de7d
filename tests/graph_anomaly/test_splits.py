"""GADBench's semi-supervised and supervised splits: sizes, disjointness, coverage, stratification, seeding."""
from __future__ import annotations

import numpy as np
import pytest

from methods.graph_anomaly.splits import semi_supervised_split, supervised_split


def _labels(num_nodes: int = 1000, num_anomalies: int = 70, seed: int = 0) -> np.ndarray:
    y = np.zeros(num_nodes, dtype=np.int64)
    y[np.random.default_rng(seed).choice(num_nodes, num_anomalies, replace=False)] = 1
    return y


def _assert_partition(parts: tuple[np.ndarray, ...], num_nodes: int) -> None:
    for idx in parts:
        assert idx.dtype == np.int64
        assert np.all(np.diff(idx) > 0), "each part is sorted and duplicate-free"
    joined = np.concatenate(parts)
    assert joined.size == num_nodes and np.array_equal(np.sort(joined), np.arange(num_nodes))


def test_semi_supervised_split_takes_the_gadbench_counts_and_leaves_the_rest_to_test():
    y = _labels()
    train, val, test = semi_supervised_split(y, np.random.default_rng(0))
    _assert_partition((train, val, test), y.size)
    assert (y[train].sum(), (1 - y[train]).sum()) == (20, 80)
    assert (y[val].sum(), (1 - y[val]).sum()) == (20, 80)
    assert test.size == y.size - 200 and y[test].sum() == 30


def test_semi_supervised_split_honours_custom_counts():
    y = _labels()
    train, val, _ = semi_supervised_split(y, np.random.default_rng(0), train_pos=5, train_neg=7, val_pos=3, val_neg=2)
    assert (y[train].sum(), train.size, y[val].sum(), val.size) == (5, 12, 3, 5)


def test_semi_supervised_split_raises_when_anomalies_are_too_few():
    with pytest.raises(ValueError, match="30 anomalies"):
        semi_supervised_split(_labels(num_anomalies=30), np.random.default_rng(0))


def test_supervised_split_is_stratified_40_20_40_by_default():
    y = _labels(num_nodes=1000, num_anomalies=100)
    train, val, test = supervised_split(y, np.random.default_rng(0))
    _assert_partition((train, val, test), y.size)
    assert (train.size, val.size, test.size) == (400, 200, 400)
    assert (y[train].sum(), y[val].sum(), y[test].sum()) == (40, 20, 40)


def test_supervised_split_rounds_each_class_share_to_the_nearest_node():
    y = _labels(num_nodes=101, num_anomalies=11)
    train, val, test = supervised_split(y, np.random.default_rng(0), train=0.5, val=0.25)
    _assert_partition((train, val, test), y.size)
    assert (y[train].sum(), (1 - y[train]).sum()) == (round(0.5 * 11), round(0.5 * 90))
    assert (y[val].sum(), (1 - y[val]).sum()) == (round(0.25 * 11), round(0.25 * 90))


@pytest.mark.parametrize("split", [semi_supervised_split, supervised_split])
def test_split_is_the_same_for_the_same_seed_and_differs_across_seeds(split):
    y = _labels()
    first = split(y, np.random.default_rng(1))
    again = split(y, np.random.default_rng(1))
    other = split(y, np.random.default_rng(2))
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert not np.array_equal(first[0], other[0])
