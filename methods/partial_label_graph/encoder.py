"""The GIN encoder every method of the family shares (Xu et al., ICLR 2019).

Each layer is GINConv with a two-layer MLP and batch normalisation; the graph embedding
is the sum readout of the last layer, GIN's injective choice. The same encoder under
every method is what makes the comparison one of losses and disambiguation, not of
architectures (PRISM's and DEER's tables use GIN).
"""
from __future__ import annotations

from itertools import pairwise

from torch import Tensor, nn
from torch_geometric.nn import GINConv, global_add_pool

from methods.partial_label_graph.batching import GraphBatch


class GINEncoder(nn.Module):
    def __init__(self, in_features: int, hidden: int = 64, layers: int = 3, dropout: float = 0.0) -> None:
        super().__init__()
        sizes = [in_features] + [hidden] * layers
        self.convs = nn.ModuleList(
            GINConv(nn.Sequential(
                nn.Linear(i, o), nn.BatchNorm1d(o), nn.ReLU(), nn.Linear(o, o), nn.BatchNorm1d(o), nn.ReLU(),
            ))
            for i, o in pairwise(sizes)
        )
        self.dropout = nn.Dropout(dropout)
        self.hidden = hidden

    def node_states(self, batch: GraphBatch, x: Tensor | None = None) -> Tensor:
        """h_v^(L) [n, hidden]; `x` replaces the batch's features (an augmented view)."""
        h = batch.x if x is None else x
        for conv in self.convs:
            h = self.dropout(conv(h, batch.edge_index))
        return h

    def forward(self, batch: GraphBatch) -> tuple[Tensor, Tensor]:
        """(node states [n, hidden], graph embeddings [B, hidden])."""
        h = self.node_states(batch)
        return h, global_add_pool(h, batch.batch, size=batch.num_graphs)


class GINClassifier(nn.Module):
    """GIN encoder + linear head: logits [B, C]."""

    def __init__(self, in_features: int, num_classes: int, hidden: int = 64, layers: int = 3, dropout: float = 0.0):
        super().__init__()
        self.encoder = GINEncoder(in_features, hidden, layers, dropout)
        self.head = nn.Linear(hidden, num_classes)

    def forward(self, batch: GraphBatch) -> Tensor:
        return self.head(self.encoder(batch)[1])
