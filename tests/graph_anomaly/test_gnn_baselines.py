"""GADBench's spectral and attention GNN baselines: filters against their closed forms, detectors end to end."""
from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
import torch
from numpy.polynomial import polynomial as P
from scipy.special import beta as beta_function
from torch_geometric.utils import to_torch_csr_tensor

from harness import Method
from methods.graph_anomaly.baselines.amnet import AdaptiveMultiFrequencyNetwork, AMNetDetector
from methods.graph_anomaly.baselines.bernnet import BernNetDetector
from methods.graph_anomaly.baselines.bwgnn import BWGNNDetector
from methods.graph_anomaly.baselines.gat import GATDetector
from methods.graph_anomaly.baselines.ghrn import GHRNDetector, heterophily_scores, prune_heterophilous_edges
from methods.graph_anomaly.baselines.polynomial import (
    Laplacian, bernstein_filter, beta_wavelet_coefficients, laplacian_powers, normalized_adjacency,
)
from methods.graph_anomaly.metrics import auroc
from methods.graph_anomaly.task import NodeScoring
from tests.graph_anomaly.conftest import assert_ignores_hidden_test_labels, run_detector

DETECTORS: dict[str, Callable[[], Method]] = {
    "gat": GATDetector,
    "bwgnn": BWGNNDetector,
    "bernnet": BernNetDetector,
    "amnet": AMNetDetector,
    "ghrn": GHRNDetector,
}




@pytest.fixture(scope="module")
def small_graph() -> tuple[torch.Tensor, np.ndarray]:
    """A random symmetric 12-node graph with one isolated node: (CSR adjacency, dense Laplacian I - D^-1/2 A D^-1/2)."""
    rng = np.random.default_rng(3)
    dense = np.triu(rng.random((12, 12)) < 0.35, 1)
    dense[11] = dense[:, 11] = False
    dense = (dense | dense.T).astype(np.float64)
    edge_index = torch.as_tensor(np.stack(np.nonzero(dense)), dtype=torch.long)
    inv_sqrt = np.maximum(dense.sum(1), 1) ** -0.5
    laplacian = np.eye(12) - inv_sqrt[:, None] * dense * inv_sqrt[None, :]
    return to_torch_csr_tensor(edge_index, size=(12, 12)), laplacian


def _spectral(laplacian: np.ndarray, response: Callable[[np.ndarray], np.ndarray], h: np.ndarray) -> np.ndarray:
    """U response(Lambda) U^T h, the filter by eigendecomposition."""
    eigenvalues, vectors = np.linalg.eigh(laplacian)
    return vectors @ (response(eigenvalues)[:, None] * (vectors.T @ h))


def _features(n: int = 12, width: int = 5) -> torch.Tensor:
    return torch.randn(n, width, generator=torch.Generator().manual_seed(0))


def test_normalized_adjacency_matches_the_dense_formula_with_isolated_nodes(small_graph):
    adj_t, laplacian = small_graph
    np.testing.assert_allclose(normalized_adjacency(adj_t).to_dense().numpy(), np.eye(12) - laplacian, atol=1e-6)


@pytest.mark.parametrize("order", [1, 2, 3, 5])
def test_beta_wavelet_polynomials_reproduce_the_closed_form_kernels(order):
    lam = np.linspace(0, 2, 41)
    coefficients = beta_wavelet_coefficients(order)
    for i in range(order + 1):
        closed = (lam / 2) ** i * (1 - lam / 2) ** (order - i) / beta_function(i + 1, order + 1 - i)
        np.testing.assert_allclose(P.polyval(lam, coefficients[i]), closed, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("order", [1, 2, 3, 5])
def test_beta_wavelets_sum_to_order_plus_one(order):
    """1 / B(i+1, d+1-i) = (d+1) C(d, i), so the kernels are d+1 times a Bernstein partition of unity."""
    lam = np.linspace(0, 2, 41)
    total = sum(P.polyval(lam, row) for row in beta_wavelet_coefficients(order))
    np.testing.assert_allclose(total, order + 1, rtol=1e-10)


def test_beta_wavelets_applied_through_l_match_the_eigendecomposition(small_graph):
    adj_t, laplacian = small_graph
    order, h = 3, _features()
    powers = laplacian_powers(Laplacian(), h, adj_t, order)
    for i, row in enumerate(beta_wavelet_coefficients(order)):
        applied = sum(float(c) * p for c, p in zip(row, powers, strict=True))

        def kernel(lam, i=i):
            return (lam / 2) ** i * (1 - lam / 2) ** (order - i) / beta_function(i + 1, order + 1 - i)

        np.testing.assert_allclose(applied.numpy(), _spectral(laplacian, kernel, h.double().numpy()), atol=1e-4)


@pytest.mark.parametrize("order", [1, 2, 4, 10])
def test_bernstein_filter_with_equal_coefficients_is_a_multiple_of_identity(small_graph, order):
    adj_t, _ = small_graph
    h = _features()
    out = bernstein_filter(Laplacian(), h, adj_t, torch.full((order + 1,), 0.7))
    torch.testing.assert_close(out, 0.7 * h, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("order", [2, 5])
def test_bernstein_filter_matches_its_spectral_response(small_graph, order):
    adj_t, laplacian = small_graph
    h = _features()
    theta = torch.rand(order + 1, generator=torch.Generator().manual_seed(order))

    def response(lam: np.ndarray) -> np.ndarray:
        return sum(float(t) * math.comb(order, k) / 2**order * (2 - lam) ** (order - k) * lam**k
                   for k, t in enumerate(theta))

    out = bernstein_filter(Laplacian(), h, adj_t, theta)
    np.testing.assert_allclose(out.numpy(), _spectral(laplacian, response, h.double().numpy()), atol=1e-4)


def test_laplacian_rebuilds_its_cache_for_a_new_graph(small_graph):
    adj_t, laplacian = small_graph
    h, apply = _features(), Laplacian()
    apply(h, adj_t)
    empty = to_torch_csr_tensor(torch.empty(2, 0, dtype=torch.long), size=(12, 12))
    torch.testing.assert_close(apply(h, empty), h)  # no edges: L = I
    np.testing.assert_allclose(apply(h, adj_t).numpy(), laplacian @ h.double().numpy(), atol=1e-5)


def test_amnet_attention_is_a_distribution_per_node_over_a_low_and_a_high_pass_filter(small_graph):
    adj_t, _ = small_graph
    torch.manual_seed(0)
    model = AdaptiveMultiFrequencyNetwork(5, 8, order=3, dropout=0.0)
    with torch.no_grad():
        for f in model.filters:
            f.increments.uniform_(-0.5, 1.0)
    _, attention = model.filtered(_features(), adj_t)
    assert attention.shape == (12, 2) and (attention >= 0).all()
    torch.testing.assert_close(attention.sum(1), torch.ones(12))
    low, high = (f.theta.detach() for f in model.filters)
    assert (low[:-1] >= low[1:]).all() and (high[:-1] <= high[1:]).all()
    assert not torch.allclose(attention[:, 0], attention[0, 0].expand(12))  # the weights differ between nodes


def test_ghrn_deletes_the_edges_whose_label_signal_is_most_high_frequency(planted):
    edge_index = torch.as_tensor(planted.edge_index)
    n = planted.num_nodes
    adj_t = to_torch_csr_tensor(edge_index.flip(0), size=(n, n))
    y = torch.nn.functional.one_hot(torch.as_tensor(planted.y), 2).float()
    row, col, score = heterophily_scores(adj_t, y)
    cross = planted.y[row.numpy()] != planted.y[col.numpy()]
    assert score[torch.as_tensor(cross)].mean() < 0 < score[torch.as_tensor(~cross)].mean()

    pruned = prune_heterophilous_edges(adj_t, y, del_ratio=0.05)
    dense_before, dense_after = adj_t.to_dense(), pruned.to_dense()
    torch.testing.assert_close(dense_after, dense_after.T)  # both directions of an edge go together
    deleted = torch.nonzero(torch.triu(dense_before - dense_after)).numpy()
    assert len(deleted) == int(0.05 * edge_index.shape[1] // 2) and (dense_after <= dense_before).all()
    deleted_cross = (planted.y[deleted[:, 0]] != planted.y[deleted[:, 1]]).mean()
    assert deleted_cross > 2 * cross.mean()


@pytest.mark.parametrize("name", DETECTORS)
def test_detector_scores_every_node_finitely_and_finds_planted_anomalies(planted, name):
    instance = NodeScoring().instance(planted, {}, seed=0)
    scores, ctx = run_detector(DETECTORS[name](), instance.inputs)
    assert scores.shape == (planted.num_nodes,) and scores.dtype == np.float64
    assert np.isfinite(scores).all()
    assert auroc(instance.truth.test_y, scores[instance.truth.test_idx]) > 70
    assert 1 <= ctx.to_json()["best_epoch"]["value"] <= ctx.to_json()["epochs_run"]["value"]


@pytest.mark.parametrize("name", DETECTORS)
def test_scores_do_not_depend_on_hidden_test_labels(planted, name):
    assert_ignores_hidden_test_labels(DETECTORS[name], planted)


def test_ghrn_trains_on_a_pruned_graph(planted):
    _, ctx = run_detector(GHRNDetector(del_ratio=0.05), NodeScoring().instance(planted, {}, seed=0).inputs)
    assert ctx.to_json()["edges_deleted"]["value"] == int(0.05 * planted.edge_index.shape[1] // 2)


@pytest.mark.parametrize(
    ("factory", "kwargs", "field"),
    [
        (GATDetector, {"heads": 0}, "heads"),
        (GATDetector, {"heads": 3}, "heads"),
        (GATDetector, {"hidden": 0}, "hidden"),
        (BWGNNDetector, {"order": 0}, "order"),
        (BWGNNDetector, {"order": 2.0}, "order"),
        (BernNetDetector, {"order": True}, "order"),
        (BernNetDetector, {"lr": -1.0}, "lr"),
        (AMNetDetector, {"order": -1}, "order"),
        (AMNetDetector, {"dropout": 1.0}, "dropout"),
        (GHRNDetector, {"del_ratio": 1.0}, "del_ratio"),
        (GHRNDetector, {"del_ratio": -0.1}, "del_ratio"),
        (GHRNDetector, {"del_ratio": "0.1"}, "del_ratio"),
    ],
)
def test_bad_parameters_raise_value_error_naming_the_parameter(factory, kwargs, field):
    with pytest.raises(ValueError, match=field):
        factory(**kwargs)
