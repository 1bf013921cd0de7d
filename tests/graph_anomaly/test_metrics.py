"""The numpy metrics agree with scikit-learn (ties included) and with a direct count for Rec@K."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import average_precision_score, roc_auc_score

from harness import Instance
from methods.graph_anomaly.metrics import (
    AUPRC, AUPRC_H00_20, AUPRC_H40_60, AUPRC_H80_100, AUROC, HOMOPHILY_BINS, REC_AT_K, auprc, auroc,
    local_homophily, recall_at_k,
)
from methods.graph_anomaly.task import NodeScoring, NodeScoringTruth


@st.composite
def labelled_scores(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    """Both classes present; integer-valued scores on a small range, so ties are common."""
    labels = draw(st.lists(st.integers(0, 1), min_size=2, max_size=60).filter(lambda v: 0 < sum(v) < len(v)))
    y = np.array(labels)
    high = draw(st.integers(min_value=0, max_value=8))
    scores = np.array(draw(st.lists(st.integers(-high, high), min_size=y.size, max_size=y.size)), dtype=np.float64)
    return y, scores


@settings(max_examples=200, deadline=None)
@given(labelled_scores())
def test_auroc_matches_sklearn_with_ties(case):
    y, scores = case
    assert auroc(y, scores) == pytest.approx(100 * roc_auc_score(y, scores), abs=1e-9)


@settings(max_examples=200, deadline=None)
@given(labelled_scores())
def test_auprc_matches_sklearn_with_ties(case):
    y, scores = case
    assert auprc(y, scores) == pytest.approx(100 * average_precision_score(y, scores), abs=1e-9)


@settings(max_examples=200, deadline=None)
@given(labelled_scores())
def test_recall_at_k_is_the_anomaly_share_of_the_k_top_scored_nodes(case):
    y, scores = case
    # distinct scores, so "the top K" is unambiguous and can be counted directly
    scores = scores + np.arange(y.size) * 1e-6
    k = int(y.sum())
    threshold = np.sort(scores)[-k]
    assert recall_at_k(y, scores) == pytest.approx(100 * y[scores >= threshold].sum() / k)


@pytest.mark.parametrize("metric", [auroc, auprc, recall_at_k])
def test_metric_is_nan_when_there_are_no_anomalies(metric):
    assert math.isnan(metric(np.zeros(5, dtype=int), np.arange(5.0)))


def test_auroc_is_nan_when_every_node_is_an_anomaly():
    assert math.isnan(auroc(np.ones(5, dtype=int), np.arange(5.0)))


@pytest.mark.parametrize("metric", [auroc, auprc, recall_at_k])
def test_metric_is_nan_for_non_finite_scores(metric):
    assert math.isnan(metric(np.array([0, 1, 0]), np.array([0.1, np.nan, 0.3])))


def test_metric_rejects_labels_and_scores_of_different_length():
    with pytest.raises(ValueError, match="3 labels but 2 scores"):
        auroc(np.array([0, 1, 0]), np.array([0.1, 0.2]))


def test_registered_metrics_are_higher_is_better_percentages():
    for metric in (AUROC, AUPRC, REC_AT_K):
        assert metric.higher_is_better and metric.unit == "%"
    assert AUROC(np.array([0, 1]), np.array([0.0, 1.0])) == 100.0


def test_local_homophily_counts_same_label_neighbours():
    # path 0-1-2-3 plus isolated node 4; labels 0 0 1 1 0
    edges = np.array([[0, 1, 1, 2, 2, 3], [1, 0, 2, 1, 3, 2]])
    h = local_homophily(edges, np.array([0, 0, 1, 1, 0]))
    np.testing.assert_allclose(h[:4], [1.0, 0.5, 0.5, 1.0])
    assert np.isnan(h[4])


def test_homophily_bins_partition_the_unit_interval():
    h = np.array([0.0, 0.19, 0.2, 0.5, 0.79, 0.8, 1.0, np.nan])
    membership = np.stack([b.selects(h) for b in HOMOPHILY_BINS])
    np.testing.assert_array_equal(membership[:, :7].sum(axis=0), 1)  # each defined h in exactly one bin
    assert not membership[:, 7].any()  # isolated nodes in none
    np.testing.assert_array_equal(membership.argmax(axis=0)[:7], [0, 0, 1, 2, 3, 4, 4])


def test_homophily_bin_metric_scores_only_its_nodes():
    truth = NodeScoringTruth(np.arange(6), np.array([1, 0, 1, 0, 1, 0]), np.array([0.1, 0.1, 0.1, 0.9, 0.9, 0.9]))
    scores = np.array([0.9, 0.1, 0.8, 0.9, 0.1, 0.5])  # perfect in the low bin, worst in the high bin
    table = pd.DataFrame({"node": np.arange(6), "score": scores})
    bins = {"low": AUPRC_H00_20, "mid": AUPRC_H40_60, "high": AUPRC_H80_100}
    got = NodeScoring().score(Instance(None, truth), table, bins)
    assert got["low"] == pytest.approx(100.0)
    assert got["high"] == pytest.approx(auprc(np.array([0, 1, 0]), np.array([0.9, 0.1, 0.5])))
    assert math.isnan(got["mid"])  # no node in the bin


def test_homophily_bin_with_one_class_only_is_nan_not_a_perfect_score():
    truth = NodeScoringTruth(np.arange(4), np.array([1, 1, 0, 0]), np.array([0.0, 0.1, 0.9, 1.0]))
    table = pd.DataFrame({"node": np.arange(4), "score": [0.1, 0.2, 0.3, 0.4]})
    got = NodeScoring().score(Instance(None, truth), table, {"low": AUPRC_H00_20, "high": AUPRC_H80_100})
    assert math.isnan(got["low"]) and math.isnan(got["high"])  # plain AUPRC would give the low bin 100
