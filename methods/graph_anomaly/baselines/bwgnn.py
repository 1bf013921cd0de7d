"""BWGNN, Tang et al., ICML 2022 ("Rethinking Graph Neural Networks for Anomaly Detection"), homogeneous.

Anomalies shift spectral energy to high frequencies, so BWGNN filters a projected
feature with d + 1 Beta-wavelet band-pass kernels that tile [0, 2] and classifies their
concatenation. Following GADBench (Tang et al., NeurIPS 2023, `models/gnn.py::BWGNN`):
projection Linear-ReLU-Linear-ReLU to h_feats = 32, d = num_layers = 2, kernels expanded
as fixed polynomials in L (`calculate_theta`, here `beta_wavelet_coefficients`), then a
2-layer MLP (h_feats * (d + 1) -> h_feats -> 2) with dropout (GADBench default 0) before it.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from methods.graph_anomaly.baselines.mlp import FeedForward
from methods.graph_anomaly.baselines.polynomial import (
    SP, Laplacian, PolynomialFilterDetector, beta_wavelet_coefficients, laplacian_powers,
)


class BetaWaveletNetwork(nn.Module):
    theta: Tensor  # a buffer, registered in __init__

    def __init__(self, in_features: int, hidden: int, order: int, dropout: float) -> None:
        super().__init__()
        self.project = nn.Sequential(
            nn.Linear(in_features, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
        )
        self.register_buffer("theta", torch.tensor(beta_wavelet_coefficients(order), dtype=torch.float32))
        self.laplacian = Laplacian()
        self.head = FeedForward(hidden * (order + 1), hidden, 2, dropout)
        self.dropout = dropout

    def forward(self, x: Tensor, adj_t: Tensor) -> Tensor:
        h = self.project(x)
        powers = torch.stack(laplacian_powers(self.laplacian, h, adj_t, self.theta.shape[0] - 1))  # [d+1, N, H]
        bands = torch.einsum("ij,jnh->nih", self.theta, powers).flatten(1)  # kernel i's output in block i
        return self.head(F.dropout(bands, self.dropout, self.training))


class BWGNNDetector(PolynomialFilterDetector[SP]):
    """BWGNN trained with GADBench's loop; `order` is the Beta-wavelet order d (GADBench: 2)."""

    network = BetaWaveletNetwork
