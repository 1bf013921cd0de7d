"""AMNet, Chai et al., IJCAI 2022 ("Can Abnormality be Detected by Graph Neural Networks?").

A low-pass and a high-pass Bernstein filter of a projected feature, mixed per node by an
attention whose logit for filter f is <tanh(W_f z_f), tanh(W_x h)>, softmax over the two
filters, then a linear head. Projection (Linear-ReLU-Linear), h_feats = 32, head and
K = orders = 2 follow GADBench (Tang et al., NeurIPS 2023, `models/gnn.py::AMNet`); the two
filters follow AMNet's paper (GADBench stacks three identical ones).

Simplification: AMNet keeps one filter low-pass and the other high-pass with a penalty
added to the loss; our shared training loop has only cross-entropy, so we enforce it by
construction: theta_low = reverse cumulative sums and theta_high = cumulative sums of
ReLU'd increments. A Bernstein polynomial with non-increasing (non-decreasing) coefficients
has a non-increasing (non-decreasing) response on [0, 2], since its derivative is
K sum_k (theta_{k+1} - theta_k) b_{k, K-1}.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from methods.graph_anomaly.baselines.polynomial import Laplacian, PolynomialFilterDetector, bernstein_filter
from methods.graph_anomaly.params import SpectralParams


class MonotoneBernsteinConv(nn.Module):
    """A Bernstein filter whose response is non-increasing (`low_pass`) or non-decreasing in lambda."""

    def __init__(self, order: int, low_pass: bool, laplacian: Laplacian) -> None:
        super().__init__()
        self.increments = nn.Parameter(torch.ones(order + 1))
        self.low_pass = low_pass
        self.laplacian = laplacian

    @property
    def theta(self) -> Tensor:
        steps = F.relu(self.increments)
        return steps.flip(0).cumsum(0).flip(0) if self.low_pass else steps.cumsum(0)

    def forward(self, h: Tensor, adj_t: Tensor) -> Tensor:
        return bernstein_filter(self.laplacian, h, adj_t, self.theta)


class AdaptiveMultiFrequencyNetwork(nn.Module):
    def __init__(self, in_features: int, hidden: int, order: int, dropout: float) -> None:
        super().__init__()
        self.project = nn.Sequential(nn.Linear(in_features, hidden), nn.ReLU(), nn.Linear(hidden, hidden))
        laplacian = Laplacian()
        self.filters = nn.ModuleList(MonotoneBernsteinConv(order, low, laplacian) for low in (True, False))
        self.key = nn.Sequential(nn.Linear(hidden, hidden), nn.Tanh())    # W_f on each filtered signal
        self.query = nn.Sequential(nn.Linear(hidden, hidden), nn.Tanh())  # W_x on the unfiltered one
        self.head = nn.Linear(hidden, 2)
        self.dropout = dropout

    def filtered(self, x: Tensor, adj_t: Tensor) -> tuple[Tensor, Tensor]:
        """(z [N, 2, H]: low- then high-pass signal, attention [N, 2]: each row a distribution)."""
        h = self.project(x)
        z = torch.stack([f(h, adj_t) for f in self.filters], dim=1)
        logits = torch.einsum("nfh,nh->nf", self.key(z), self.query(h))
        return z, torch.softmax(logits, dim=1)

    def forward(self, x: Tensor, adj_t: Tensor) -> Tensor:
        z, attention = self.filtered(x, adj_t)
        mixed = torch.einsum("nf,nfh->nh", attention, z)
        return self.head(F.dropout(mixed, self.dropout, self.training))


class AMNetDetector(PolynomialFilterDetector[SpectralParams]):
    """AMNet trained with GADBench's loop; `order` is the Bernstein degree K (GADBench: 2)."""

    network = AdaptiveMultiFrequencyNetwork
