"""APF: the gate regulariser, label-free pre-training, the MRQ readout, and the detector end to end."""
from __future__ import annotations

import dataclasses
import inspect
import math

import numpy as np
import pytest
import torch

from methods.graph_anomaly.apf import APFDetector
from methods.graph_anomaly.apf.chebyshev import shifted_laplacian
from methods.graph_anomaly.apf.encoder import DualFilterEncoder
from methods.graph_anomaly.apf.finetune import FUSIONS, FinetuneConfig, Fusion, finetune, gate_regulariser
from methods.graph_anomaly.apf.method import normalise_features
from methods.graph_anomaly.apf.pretrain import SUMMARIES, PretrainConfig, pretrain, summary_operator
from methods.graph_anomaly.baselines.rayleigh import mrq_subgraph
from methods.graph_anomaly.data import injected_sbm
from methods.graph_anomaly.metrics import auroc
from methods.graph_anomaly.task import NodeScoring
from tests.graph_anomaly.conftest import run_detector

FAST = {"pretrain_epochs": 30, "epochs": 100}


def test_regulariser_is_minimal_when_the_gate_matches_its_targets():
    y = torch.tensor([1, 0, 0, 0])
    on_target = gate_regulariser(torch.tensor([0.3, 0.9, 0.9, 0.9]), y, p_a=0.3, p_n=0.9)
    for c in ([0.5, 0.9, 0.9, 0.9], [0.3, 0.7, 0.9, 0.9], [0.1, 0.99, 0.9, 0.9]):
        assert gate_regulariser(torch.tensor(c), y, p_a=0.3, p_n=0.9) > on_target


def test_regulariser_is_the_class_weighted_bce():
    c, y, p_a, p_n = [0.2, 0.6, 0.9, 0.5], [1, 0, 0, 0], 0.1, 0.8
    targets = [p_a, p_n, p_n, p_n]
    bce = [-(t * math.log(ci) + (1 - t) * math.log(1 - ci)) for ci, t in zip(c, targets, strict=True)]
    weights = [3.0, 1.0, 1.0, 1.0]  # the anomaly counts #normal / #anomalous = 3 times
    expected = sum(w * b for w, b in zip(weights, bce, strict=True)) / 4
    got = gate_regulariser(torch.tensor(c, dtype=torch.float64), torch.tensor(y), p_a, p_n)
    assert got.item() == pytest.approx(expected, rel=1e-9)
    unweighted = gate_regulariser(torch.tensor(c, dtype=torch.float64), torch.tensor(y), p_a, p_n, class_weighted=False)
    assert unweighted.item() == pytest.approx(sum(bce) / 4, rel=1e-9)


@pytest.mark.parametrize("p_a, p_n", [(0.9, 0.5), (-0.1, 0.5), (0.5, 1.2)])
def test_gate_targets_out_of_order_or_range_raise(p_a, p_n):
    with pytest.raises(ValueError, match="p_a"):
        gate_regulariser(torch.tensor([0.5]), torch.tensor([1]), p_a, p_n)
    with pytest.raises(ValueError, match="p_a"):
        APFDetector(p_a=p_a, p_n=p_n)


def test_pretraining_takes_no_labels():
    names = set(inspect.signature(pretrain).parameters) | set(inspect.signature(summary_operator).parameters)
    assert not any("y" == n or "label" in n for n in names)


def test_pretraining_losses_fall_on_an_injected_sbm():
    """Without BatchNorm: with it, the corrupted view is normalised on its own and L_low stalls here."""
    graph = injected_sbm(num_nodes=600, seed=0)
    torch.manual_seed(0)
    x = torch.as_tensor(graph.x)
    edge_index = torch.as_tensor(graph.edge_index)
    readout = summary_operator(graph.x, graph.edge_index, "mrq", "cpu")
    encoder = DualFilterEncoder(x.shape[1], 16, order=3, batchnorm=False)
    result = pretrain(encoder, x, shifted_laplacian(edge_index, graph.num_nodes), 3, readout,
                      PretrainConfig(epochs=80, patience=80, lr=5e-3))
    assert result.epochs_run == 80
    for losses in (result.low_losses, result.high_losses):
        assert np.mean(losses[-5:]) < np.mean(losses[:5]) - 0.2  # 2 log 2 = 1.39 at chance
    assert result.best_loss == min(map(sum, zip(result.low_losses, result.high_losses, strict=True)))
    assert result.best_loss < 4 * math.log(2) - 0.4


def test_gate_spread_is_zero_when_every_node_has_the_same_features():
    """The gate reads X: identical rows give one C for all nodes (Reddit's near-uniform rows come close)."""
    torch.manual_seed(0)
    n, hidden = 40, 8
    y = torch.tensor([1] * 8 + [0] * 32)
    tuned = finetune(torch.randn(n, hidden), torch.randn(n, hidden), torch.ones(n, 5), torch.arange(n), y,
                     torch.arange(n), y.numpy(), Fusion("gated", hidden, 5), FinetuneConfig(epochs=5))
    assert tuned.gate_spread == pytest.approx(0.0, abs=1e-6)
    assert tuned.gate_means[0] == pytest.approx(tuned.gate_means[1], abs=1e-6)


def test_mrq_readout_averages_each_node_with_its_mrq_neighbours():
    graph = injected_sbm(num_nodes=200, seed=1)
    mean = summary_operator(graph.x, graph.edge_index, "mrq", "cpu").mean.to_dense().numpy()
    subgraph = mrq_subgraph(graph.x, graph.edge_index)
    expected = np.eye(graph.num_nodes)
    centre, neighbour = graph.edge_index[:, subgraph.kept]
    expected[centre, neighbour] = 1.0
    expected /= expected.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(mean, expected, atol=1e-6)


def test_random_readout_keeps_the_mrq_sizes_but_other_neighbours():
    graph = injected_sbm(num_nodes=200, seed=1)
    torch.manual_seed(0)
    mrq = summary_operator(graph.x, graph.edge_index, "mrq", "cpu").mean.to_dense().numpy()
    rnd = summary_operator(graph.x, graph.edge_index, "random", "cpu").mean.to_dense().numpy()
    adjacency = np.eye(graph.num_nodes, dtype=bool)
    adjacency[graph.edge_index[0], graph.edge_index[1]] = True
    np.testing.assert_array_equal((mrq > 0).sum(1), (rnd > 0).sum(1))
    assert not (rnd[~adjacency] > 0).any()
    assert not np.array_equal(mrq > 0, rnd > 0)


def test_apf_beats_random_on_the_planted_graph(planted):
    instance = NodeScoring().instance(planted, {}, seed=0)
    scores, ctx = run_detector(APFDetector(**FAST), instance.inputs)
    assert scores.shape == (planted.num_nodes,) and np.isfinite(scores).all()
    assert auroc(instance.truth.test_y, scores[instance.truth.test_idx]) > 70
    figures = ctx.to_json()
    assert {"mrq_seconds", "pretrain_seconds", "pretrain_epochs_run", "pretrain_epoch_seconds",
            "finetune_epoch_seconds", "best_epoch", "best_val_auroc", "mean_neighbours_kept",
            "gate_mean_anomaly", "gate_mean_normal", "gate_spread", "pretrain_best_epoch",
            "pretrain_best_loss"} <= figures.keys()
    assert 0 < figures["gate_mean_anomaly"]["value"] < 1
    assert 0 < figures["gate_spread"]["value"] < 0.5
    assert 1 <= figures["pretrain_best_epoch"]["value"] <= figures["pretrain_epochs_run"]["value"]


def test_scores_do_not_depend_on_hidden_test_labels(planted):
    instance = NodeScoring().instance(planted, {}, seed=0)
    inputs = instance.inputs
    relabelled = planted.y.copy()
    test = instance.truth.test_idx
    relabelled[test] = np.random.default_rng(1).permutation(relabelled[test])
    other = dataclasses.replace(inputs, train_y=relabelled[inputs.train_idx], val_y=relabelled[inputs.val_idx])
    np.testing.assert_array_equal(run_detector(APFDetector(**FAST), inputs)[0],
                                  run_detector(APFDetector(**FAST), other)[0])


@pytest.mark.parametrize("fusion", FUSIONS)
def test_every_fusion_runs(planted, fusion):
    inputs = NodeScoring().instance(planted, {}, seed=0).inputs
    scores, ctx = run_detector(APFDetector(fusion=fusion, pretrain_epochs=3, epochs=5), inputs)
    assert np.isfinite(scores).all()
    assert ("gate_mean_anomaly" in ctx.to_json()) == (fusion == "gated")


@pytest.mark.parametrize("options", [
    *({"summary": s} for s in SUMMARIES), {"pretrain": False}, {"regularise": False}, {"gate_layers": 2},
    {"share_linear": False, "shared_discriminator": False, "activation": "prelu", "batchnorm": False},
    *({"feature_norm": f} for f in ("l1", "l2", "standard")), {"select_on": "auprc"},
])
def test_every_ablation_option_runs(planted, options):
    inputs = NodeScoring().instance(planted, {}, seed=0).inputs
    scores, ctx = run_detector(APFDetector(**options, pretrain_epochs=3, epochs=5), inputs)
    assert np.isfinite(scores).all()
    assert ("pretrain_seconds" in ctx.to_json()) == options.get("pretrain", True)


def test_without_pretraining_the_encoder_stays_at_its_initialisation(planted):
    """With pretrain=False and only the head trained, the seed alone fixes Z: same seed, same scores."""
    inputs = NodeScoring().instance(planted, {}, seed=0).inputs
    a, _ = run_detector(APFDetector(pretrain=False, epochs=5), inputs)
    b, _ = run_detector(APFDetector(pretrain=False, epochs=5), inputs)
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("params", [
    {"K": 0}, {"hidden": 2.5}, {"fusion": "attention"}, {"summary": "twohop"}, {"gate_layers": 3},
    {"feature_norm": "max"}, {"select_on": "f1"}, {"dropout": 1.0}, {"lr": 0}, {"weight_decay": -1},
    {"activation": "relu"}, {"head_hidden": (32, 0)}, {"pretrain_patience": 0},
])
def test_bad_parameters_raise(params):
    with pytest.raises(ValueError, match=next(iter(params))):
        APFDetector(**params)


def test_feature_normalisations():
    x = np.array([[3.0, -4.0], [0.0, 0.0], [1.0, 1.0]], dtype=np.float32)
    np.testing.assert_allclose(np.linalg.norm(normalise_features(x, "l2")[[0, 2]], axis=1), 1.0, rtol=1e-6)
    np.testing.assert_allclose(np.abs(normalise_features(x, "l1")[0]).sum(), 1.0, rtol=1e-6)
    np.testing.assert_array_equal(normalise_features(x, "l2")[1], 0.0)
    np.testing.assert_allclose(normalise_features(x, "standard").mean(0), 0.0, atol=1e-6)
