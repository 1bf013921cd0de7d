"""MLP on node features alone, GADBench's MLP baseline (Tang et al., NeurIPS 2023).

`layers` linear layers (hidden width `hidden`, ReLU, dropout between them) down to 2
classes; the graph is ignored, which makes it the floor every GNN has to beat.
"""
from __future__ import annotations

from itertools import pairwise

import torch.nn.functional as F
from torch import Tensor, nn

from methods.graph_anomaly.params import LayeredParams
from methods.graph_anomaly.training import NodeClassifierDetector


class FeedForward(nn.Module):
    def __init__(self, in_features: int, hidden: int, layers: int, dropout: float) -> None:
        super().__init__()
        sizes = [in_features] + [hidden] * (layers - 1) + [2]
        self.linears = nn.ModuleList(nn.Linear(i, o) for i, o in pairwise(sizes))
        self.dropout = dropout

    def forward(self, x: Tensor, adj_t: Tensor | None = None) -> Tensor:
        """Logits [N, 2]; `adj_t` is accepted for the shared training loop and ignored."""
        h = self.linears[0](x)
        for linear in self.linears[1:]:
            h = linear(F.dropout(F.relu(h), self.dropout, self.training))
        return h


class MLPDetector(NodeClassifierDetector[LayeredParams]):
    """GADBench's MLP: features only, class-weighted cross-entropy, selected on validation AUPRC."""

    def build_model(self, in_features: int) -> nn.Module:
        return FeedForward(in_features, self.params.hidden, self.params.layers, self.params.dropout)
