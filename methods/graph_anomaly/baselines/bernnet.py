"""BernNet, He et al., NeurIPS 2021: a learnable Bernstein polynomial filter.

h(L) = sum_k theta_k C(K, k) / 2^K (2I - L)^(K-k) L^k with theta_k = ReLU(raw_k) >= 0,
so the response on [0, 2] is non-negative; raw starts at 1, the all-pass filter.
Architecture and defaults are GADBench's (Tang et al., NeurIPS 2023, `models/gnn.py::BernNet`):
Linear-ReLU-Linear-ReLU to h_feats = 32, the filter, ReLU, then Linear to 2 classes, and
K = orders = 2 (BernNet's paper uses K = 10). GADBench's `BernConv` applies L to the wrong
tensor in its inner loop (`unnLaplacian1(feat, ...)` instead of `x`); we use the paper's formula.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from methods.graph_anomaly.baselines.polynomial import Laplacian, PolynomialFilterDetector, bernstein_filter
from methods.graph_anomaly.params import SpectralParams


class BernsteinConv(nn.Module):
    """The filter with its own coefficients; `theta` is what the basis is weighted by."""

    def __init__(self, order: int, laplacian: Laplacian) -> None:
        super().__init__()
        self.raw = nn.Parameter(torch.ones(order + 1))
        self.laplacian = laplacian

    @property
    def theta(self) -> Tensor:
        return F.relu(self.raw)

    def forward(self, h: Tensor, adj_t: Tensor) -> Tensor:
        return bernstein_filter(self.laplacian, h, adj_t, self.theta)


class BernNetwork(nn.Module):
    def __init__(self, in_features: int, hidden: int, order: int, dropout: float) -> None:
        super().__init__()
        self.project = nn.Sequential(
            nn.Linear(in_features, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
        )
        self.filter = BernsteinConv(order, Laplacian())
        self.head = nn.Linear(hidden, 2)
        self.dropout = dropout

    def forward(self, x: Tensor, adj_t: Tensor) -> Tensor:
        h = F.relu(self.filter(self.project(x), adj_t))
        return self.head(F.dropout(h, self.dropout, self.training))


class BernNetDetector(PolynomialFilterDetector[SpectralParams]):
    """BernNet trained with GADBench's loop; `order` is the polynomial degree K (GADBench: 2)."""

    network = BernNetwork
