"""DGI + probe (Pretrain-GAD) and GADBench's RFGraph/XGBGraph: label use, selection, aggregation."""
from __future__ import annotations

import dataclasses
import importlib.util
import inspect
from collections.abc import Callable

import numpy as np
import pytest
import torch

from harness import Method
from methods.graph_anomaly.baselines import dgi_probe
from methods.graph_anomaly.baselines.dgi_probe import (
    DGIProbeDetector, PretrainConfig, fit_probe, pretrain_dgi,
)
from methods.graph_anomaly.baselines.tree_graph import (
    RFGraphDetector, XGBGraphDetector, neighbour_aggregation, positive_weights,
)
from methods.graph_anomaly.metrics import auprc, auroc
from methods.graph_anomaly.task import NodeScoring
from methods.graph_anomaly.training import TrainConfig, node_tensors
from tests.graph_anomaly.conftest import assert_ignores_hidden_test_labels, run_detector

needs_xgboost = pytest.mark.skipif(
    importlib.util.find_spec("xgboost") is None, reason="XGBGraph needs xgboost (the `graph` extra: xgboost-cpu)",
)

FAST_DGI = {"epochs": 60}  # enough for the loss to fall on a 600-node graph, fast on 1 thread
DETECTORS: dict[str, Callable[[], Method]] = {
    "dgi_linear": lambda: DGIProbeDetector(probe="linear", **FAST_DGI),
    "dgi_mlp": lambda: DGIProbeDetector(probe="mlp", **FAST_DGI),
    "rfgraph": RFGraphDetector,
    "xgbgraph": XGBGraphDetector,
}
NAMES = [pytest.param(n, marks=needs_xgboost) if n == "xgbgraph" else n for n in DETECTORS]




@pytest.fixture(scope="module")
def instance(planted):
    return NodeScoring().instance(planted, {}, seed=0)


# ---- neighbour aggregation (GADBench's GIN_noparam) ----

PATH_X = np.array([[1.0], [2.0], [4.0], [8.0], [16.0]], dtype=np.float32)  # path 0-1-2-3, node 4 isolated
PATH_EDGES = np.array([[0, 1, 1, 2, 2, 3], [1, 0, 2, 1, 3, 2]])


@pytest.mark.parametrize(
    ("aggr", "hop1", "hop2"),
    [
        ("mean", [2, 2.5, 5, 4, 0], [2.5, 3.5, 3.25, 5, 0]),
        ("sum", [2, 5, 10, 4, 0], [5, 12, 9, 10, 0]),
        ("max", [2, 4, 8, 4, 0], [4, 8, 4, 8, 0]),
    ],
)
def test_neighbour_aggregation_on_a_path_excludes_self_and_zero_fills_isolated_nodes(aggr, hop1, hop2):
    features = neighbour_aggregation(PATH_X, PATH_EDGES, hops=2, aggr=aggr)
    expected = np.stack([PATH_X[:, 0], hop1, hop2], axis=1)
    np.testing.assert_allclose(features, expected)
    np.testing.assert_allclose(neighbour_aggregation(PATH_X, PATH_EDGES, hops=1, aggr=aggr), expected[:, :2])


def test_neighbour_aggregation_keeps_feature_blocks_in_hop_order():
    x = np.concatenate([PATH_X, -PATH_X], axis=1)
    features = neighbour_aggregation(x, PATH_EDGES, hops=2, aggr="mean")
    assert features.shape == (5, 6)
    np.testing.assert_allclose(features[:, 2:4], np.stack([[2, 2.5, 5, 4, 0], [-2, -2.5, -5, -4, 0]], 1))


def test_positive_class_weight_is_negatives_over_positives():
    np.testing.assert_allclose(positive_weights(np.array([0, 0, 1, 0, 0, 0, 1, 0])), [1, 1, 3, 1, 1, 1, 3, 1])
    with pytest.raises(ValueError, match="both classes"):
        positive_weights(np.array([0, 0, 0]))


# ---- every detector ----

@pytest.mark.parametrize("name", NAMES)
def test_detector_scores_every_node_and_beats_auroc_70(instance, planted, name):
    scores, _ = run_detector(DETECTORS[name](), instance.inputs)
    assert scores.shape == (planted.num_nodes,) and scores.dtype == np.float64
    assert np.isfinite(scores).all()
    assert auroc(instance.truth.test_y, scores[instance.truth.test_idx]) > 70


@pytest.mark.parametrize("name", NAMES)
def test_scores_are_bit_identical_when_hidden_test_labels_are_permuted(planted, name):
    assert_ignores_hidden_test_labels(DETECTORS[name], planted)


@pytest.mark.parametrize("name", NAMES)
def test_same_seed_gives_the_same_scores(instance, name):
    first, second = (run_detector(DETECTORS[name](), instance.inputs)[0] for _ in range(2))
    np.testing.assert_array_equal(first, second)


# ---- DGI pre-training is label-free ----

def test_dgi_pretraining_takes_no_label_argument():
    assert list(inspect.signature(pretrain_dgi).parameters) == ["x", "adj_t", "config"]


def test_dgi_embeddings_are_bit_identical_whatever_the_train_and_val_labels(instance, monkeypatch):
    captured = []
    real_fit_probe = dgi_probe.fit_probe

    def capturing_fit_probe(embeddings, *args):
        captured.append(embeddings.clone())
        return real_fit_probe(embeddings, *args)

    monkeypatch.setattr(dgi_probe, "fit_probe", capturing_fit_probe)
    inputs = instance.inputs
    flipped = dataclasses.replace(inputs, train_y=1 - inputs.train_y, val_y=1 - inputs.val_y)
    run_detector(DETECTORS["dgi_linear"](), inputs)
    run_detector(DETECTORS["dgi_linear"](), flipped)
    assert len(captured) == 2
    torch.testing.assert_close(captured[0], captured[1], rtol=0, atol=0)


def test_dgi_loss_falls_below_its_first_epoch_and_stops_patience_epochs_after_the_best(instance):
    data = node_tensors(instance.inputs, "cpu")
    torch.manual_seed(0)
    result = pretrain_dgi(data.x, data.adj_t, PretrainConfig(epochs=300, patience=5))
    assert min(result.losses[1:]) < result.losses[0]
    assert result.best_epoch > 1 and result.losses[result.best_epoch - 1] == min(result.losses)
    assert result.epochs_run == min(300, result.best_epoch + 5)
    assert result.embeddings.shape == (data.x.shape[0], 32) and not result.embeddings.requires_grad


def test_detector_records_pretraining_and_probe_figures(instance):
    _, ctx = run_detector(DETECTORS["dgi_linear"](), instance.inputs)
    figures = {k: v["value"] for k, v in ctx.to_json().items()}
    assert figures["pretrain_seconds"] > 0
    assert 1 <= figures["pretrain_best_epoch"] <= figures["pretrain_epochs_run"] <= FAST_DGI["epochs"]
    assert 1 <= figures["probe_best_epoch"] <= figures["probe_epochs_run"] <= 200


# ---- the probe selects on validation only ----

def test_probe_epoch_and_train_val_scores_ignore_the_rows_of_test_nodes(instance):
    data = node_tensors(instance.inputs, "cpu")
    torch.manual_seed(0)
    embeddings = pretrain_dgi(data.x, data.adj_t, PretrainConfig(epochs=30)).embeddings
    seen = torch.cat([data.train_idx, data.val_idx])
    hidden = torch.ones(embeddings.shape[0], dtype=torch.bool)
    hidden[seen] = False
    tampered = embeddings.clone()
    noise = torch.randn(int(hidden.sum()), embeddings.shape[1], generator=torch.Generator().manual_seed(1))
    tampered[hidden] = 100 * noise

    def fit(e):
        torch.manual_seed(0)
        return fit_probe(e, data, "linear", TrainConfig(epochs=200, patience=30))

    clean, dirty = fit(embeddings), fit(tampered)
    assert (clean.best_epoch, clean.epochs_run) == (dirty.best_epoch, dirty.epochs_run)
    np.testing.assert_allclose(clean.scores[seen.numpy()], dirty.scores[seen.numpy()], rtol=0, atol=1e-12)
    assert not np.allclose(clean.scores[hidden.numpy()], dirty.scores[hidden.numpy()])
    val_y = instance.inputs.val_y
    assert clean.best_val_auprc == pytest.approx(auprc(val_y, clean.scores[instance.inputs.val_idx]))


# ---- trees fit on train labels only ----

def test_a_single_choice_random_forest_ignores_validation_labels(instance):
    inputs = instance.inputs
    flipped = dataclasses.replace(inputs, val_y=1 - inputs.val_y)
    detector = RFGraphDetector(max_features_grid=("sqrt",))
    np.testing.assert_array_equal(run_detector(detector, inputs)[0], run_detector(detector, flipped)[0])


@needs_xgboost
def test_xgbgraph_selects_a_round_count_within_bounds_on_validation(instance):
    scores, ctx = run_detector(XGBGraphDetector(max_rounds=30), instance.inputs)
    figures = {k: v["value"] for k, v in ctx.to_json().items()}
    assert 1 <= figures["best_rounds"] <= 30
    val_auprc = auprc(instance.inputs.val_y, scores[instance.inputs.val_idx])
    assert figures["best_val_auprc"] == pytest.approx(val_auprc)


@pytest.mark.parametrize(
    ("factory", "kwargs", "field"),
    [
        (DGIProbeDetector, {"probe": "svm"}, "probe"),
        (DGIProbeDetector, {"hidden": 0}, "hidden"),
        (DGIProbeDetector, {"lr": -1.0}, "lr"),
        (DGIProbeDetector, {"epochs": 1.5}, "epochs"),
        (DGIProbeDetector, {"patience": True}, "patience"),
        (DGIProbeDetector, {"probe_epochs": 0}, "epochs"),
        (RFGraphDetector, {"hops": 0}, "hops"),
        (RFGraphDetector, {"aggr": "lstm"}, "aggr"),
        (RFGraphDetector, {"n_estimators": 0}, "n_estimators"),
        (RFGraphDetector, {"max_features_grid": ()}, "max_features_grid"),
        (RFGraphDetector, {"max_features_grid": "sqrt"}, "max_features_grid"),
        (XGBGraphDetector, {"max_rounds": 0}, "max_rounds"),
        (XGBGraphDetector, {"learning_rate": 0.0}, "learning_rate"),
        (XGBGraphDetector, {"max_depth": -2}, "max_depth"),
    ],
)
def test_bad_parameters_raise_value_error_naming_the_parameter(factory, kwargs, field):
    with pytest.raises(ValueError, match=field):
        factory(**kwargs)
