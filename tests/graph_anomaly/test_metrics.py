"""The numpy metrics agree with scikit-learn (ties included) and with a direct count for Rec@K."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import average_precision_score, roc_auc_score

from methods.graph_anomaly.metrics import AUPRC, AUROC, REC_AT_K, auprc, auroc, recall_at_k


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
