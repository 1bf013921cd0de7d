"""GADBench baselines: scores for every node, only train/val labels used, seeding, the training loop."""
from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np
import pytest
import torch
from torch import Tensor, nn
from torch_geometric.nn import GCNConv, SAGEConv

from harness import Method
from methods.graph_anomaly.baselines.gcn import GCNDetector
from methods.graph_anomaly.baselines.graphsage import GraphSAGEDetector
from methods.graph_anomaly.baselines.logreg import LogisticRegressionDetector
from methods.graph_anomaly.baselines.mlp import FeedForward, MLPDetector
from methods.graph_anomaly.baselines.rayleigh import RayleighQuotientScore
from methods.graph_anomaly.metrics import auroc
from methods.graph_anomaly.graph import Graph
from methods.graph_anomaly.task import NodeScoring
from methods.graph_anomaly.training import (
    NodeTensors, TrainConfig, class_weights, node_tensors, train_node_classifier,
)
from tests.graph_anomaly.conftest import assert_ignores_hidden_test_labels, run_detector

DETECTORS: dict[str, Callable[[], Method]] = {
    "logreg": LogisticRegressionDetector,
    "mlp": MLPDetector,
    "gcn": GCNDetector,
    "graphsage": GraphSAGEDetector,
    "rayleigh_star": lambda: RayleighQuotientScore(variant="star"),
    "rayleigh_mrq": lambda: RayleighQuotientScore(variant="mrq"),
}
NEURAL = ("mlp", "gcn", "graphsage")




@pytest.mark.parametrize("name", DETECTORS)
def test_detector_scores_every_node_finitely_and_beats_random(planted, name):
    instance = NodeScoring().instance(planted, {}, seed=0)
    scores, _ = run_detector(DETECTORS[name](), instance.inputs)
    assert scores.shape == (planted.num_nodes,) and scores.dtype == np.float64
    assert np.isfinite(scores).all()
    truth = instance.truth
    assert auroc(truth.test_y, scores[truth.test_idx]) > 60


@pytest.mark.parametrize("name", DETECTORS)
def test_scores_do_not_depend_on_hidden_test_labels(planted, name):
    assert_ignores_hidden_test_labels(DETECTORS[name], planted)


@pytest.mark.parametrize("name", DETECTORS)
def test_same_seed_gives_the_same_scores(planted, name):
    inputs = NodeScoring().instance(planted, {}, seed=0).inputs
    np.testing.assert_array_equal(run_detector(DETECTORS[name](), inputs)[0],
                                  run_detector(DETECTORS[name](), inputs)[0])


@pytest.mark.parametrize("name", NEURAL)
def test_another_seed_gives_other_initial_weights_and_scores(planted, name):
    inputs = NodeScoring().instance(planted, {}, seed=0).inputs
    assert not np.array_equal(run_detector(DETECTORS[name](), inputs, seed=0)[0],
                              run_detector(DETECTORS[name](), inputs, seed=1)[0])


@pytest.mark.parametrize("name", NEURAL)
def test_neural_detector_records_its_training(planted, name):
    _, ctx = run_detector(DETECTORS[name](), NodeScoring().instance(planted, {}, seed=0).inputs)
    figures = ctx.to_json()
    assert {"best_epoch", "epochs_run", "best_val_auprc", "train_seconds"} <= figures.keys()
    assert 1 <= figures["best_epoch"]["value"] <= figures["epochs_run"]["value"] <= 200


def test_class_weight_is_negatives_over_positives():
    weights = class_weights(torch.tensor([0, 0, 1, 0, 0, 0, 1, 0]))
    np.testing.assert_allclose(weights.numpy(), [1.0, 3.0])


def test_class_weight_needs_both_classes():
    with pytest.raises(ValueError, match="both classes"):
        class_weights(torch.tensor([0, 0, 0]))


class ScriptedModel(nn.Module):
    """Emits a fixed logit matrix per epoch, so each epoch's validation AUPRC is known in advance."""

    def __init__(self, schedule: list[Tensor]) -> None:
        super().__init__()
        self.schedule = schedule
        self.offset = nn.Parameter(torch.zeros(1))
        self.epoch = 0

    def forward(self, x: Tensor, adj_t: Tensor) -> Tensor:
        if self.training:
            self.epoch += 1
        return self.schedule[self.epoch - 1] + 0 * self.offset


def _val_logits(data: NodeTensors, quality: float, seed: int) -> Tensor:
    """Anomaly logits that rank validation anomalies higher the larger `quality` is (0 = random)."""
    generator = torch.Generator().manual_seed(seed)
    score = torch.rand(data.x.shape[0], generator=generator)
    score[data.val_idx] += quality * data.val_y
    return torch.stack([torch.zeros_like(score), score], dim=1)


def test_early_stopping_returns_the_best_validation_epoch(planted):
    data = node_tensors(NodeScoring().instance(planted, {}, seed=0).inputs, "cpu")
    qualities = [0.0, 0.3, 2.0, 0.3, 0.0, 0.2, 5.0, 5.0]  # epoch 3 is best; epoch 7 comes too late
    schedule = [_val_logits(data, q, seed=e) for e, q in enumerate(qualities)]
    result = train_node_classifier(ScriptedModel(schedule), data, TrainConfig(epochs=8, patience=3))
    assert (result.best_epoch, result.epochs_run) == (3, 6)
    np.testing.assert_allclose(result.scores, torch.softmax(schedule[2], 1)[:, 1].numpy())
    assert result.best_val_auprc == pytest.approx(100.0)


def test_a_tied_validation_score_keeps_the_earlier_epoch(planted):
    data = node_tensors(NodeScoring().instance(planted, {}, seed=0).inputs, "cpu")
    schedule = [_val_logits(data, 5.0, seed=e) for e in range(4)]  # all perfect on validation
    result = train_node_classifier(ScriptedModel(schedule), data, TrainConfig(epochs=4, patience=10))
    assert (result.best_epoch, result.epochs_run) == (1, 4)


def test_best_epoch_scores_are_what_training_for_that_many_epochs_gives(planted):
    data = node_tensors(NodeScoring().instance(planted, {}, seed=0).inputs, "cpu")

    def train(config: TrainConfig):
        torch.manual_seed(0)
        return train_node_classifier(FeedForward(data.x.shape[1], 32, 2, 0.0), data, config)

    stopped = train(TrainConfig(patience=5))
    assert stopped.epochs_run == min(200, stopped.best_epoch + 5)
    truncated = train(TrainConfig(epochs=stopped.best_epoch, patience=200))
    np.testing.assert_array_equal(stopped.scores, truncated.scores)


@pytest.mark.parametrize("make_conv", [lambda: GCNConv(8, 4), lambda: SAGEConv(8, 4, aggr="mean")], ids=["gcn", "sage"])
def test_sparse_adjacency_gives_the_same_convolution_as_edge_index(planted, make_conv):
    conv = make_conv()
    x = torch.randn(planted.num_nodes, 8, generator=torch.Generator().manual_seed(0))
    inputs = dataclasses.replace(NodeScoring().instance(planted, {}, seed=0).inputs, x=x.numpy())
    data = node_tensors(inputs, "cpu")
    edge_index = torch.as_tensor(planted.edge_index)
    torch.testing.assert_close(conv(data.x, data.adj_t), conv(data.x, edge_index), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    ("factory", "kwargs", "field"),
    [
        (MLPDetector, {"hidden": 0}, "hidden"),
        (MLPDetector, {"layers": 1.5}, "layers"),
        (MLPDetector, {"dropout": 1.0}, "dropout"),
        (GCNDetector, {"lr": 0.0}, "lr"),
        (GCNDetector, {"weight_decay": -1e-4}, "weight_decay"),
        (GCNDetector, {"epochs": 0}, "epochs"),
        (GraphSAGEDetector, {"patience": True}, "patience"),
        (GraphSAGEDetector, {"aggr": "lstm"}, "aggr"),
        (LogisticRegressionDetector, {"c_grid": ()}, "c_grid"),
        (LogisticRegressionDetector, {"c_grid": (1.0, -1.0)}, "c_grid"),
        (LogisticRegressionDetector, {"c_grid": "1.0"}, "c_grid"),
        (LogisticRegressionDetector, {"max_iter": 0}, "max_iter"),
        (RayleighQuotientScore, {"variant": "full"}, "variant"),
    ],
)
def test_bad_parameters_raise_value_error_naming_the_parameter(factory, kwargs, field):
    with pytest.raises(ValueError, match=field):
        factory(**kwargs)


@pytest.mark.slow
@pytest.mark.real_data
def test_gcn_trains_on_real_reddit_and_beats_random(real_graph_path):
    archive = np.load(real_graph_path("reddit"))
    graph = Graph("reddit", archive["x"], archive["edge_index"], archive["y"])
    instance = NodeScoring().instance(graph, {}, seed=0)
    scores, ctx = run_detector(GCNDetector(), instance.inputs)
    test_auroc = auroc(instance.truth.test_y, scores[instance.truth.test_idx])
    assert np.isfinite(scores).all() and scores.shape == (graph.num_nodes,)
    assert test_auroc > 50
