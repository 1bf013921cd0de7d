"""ChebNetII baseline: trained by GADBench's loop, it learns its filter and beats random on a planted graph."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from harness import RunContext
from methods.graph_anomaly.baselines.chebnetii import ChebNetII, ChebNetIIDetector
from methods.graph_anomaly.metrics import auroc
from methods.graph_anomaly.task import NodeScoring
from methods.graph_anomaly.training import TrainConfig, node_tensors, train_node_classifier
from tests.graph_anomaly.conftest import assert_ignores_hidden_test_labels


def test_chebnetii_beats_random_on_the_planted_graph(planted):
    instance = NodeScoring().instance(planted, {}, seed=0)
    torch.manual_seed(0)
    ctx = RunContext(seed=0, device="cpu", threads=1)
    scores = ChebNetIIDetector().run(instance.inputs, ctx)
    assert scores.shape == (planted.num_nodes,) and np.isfinite(scores).all()
    assert auroc(instance.truth.test_y, scores[instance.truth.test_idx]) > 70
    assert {"best_epoch", "best_val_auprc"} <= ctx.to_json().keys()


def test_training_moves_the_filter_away_from_all_pass(planted):
    data = node_tensors(NodeScoring().instance(planted, {}, seed=0).inputs, "cpu")
    torch.manual_seed(0)
    model = ChebNetII(data.x.shape[1], hidden=32, layers=2, dropout=0.0, order=10)
    train_node_classifier(model, data, TrainConfig(epochs=20, patience=20))
    assert not torch.allclose(model.filter.gammas(), torch.ones(11))


@pytest.mark.parametrize("params", [{"K": 0}, {"K": 2.0}, {"hidden": 0}])
def test_bad_parameters_raise(params):
    with pytest.raises(ValueError, match=next(iter(params))):
        ChebNetIIDetector(**params)


def test_chebnetii_ignores_hidden_test_labels(planted):
    assert_ignores_hidden_test_labels(ChebNetIIDetector, planted)
