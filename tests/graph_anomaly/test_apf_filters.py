"""Chebyshev-interpolation filters: monotone parameterisations, basis and coefficients vs dense spectra."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from methods.graph_anomaly.apf.chebyshev import (
    ChebInterpolationFilter, MonotoneChebFilter, apply_filter, chebyshev_basis, chebyshev_nodes,
    frequency_response, high_pass_values, interpolation_coefficients, low_pass_values, shifted_laplacian,
)
from methods.common.graphs import simple_undirected

K = 5


def _random_graph(n: int = 12, edges: int = 30, seed: int = 0) -> torch.Tensor:
    rng = np.random.default_rng(seed)
    return torch.as_tensor(simple_undirected(rng.integers(0, n, size=(2, edges)), n))


def _dense_l_hat(edge_index: torch.Tensor, n: int, self_loops: bool) -> np.ndarray:
    a = np.zeros((n, n))
    a[edge_index[0].numpy(), edge_index[1].numpy()] = 1.0
    if self_loops:
        a += np.eye(n)
    d = a.sum(1)
    inv = np.where(d > 0, d, np.inf) ** -0.5
    return -inv[:, None] * a * inv[None, :]


def test_chebyshev_nodes_run_from_low_to_high_frequency():
    nodes = chebyshev_nodes(K)
    assert (nodes.diff() > 0).all()
    assert -1 < nodes[0] < -0.9 and 0.9 < nodes[-1] < 1


@pytest.mark.parametrize("seed", range(5))
def test_lowpass_response_is_non_increasing_at_the_nodes(seed):
    torch.manual_seed(seed)
    t = torch.randn(K, dtype=torch.float64)  # negative raw values included: ReLU makes them steps of 0
    gammas = low_pass_values(t)
    assert gammas[0] == 2 and (gammas.diff() <= 1e-6).all()
    response = frequency_response(gammas, chebyshev_nodes(K) + 1)
    assert (response.diff() <= 1e-6).all()


@pytest.mark.parametrize("seed", range(5))
def test_highpass_response_is_non_decreasing_at_the_nodes(seed):
    torch.manual_seed(seed)
    gammas = high_pass_values(torch.randn(K, dtype=torch.float64))
    assert gammas[0] == 0 and (gammas.diff() >= -1e-6).all()
    assert (frequency_response(gammas, chebyshev_nodes(K) + 1).diff() >= -1e-6).all()


def test_initial_filters_are_monotone_on_a_fine_grid():
    lam = torch.linspace(0, 2, 2001)
    low, high = MonotoneChebFilter(K, "low").gammas().detach(), MonotoneChebFilter(K, "high").gammas().detach()
    assert (frequency_response(low, lam).diff() <= 1e-6).all()
    assert (frequency_response(high, lam).diff() >= -1e-6).all()


def test_step_shaped_lowpass_rings_between_nodes():
    """Monotone values do not make a monotone polynomial: the interpolant of a step overshoots."""
    gammas = low_pass_values(torch.tensor([0.0, 0.0, 2.0, 0.0, 0.0], dtype=torch.float64))
    response = frequency_response(gammas, torch.linspace(0, 2, 2001))
    assert (response.diff() > 1e-3).any()


def test_coefficients_interpolate_the_values_at_the_nodes():
    gammas = torch.randn(K + 1, dtype=torch.float64)
    np.testing.assert_allclose(frequency_response(gammas, chebyshev_nodes(K) + 1), gammas, atol=1e-12)
    # and T_0's coefficient is twice the mean of the values (discrete orthogonality)
    np.testing.assert_allclose(interpolation_coefficients(gammas)[0], 2 * gammas.mean(), atol=1e-12)


@pytest.mark.parametrize("self_loops", [True, False])
def test_shifted_laplacian_is_minus_the_normalised_adjacency(self_loops):
    edge_index, n = _random_graph(), 12
    l_hat = shifted_laplacian(edge_index, n, self_loops=self_loops).to_dense().double().numpy()
    np.testing.assert_allclose(l_hat, _dense_l_hat(edge_index, n, self_loops), atol=1e-6)
    if self_loops:
        eig = np.linalg.eigvalsh(l_hat)
        assert eig.min() >= -1 - 1e-6 and eig.max() <= 1 + 1e-6


def test_filter_on_the_basis_equals_the_spectral_filter():
    """U g(Λ) Uᵀ X by dense eigendecomposition pins the recurrence and the coefficient formula."""
    torch.manual_seed(0)
    edge_index, n = _random_graph(), 12
    l_hat = shifted_laplacian(edge_index, n).to(torch.float64)
    x = torch.randn(n, 3, dtype=torch.float64)
    gammas = torch.randn(K + 1, dtype=torch.float64)
    filtered = apply_filter(chebyshev_basis(l_hat, x, K), gammas)

    eig, u = np.linalg.eigh(_dense_l_hat(edge_index, n, self_loops=True))
    g = frequency_response(gammas, torch.as_tensor(eig) + 1).numpy()
    np.testing.assert_allclose(filtered.numpy(), u @ np.diag(g) @ u.T @ x.numpy(), atol=1e-5)  # L̂ is float32


def test_chebnetii_filter_starts_all_pass():
    """θ = 1 at every node interpolates the constant 1, so the initial propagation is the identity."""
    edge_index, n = _random_graph(), 12
    x = torch.randn(n, 4)
    out = ChebInterpolationFilter(K)(chebyshev_basis(shifted_laplacian(edge_index, n, self_loops=False), x, K))
    torch.testing.assert_close(out, x, atol=1e-5, rtol=1e-5)


def test_chebnetii_filter_clips_negative_values():
    chebnet = ChebInterpolationFilter(K)
    with torch.no_grad():
        chebnet.theta[2] = -3.0
    assert chebnet.gammas()[2] == 0 and chebnet.gammas()[0] == 1


def test_filter_kind_is_checked():
    with pytest.raises(ValueError, match="kind"):
        MonotoneChebFilter(K, "band")


def test_basis_gradient_matches_the_dense_product():
    edge_index, n = _random_graph(), 12
    l_hat = shifted_laplacian(edge_index, n, self_loops=False)
    x = torch.randn(n, 3, requires_grad=True)
    weights = torch.randn(K + 1, n, 3)
    (chebyshev_basis(l_hat, x, K) * weights).sum().backward()
    x_dense = x.detach().clone().requires_grad_(True)
    dense = l_hat.to_dense()
    terms = [x_dense, dense @ x_dense]  # plain autograd through dense products as the reference
    for _ in range(2, K + 1):
        terms.append(2 * dense @ terms[-1] - terms[-2])
    (torch.stack(terms) * weights).sum().backward()
    torch.testing.assert_close(x.grad, x_dense.grad, atol=1e-5, rtol=1e-5)
