"""Spectral polynomial filters in the normalised Laplacian, shared by BWGNN, BernNet, AMNet and GHRN.

L = I - D^-1/2 A D^-1/2 with degrees clamped at 1, as GADBench's `PolyConv`/`BernConv`
(Tang et al., NeurIPS 2023, `models/gnn.py`), so an isolated node has L x = x. Filters
are applied as repeated sparse products, never by eigendecomposition; a model builds
the normalised adjacency once per graph and reuses it, since the graph is fixed in training.
"""
from __future__ import annotations

import math
import warnings
from typing import ClassVar, TypeVar

import numpy as np
import torch
from numpy.polynomial import polynomial as P
from scipy.special import beta as beta_function
from torch import Tensor, nn

from methods.graph_anomaly.params import SpectralParams
from methods.graph_anomaly.training import NodeClassifierDetector


def normalized_adjacency(adj_t: Tensor) -> Tensor:
    """D^-1/2 A D^-1/2 as sparse CSR, for a symmetric CSR adjacency without self loops."""
    crow, col = adj_t.crow_indices(), adj_t.col_indices()
    inv_sqrt = (crow[1:] - crow[:-1]).clamp(min=1).to(torch.float32).pow(-0.5)
    row = torch.repeat_interleave(torch.arange(adj_t.shape[0], device=adj_t.device), crow[1:] - crow[:-1])
    values = adj_t.values().to(torch.float32) * inv_sqrt[row] * inv_sqrt[col]
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Sparse (CSR tensor support|invariant checks)")
        return torch.sparse_csr_tensor(crow, col, values, adj_t.shape)


class Laplacian(nn.Module):
    """Applies L to features; caches the normalised adjacency of the last `adj_t` it saw."""

    def __init__(self) -> None:
        super().__init__()
        self._source: Tensor | None = None
        self._norm_adj: Tensor | None = None

    def forward(self, h: Tensor, adj_t: Tensor) -> Tensor:
        if self._norm_adj is None or self._source is not adj_t:
            self._source, self._norm_adj = adj_t, normalized_adjacency(adj_t)
        return h - self._norm_adj @ h


def laplacian_powers(laplacian: Laplacian, h: Tensor, adj_t: Tensor, order: int) -> list[Tensor]:
    """[h, L h, ..., L^order h]."""
    powers = [h]
    for _ in range(order):
        powers.append(laplacian(powers[-1], adj_t))
    return powers


def beta_wavelet_coefficients(order: int) -> np.ndarray:
    """[d+1, d+1]: row i holds the monomial coefficients (lowest power first) of BWGNN's kernel
    beta_i(lam) = (lam/2)^i (1 - lam/2)^(d-i) / B(i+1, d+1-i), d = `order` (GADBench `calculate_theta`)."""
    rows = []
    for i in range(order + 1):
        poly = P.polymul(P.polypow([0.0, 0.5], i), P.polypow([1.0, -0.5], order - i))
        rows.append(poly / beta_function(i + 1, order + 1 - i))
    return np.stack(rows)


def bernstein_filter(laplacian: Laplacian, h: Tensor, adj_t: Tensor, theta: Tensor) -> Tensor:
    """sum_k theta_k C(K, k) / 2^K (2I - L)^(K-k) L^k h, K = len(theta) - 1 (BernNet, He et al., NeurIPS 2021).

    Evaluated in Bernstein form, K(K+3)/2 sparse products: the monomial expansion would
    subtract terms up to C(K, K/2) 2^K times larger than the result in float32.
    """
    order = theta.numel() - 1
    out = torch.zeros_like(h)
    for k, power in enumerate(laplacian_powers(laplacian, h, adj_t, order)):
        term = power
        for _ in range(order - k):
            term = 2 * term - laplacian(term, adj_t)
        out = out + theta[k] * (math.comb(order, k) / 2**order) * term
    return out


SP = TypeVar("SP", bound=SpectralParams)


class PolynomialFilterDetector(NodeClassifierDetector[SP]):
    """A spectral baseline trained with GADBench's loop; its depth is the polynomial `order` (GADBench: 2).

    A subclass names its `network(in_features, hidden, order, dropout)`.
    """

    network: ClassVar[type[nn.Module]]

    def build_model(self, in_features: int) -> nn.Module:
        return self.network(in_features, self.params.hidden, self.params.order, self.params.dropout)
